package plugin

import (
	"fmt"
	"strings"
)

// ChecksumsFile is where a plugin records the sha256 of its version's
// release archives (goreleaser's checksums.txt, copied in at release by
// scripts/stamp-release.sh); scripts/rlxp checks what it downloads against it.
const ChecksumsFile = "checksums.txt"

var checksumLine = lazyRegexp(`^([0-9a-f]{64})  (rlxp_(.+)_(linux|darwin)_(amd64|arm64)\.tar\.gz)$`)

// checkChecksums checks that checksums.txt, when present, records archives
// of the plugin's own version only: one stamped for another version would
// leave the shim nothing to verify a download against.
func (v *validator) checkChecksums(dir, version string) {
	file := pj(dir, ChecksumsFile)
	if !v.isFile(file) {
		return
	}
	data, ok := v.readFile(file)
	if !ok {
		return
	}
	seen := map[string]bool{}
	bad := 0
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		m := checksumLine().FindStringSubmatch(line)
		switch {
		case m == nil:
			v.errorf(file, i+1, "want \"<sha256>  rlxp_<version>_<os>_<arch>.tar.gz\" (goreleaser's checksums.txt), have %q", line)
		case version != "" && m[3] != version:
			v.errorf(file, i+1, "%s is not the plugin's version %s: the shim would find no checksum to verify a download against (scripts/stamp-release.sh stamps both)", m[2], version)
		case seen[m[2]]:
			v.errorf(file, i+1, "%s is recorded twice", m[2])
		default:
			seen[m[2]] = true
			continue
		}
		bad++
	}
	if bad > 0 {
		return
	}
	for _, p := range platforms {
		if name := archiveName(version, p); version != "" && !seen[name] {
			v.warnf(file, 0, "no checksum for %s: the shim cannot install rlxp on %s", name, strings.Replace(p, "_", "/", 1))
		}
	}
}

// platforms are the release's targets (.goreleaser.yaml).
var platforms = []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64"}

func archiveName(version, platform string) string {
	return fmt.Sprintf("rlxp_%s_%s.tar.gz", version, platform)
}
