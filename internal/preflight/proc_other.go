//go:build !unix

package preflight

import (
	"os"
	"os/exec"
)

// SetGroup does nothing: without process groups only the command itself
// can be killed.
func SetGroup(*exec.Cmd) {}

// KillGroup kills the command itself.
func KillGroup(p *os.Process) { _ = p.Kill() }

func signalOf(*os.ProcessState) string { return "" }
