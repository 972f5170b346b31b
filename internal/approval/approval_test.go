package approval

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type table []Process

func (t table) Self() int { return t[0].PID }

func (t table) Process(pid int) (Process, error) {
	for _, p := range t {
		if p.PID == pid {
			return p, nil
		}
	}
	return Process{}, fs.ErrNotExist
}

func TestTrace(t *testing.T) {
	self := Process{PID: 10, PPID: 9, Name: "rlxp", Exe: "/usr/local/bin/rlxp", TTY: "/dev/pts/1"}
	shell := Process{PID: 9, PPID: 8, Name: "bash", Exe: "/usr/bin/bash"}
	tests := []struct {
		name     string
		above    []Process
		ancestry []string
		refusal  string
	}{
		{"a login shell", []Process{{PID: 8, PPID: 1, Name: "sshd", Exe: "/usr/sbin/sshd"}}, []string{"rlxp", "bash", "sshd"}, ""},
		{"claude binary", []Process{{PID: 8, PPID: 1, Name: "claude", Exe: "/home/u/.local/share/claude/versions/2.1.0"}}, nil,
			`Claude Code (pid 8: executable "claude")`},
		{"claude under node", []Process{{PID: 8, PPID: 1, Name: "node", Exe: "/usr/bin/node", Argv: []string{"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"}}}, nil,
			`Claude Code (pid 8: command line "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js")`},
		{"codex by argv0", []Process{{PID: 8, PPID: 1, Name: "MainThread", Argv: []string{"/opt/codex/bin/codex", "exec"}}}, nil,
			`Codex (pid 8: executable "codex")`},
		{"Claude Code's shell marker", []Process{{PID: 8, PPID: 1, Name: "zsh", Env: []string{"HOME=/h", "CLAUDECODE=1"}}}, nil,
			`Claude Code (pid 8: environment CLAUDECODE)`},
		{"Codex npm launcher marker", []Process{{PID: 8, PPID: 1, Name: "sh", Env: []string{"CODEX_MANAGED_BY_NPM=1"}}}, nil,
			`Codex (pid 8: environment CODEX_MANAGED_BY_NPM)`},
		{"CODEX_HOME is a user's setting", []Process{{PID: 8, PPID: 1, Name: "sh", Env: []string{"CODEX_HOME=/h/.codex"}}}, []string{"rlxp", "bash", "sh"}, ""},
		{"an empty marker is none", []Process{{PID: 8, PPID: 1, Name: "sh", Env: []string{"CLAUDECODE="}}}, []string{"rlxp", "bash", "sh"}, ""},
		{"name is a substring only", []Process{{PID: 8, PPID: 1, Name: "claudette", Exe: "/bin/claudette"}}, []string{"rlxp", "bash", "claudette"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Trace(append(table{self, shell}, tt.above...))
			if tt.refusal == "" {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.ancestry, o.Ancestry); diff != "" {
					t.Errorf("ancestry (-want +got):\n%s", diff)
				}
				if o.TTY != "/dev/pts/1" {
					t.Errorf("tty %q", o.TTY)
				}
				return
			}
			var ae *AgentError
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), "descends from "+tt.refusal+";") {
				t.Errorf("Trace = %v, want a refusal naming %s", err, tt.refusal)
			}
		})
	}
}

// An unreadable process is a refusal, not a pass.
func TestTraceFailsClosed(t *testing.T) {
	_, err := Trace(brokenTable{})
	if err == nil || !strings.Contains(err.Error(), "cannot read the approving process's ancestry") {
		t.Errorf("Trace = %v", err)
	}
}

type brokenTable struct{}

func (brokenTable) Self() int                    { return 5 }
func (brokenTable) Process(int) (Process, error) { return Process{}, fs.ErrPermission }

func TestSystemSeesItself(t *testing.T) {
	o, err := Trace(System())
	var ae *AgentError
	if errors.As(err, &ae) {
		t.Skipf("this test runs under an agent host (%v): the refusal is the right answer", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	if len(o.Ancestry) == 0 || o.Ancestry[0] != filepath.Base(exe) {
		t.Errorf("ancestry %v does not start with %s", o.Ancestry, filepath.Base(exe))
	}
}

func TestTTYName(t *testing.T) {
	for stat, want := range map[string]string{
		"123 (bash) S 1 123 123 34816 0":   "/dev/pts/0",
		"123 (a) b) S 1 123 123 34821 0":   "/dev/pts/5",
		"123 (sshd) S 1 123 123 0 0":       "",
		"123 (getty) S 1 123 123 1025 0":   "/dev/tty1",
		"123 (x) S 1 123 123 notanumber 0": "",
	} {
		if got := ttyName([]byte(stat)); got != want {
			t.Errorf("ttyName(%q) = %q, want %q", stat, got, want)
		}
	}
}

func TestCheckName(t *testing.T) {
	for name, want := range map[string]string{
		"alice":                  "",
		"Zoë Müller":             "",
		"--version":              `approver name "--version" starts with '-'`,
		"":                       "approver name is empty",
		"alice\nrlxp: ok":        "control character U+000A at byte 5",
		"al\x1b[31mice":          "control character U+001B",
		"bob\u202eecila":         "control character U+202E",
		"\xff":                   "not valid UTF-8",
		strings.Repeat("a", 201): "at most 200",
	} {
		err := CheckName(name)
		if (err == nil) != (want == "") || err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("CheckName(%q) = %v, want %q", name, err, want)
		}
	}
}

func TestLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "approvals.jsonl")
	l := Log{Path: path, Name: "approvals.jsonl"}
	b, err := l.Read()
	if err != nil || b.Problem != nil || len(b.Records) != 0 {
		t.Fatalf("missing log: %v %v %v", b.Records, b.Problem, err)
	}
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, r := range []Record{
		{Kind: Section, Subject: "task", Digest: "sha256:aa", By: "alice", How: Yes, Ancestry: []string{"rlxp"}},
		{Kind: Experiment, Subject: "lr", Digest: "sha256:bb", By: "bob", How: Terminal, TTY: "/dev/pts/2", Ancestry: []string{"rlxp", "zsh"}},
		{Kind: Section, Subject: "task", Digest: "sha256:cc", By: "carol", How: Yes, Ancestry: []string{"rlxp"}},
	} {
		if _, err := l.Append(r, now); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.Append(Record{Kind: Section, Subject: "task", Digest: "d", By: "--yes", How: Yes}, now); err == nil {
		t.Error("appended an approver that is a flag")
	}
	b, err = l.Read()
	if err != nil || b.Problem != nil {
		t.Fatal(err, b.Problem)
	}
	got := map[string]string{}
	for s, r := range b.Latest(Section) {
		got[s] = r.By + " " + r.Digest
	}
	for s, r := range b.Latest(Experiment) {
		got[s] = r.By + " " + r.Digest + " " + r.How + " " + r.TTY
	}
	want := map[string]string{"task": "carol sha256:cc", "lr": "bob sha256:bb terminal /dev/pts/2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("latest (-want +got):\n%s", diff)
	}

	// A line that hashes right but is no approval is refused too.
	data, _ := os.ReadFile(path)
	if b := Parse("a", append(data, []byte("not json\n")...)); b.Problem == nil || len(b.Records) != 0 {
		t.Errorf("a broken log kept %d records, problem %v", len(b.Records), b.Problem)
	}
}
