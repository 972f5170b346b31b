package state

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ErrSymlink means a state file is a symbolic link. rlxp never writes
// through one: a link under .rlxp/ could aim a lock, an append or a rewrite
// at any file the user can write, outside the repo.
var ErrSymlink = errors.New("is a symbolic link; rlxp writes nothing under .rlxp/ through a link (replace it with a regular file)")

// OpenNoFollow opens path like os.OpenFile but refuses a symbolic link as
// the last element.
func OpenNoFollow(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW, perm)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s %w", path, ErrSymlink)
	}
	return f, err
}

// refuseLink fails when path exists as a symbolic link.
func refuseLink(path string) error {
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s %w", path, ErrSymlink)
	}
	return nil
}
