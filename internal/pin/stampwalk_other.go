//go:build !(linux && (amd64 || arm64))

package pin

import (
	"hash"
	"sync/atomic"
)

// A stampWalker stamps trees with filepath.WalkDir where the system calls
// of stampwalk_linux.go are not at hand.
type stampWalker struct{ files *atomic.Int64 }

func (w *stampWalker) dir(h hash.Hash, dir, skip string) error {
	return walkStamps(h, dir, skip, w.files)
}
