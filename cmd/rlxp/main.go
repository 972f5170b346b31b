// Command rlxp keeps RL experiments evidence-gated. See 'rlxp help'.
//
// This binary is rlxp's front: it answers --version and contract status
// itself and hands every other command, by replacing its process, to
// rlxp-core, installed beside it, which links the whole command line
// (internal/cli/front). Starting small keeps the calls agents make
// between steps close to an empty program's start (docs/performance.md).
package main

import (
	"os"

	"github.com/rlxp/rlxp/internal/buildversion"
	"github.com/rlxp/rlxp/internal/cli/front"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = ""

func main() {
	os.Exit(front.Main(buildversion.Of(version)))
}
