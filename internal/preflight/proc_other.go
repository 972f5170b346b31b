//go:build !unix

package preflight

import (
	"os"
	"os/exec"
)

// Without process groups only the command itself can be killed.
func setGroup(*exec.Cmd) {}

func killGroup(p *os.Process) { _ = p.Kill() }

func signalOf(*os.ProcessState) string { return "" }
