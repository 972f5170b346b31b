package launch

import (
	"bytes"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/rlxp/rlxp/internal/probe"
)

// becomeSubreaper makes this process the parent of every orphan among its
// descendants: a trainer that double-forks or calls setsid stays in reach.
func becomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("become a child subreaper: %w", err)
	}
	return nil
}

// descendants are the live processes below pid, from /proc's parent links,
// leaving out the processes in prune and everything below them.
func descendants(pid int, prune map[int]bool) []int {
	procs, err := probe.Procs(probe.System())
	if err != nil {
		return nil
	}
	kids := map[int][]int{}
	for _, p := range procs {
		if p.Alive() {
			kids[p.PPID] = append(kids[p.PPID], p.PID)
		}
	}
	var out []int
	queue := kids[pid]
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if prune[p] {
			continue
		}
		out = append(out, p)
		queue = append(queue, kids[p]...)
	}
	return out
}

// signalTree sends sig to the process group pgid and to every descendant
// of this process outside prune's subtrees; it says how many processes it
// reached.
func signalTree(sig syscall.Signal, pgid int, prune map[int]bool) int {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, sig)
	}
	n := 0
	for _, p := range descendants(os.Getpid(), prune) {
		if syscall.Kill(p, sig) == nil {
			n++
		}
	}
	return n
}

// runAttr puts a run's first process in its own group, killed with its
// shepherd: Pdeathsig reaches the direct child, the subreaper the rest.
func runAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// tagged are the live processes whose environment, as they were started,
// sets RLXP_RUN_ID to id: what is left of a run whose supervision died. A
// process that cleared its environment before exec is not found.
func tagged(id string) []int {
	procs, err := probe.Procs(probe.System())
	if err != nil {
		return nil
	}
	want := []byte("RLXP_RUN_ID=" + id + "\x00")
	var out []int
	for _, p := range procs {
		if !p.Alive() || p.PID == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p.PID))
		if err == nil && (bytes.HasPrefix(env, want) || bytes.Contains(env, append([]byte{0}, want...))) {
			out = append(out, p.PID)
		}
	}
	return out
}
