// Command rlxp keeps RL experiments evidence-gated. See 'rlxp help'.
package main

import (
	"os"
	"runtime/debug"

	"github.com/rlxp/rlxp/internal/cli"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = ""

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.SystemEnv(buildVersion())))
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
