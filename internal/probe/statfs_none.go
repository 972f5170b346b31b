//go:build !linux && !darwin && !freebsd

package probe

import (
	"errors"
	"fmt"
)

func statfs(path string) (free, total uint64, err error) {
	return 0, 0, fmt.Errorf("statfs %s: %w", path, errors.ErrUnsupported)
}
