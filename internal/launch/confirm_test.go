package launch

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/runs"
)

// procs is a process table: the first process is the launching one.
type procs []approval.Process

func (p procs) Self() int { return p[0].PID }

func (p procs) Process(pid int) (approval.Process, error) {
	for _, x := range p {
		if x.PID == pid {
			return x, nil
		}
	}
	return approval.Process{}, fs.ErrNotExist
}

type brokenTable struct{}

func (brokenTable) Self() int { return 7 }
func (brokenTable) Process(int) (approval.Process, error) {
	return approval.Process{}, errors.New("permission denied")
}

func TestConfirmation(t *testing.T) {
	rlxp := approval.Process{PID: 100, PPID: 50, Name: "rlxp", Exe: "/usr/bin/rlxp"}
	shell := approval.Process{PID: 50, PPID: 40, Name: "bash", Exe: "/bin/bash"}
	for _, tc := range []struct {
		name  string
		table approval.ProcessTable
		want  string
	}{
		{"a human's shell", procs{rlxp, shell, {PID: 40, PPID: 1, Name: "sshd", Exe: "/usr/sbin/sshd"}}, runs.ByDigest},
		{"Claude Code's shell tool", procs{rlxp, shell, {PID: 40, PPID: 1, Name: "claude", Exe: "/usr/bin/claude"}}, runs.ByHostAsk},
		{"Claude Code's environment marker", procs{rlxp, {PID: 50, PPID: 1, Name: "bash", Env: []string{"CLAUDECODE=1"}}}, runs.ByHostAsk},
		{"Codex, which cannot ask", procs{rlxp, shell, {PID: 40, PPID: 1, Name: "codex", Exe: "/usr/bin/codex"}}, runs.ByAgent},
		{"an unreadable ancestry", brokenTable{}, runs.ByUnverified},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Confirmation(tc.table)); diff != "" {
				t.Errorf("Confirmation (-want +got):\n%s", diff)
			}
		})
	}
}
