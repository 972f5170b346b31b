package state

import (
	"os"
	"path/filepath"
)

// Find returns the repository root at or above dir: the nearest directory
// that holds a .rlxp directory. It returns "" when there is none; a
// directory that cannot be examined counts as not holding one, so the
// search goes on upwards.
func Find(dir string) string {
	dir = filepath.Clean(dir)
	for {
		if fi, err := os.Stat(filepath.Join(dir, DirName)); err == nil && fi.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
