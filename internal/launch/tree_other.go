//go:build !linux

package launch

import (
	"errors"
	"syscall"
)

// becomeSubreaper needs Linux's prctl; elsewhere a run is stopped by its
// process group alone.
func becomeSubreaper() error {
	return errors.New("become a child subreaper: only Linux has PR_SET_CHILD_SUBREAPER")
}

func descendants(int, map[int]bool) []int { return nil }

func signalTree(sig syscall.Signal, pgid int, _ map[int]bool) int {
	if pgid > 0 && syscall.Kill(-pgid, sig) == nil {
		return 1
	}
	return 0
}

func runAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func tagged(string) []int { return nil }
