// Command rlxp-core is the whole rlxp command line. The rlxp binary (cmd/rlxp)
// answers --version and contract status itself and hands every other
// command to rlxp-core, installed beside it, by replacing its process with
// this one (internal/cli/front).
package main

import (
	"os"

	"github.com/rlxp/rlxp/internal/buildversion"
	"github.com/rlxp/rlxp/internal/cli"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = ""

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.SystemEnv(buildversion.Of(version))))
}
