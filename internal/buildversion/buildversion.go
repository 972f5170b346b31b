// Package buildversion names the build that rlxp and rlxp-core report
// with --version, so that the front and the core say the same.
package buildversion

import "runtime/debug"

// Of is the version stamped at build time (-ldflags "-X main.version=…"),
// else the module version go install recorded, else "(devel)".
func Of(stamped string) string {
	if stamped != "" {
		return stamped
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
