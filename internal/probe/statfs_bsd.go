//go:build darwin || freebsd

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
	// Bavail is signed on some BSDs and goes negative in the reserve.
	return uint64(max(st.Bavail, 0)) * uint64(st.Bsize), uint64(st.Blocks) * uint64(st.Bsize), nil
}
