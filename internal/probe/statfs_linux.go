package probe

import (
	"fmt"
	"syscall"
)

func statfs(path string) (free, total uint64, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, 0, fmt.Errorf("statfs %s: %w", path, err)
	}
	// Block counts are in fragment-size units; Bsize is only the preferred
	// I/O size, though the two agree on common filesystems.
	unit := uint64(st.Frsize)
	if unit == 0 {
		unit = uint64(st.Bsize)
	}
	return st.Bavail * unit, st.Blocks * unit, nil
}
