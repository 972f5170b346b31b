//go:build unix

package preflight

import (
	"os"
	"os/exec"
	"syscall"
)

// SetGroup starts cmd in a process group of its own, so KillGroup ends
// whatever it started too.
func SetGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// KillGroup kills the process group led by p. SIGKILL, not SIGTERM: a
// preflight holds nothing worth a graceful shutdown. Errors mean the group
// is already gone.
func KillGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
}

func signalOf(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
