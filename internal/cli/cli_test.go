package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/prompt"
)

// walk visits every runnable command with its path of names, as the
// table names it (TestCommandTable checks that the command agrees).
func walk(cmds []Sub, path string, visit func(path string, c *Command)) {
	for _, s := range cmds {
		c := s.New()
		p := strings.TrimSpace(path + " " + s.Name)
		if c.Commands != nil {
			walk(c.Commands, p, visit)
			continue
		}
		visit(p, c)
	}
}

// TestCommandTable lints the table: usage lines, short help style, EXIT
// STATUS sections that document every code a command can return, --help
// handling, and --json where a command reports.
func TestCommandTable(t *testing.T) {
	seen := map[string]bool{}
	walk(commands(), "", func(path string, c *Command) {
		if seen[path] {
			t.Errorf("%s: declared twice", path)
		}
		seen[path] = true
		if c.Name() != path[strings.LastIndex(path, " ")+1:] {
			t.Errorf("%s: the table names the command %q", c.UsageLine, path)
		}
		if !strings.HasPrefix(c.UsageLine, "rlxp "+path) {
			t.Errorf("%s: usage line %q does not start with 'rlxp %s'", path, c.UsageLine, path)
		}
		if c.Short == "" || strings.HasSuffix(c.Short, ".") || strings.ToLower(c.Short[:1]) != c.Short[:1] {
			t.Errorf("%s: short help %q should be lowercase without a final period", path, c.Short)
		}
		if !strings.Contains(c.Long, "\nEXIT STATUS\n") {
			t.Errorf("%s: long help has no EXIT STATUS section", path)
		}
		for _, code := range []string{"0", "2"} {
			if !strings.Contains(c.Long, "\n  "+code+"  ") {
				t.Errorf("%s: EXIT STATUS does not document %s", path, code)
			}
		}
		if c.Flags == nil {
			t.Fatalf("%s: no flag set", path)
		}
		c.Flags.SetOutput(new(bytes.Buffer))
		c.Flags.Usage = func() {}
		if err := c.Flags.Parse([]string{"--help"}); !errors.Is(err, pflag.ErrHelp) {
			t.Errorf("%s: --help gives %v, want ErrHelp", path, err)
		}
		if strings.Contains(c.UsageLine, "[--json]") != (c.Flags.Lookup("json") != nil) {
			t.Errorf("%s: usage line and flags disagree about --json", path)
		}
		if c.Flags.Lookup("root") != nil && !strings.Contains(c.UsageLine, "--root DIR") {
			t.Errorf("%s: --root is not in the usage line", path)
		}
	})
	for _, want := range []string{"init", "contract status", "contract show", "contract validate", "contract approve",
		"experiment add", "experiment list", "experiment show", "experiment approve", "experiment reject", "gate", "plugin validate", "guard",
		"audit", "propose", "check", "launch", "status", "score", "report", "dashboard", "supervise",
		"metrics inspect", "metrics series", "ledger show", "ledger verify", "ledger diff"} {
		if !seen[want] {
			t.Errorf("command %q is missing from the table", want)
		}
	}
}

// testEnv is an Env over buffers; tty sets both terminal flags.
func testEnv(t testing.TB, dir, stdin string, tty bool) (*Env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	env := &Env{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errb,
		StdinTTY: tty, StdoutTTY: tty,
		Getenv: func(k string) string {
			if k == "NO_COLOR" {
				return "1"
			}
			return ""
		},
		Dir:     dir,
		Now:     func() time.Time { return time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC) },
		Version: "test",
		Procs:   fakeProcs{{PID: 100, PPID: 50, Name: "rlxp", Exe: "/usr/bin/rlxp", TTY: "/dev/pts/4"}, {PID: 50, PPID: 1, Name: "bash", Exe: "/bin/bash", TTY: "/dev/pts/4"}},
	}
	return env, &out, &errb
}

// fakeProcs is a process table: the first process is the approving one.
type fakeProcs []approval.Process

func (f fakeProcs) Self() int { return f[0].PID }

func (f fakeProcs) Process(pid int) (approval.Process, error) {
	for _, p := range f {
		if p.PID == pid {
			return p, nil
		}
	}
	return approval.Process{}, fs.ErrNotExist
}

func initFixture(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	env, _, errb := testEnv(t, dir, "", false)
	if code := Main([]string{"init"}, env); code != 0 {
		t.Fatalf("init: exit %d: %s", code, errb)
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "cmd", "rlxp", "testdata", "fixtures", "contract.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".rlxp", "contract.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	// An experiment's approval pins the commands adapter.yaml fills in.
	b, err = os.ReadFile(filepath.Join("..", "..", "cmd", "rlxp", "testdata", "fixtures", "adapter.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".rlxp", "adapter.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestInteractiveApproval answers the terminal prompt: yes to task, no to
// metrics. Only task is approved, and it is recorded as interactive.
func TestInteractiveApproval(t *testing.T) {
	dir := initFixture(t)
	env, out, errb := testEnv(t, dir, "y\nn\n", true)
	if code := Main([]string{"contract", "approve", "task", "metrics", "--by", "dana"}, env); code != 0 {
		t.Fatalf("approve: exit %d: %s", code, errb)
	}
	for _, want := range []string{"task:\n  description:", "Approve section task as dana? [y/N]", "Approve section metrics as dana? [y/N]",
		"approved task (sha256:", "by dana at 2026-11-29T09:00:00Z, interactive\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out.String(), "approved metrics") {
		t.Errorf("metrics was approved after answering no:\n%s", out)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ".rlxp", "approvals.jsonl"))
	if !strings.Contains(string(b), `{"ancestry":["rlxp","bash"],"by":"dana",`) || !strings.Contains(string(b), `"how":"terminal","kind":"section",`) ||
		!strings.Contains(string(b), `"subject":"task","time":"2026-11-29T09:00:00Z","tty":"/dev/pts/4"}`) {
		t.Errorf("approvals.jsonl lacks the interactive approval:\n%s", b)
	}
	if strings.Contains(string(b), `"subject":"metrics"`) {
		t.Errorf("metrics approval written after answering no")
	}

	// Declining everything writes nothing.
	before, _ := os.ReadFile(filepath.Join(dir, ".rlxp", "approvals.jsonl"))
	env, out, _ = testEnv(t, dir, "\n", true)
	if code := Main([]string{"contract", "approve", "scope"}, env); code != 0 {
		t.Fatalf("declined approve: exit %d", code)
	}
	after, _ := os.ReadFile(filepath.Join(dir, ".rlxp", "approvals.jsonl"))
	if !bytes.Equal(before, after) || !strings.Contains(out.String(), "nothing approved") {
		t.Errorf("declining changed the approvals or said otherwise:\n%s", out)
	}
}

// TestApprovalUnderAgent: a terminal and a "y" do not help a process under
// an agent host; nothing is asked or written.
func TestApprovalUnderAgent(t *testing.T) {
	dir := initFixture(t)
	env, out, errb := testEnv(t, dir, "y\n", true)
	env.Procs = fakeProcs{{PID: 100, PPID: 60, Name: "rlxp"}, {PID: 60, PPID: 50, Name: "script"}, {PID: 50, PPID: 40, Name: "bash"},
		{PID: 40, PPID: 1, Name: "node", Argv: []string{"node", "/usr/lib/node_modules/@openai/codex/bin/codex.js"}}}
	if code := Main([]string{"contract", "approve", "task", "--by", "dana"}, env); code != ExitError {
		t.Fatalf("approve under codex: exit %d, want %d", code, ExitError)
	}
	want := "rlxp: approval refused: this process descends from Codex (pid 40: command line \"/usr/lib/node_modules/@openai/codex/bin/codex.js\"); approval is a human act: run the command yourself in a terminal of your own, outside the agent\n"
	if errb.String() != want || out.Len() != 0 {
		t.Errorf("stderr %q, stdout %q; want %q and nothing", errb, out, want)
	}
	if _, err := os.Stat(filepath.Join(dir, ".rlxp", "approvals.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("approvals.jsonl written: %v", err)
	}
}

func TestInteractiveExperimentApproval(t *testing.T) {
	dir := initFixture(t)
	env, _, errb := testEnv(t, dir, "", false)
	if code := Main([]string{"experiment", "add", "lr", "--param", "lr=0.01"}, env); code != 0 {
		t.Fatalf("add: exit %d: %s", code, errb)
	}
	env, out, errb := testEnv(t, dir, "yes\n", true)
	if code := Main([]string{"experiment", "approve", "lr"}, env); code != 0 {
		t.Fatalf("approve: exit %d: %s", code, errb)
	}
	if !strings.Contains(out.String(), "Approve experiment lr as") || !strings.Contains(out.String(), ", interactive\n") {
		t.Errorf("unexpected output:\n%s", out)
	}
}

// TestColor: colour only on a terminal without NO_COLOR.
func TestColor(t *testing.T) {
	dir := initFixture(t)
	env, out, _ := testEnv(t, dir, "", true)
	env.Getenv = func(string) string { return "" }
	Main([]string{"contract", "status"}, env)
	if !strings.Contains(out.String(), "\x1b[") {
		t.Errorf("no colour on a terminal:\n%q", out)
	}
	if !strings.Contains(out.String(), "SECTION") {
		t.Errorf("no table header on a terminal:\n%s", out)
	}
	env, out, _ = testEnv(t, dir, "", true)
	Main([]string{"contract", "status"}, env)
	if strings.Contains(out.String(), "\x1b[") {
		t.Errorf("colour despite NO_COLOR:\n%q", out)
	}
}

// TestDeps: the binary is static and does not link cobra.
func TestDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-deps", "github.com/rlxp/rlxp/cmd/rlxp")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, bad := range []string{"github.com/spf13/cobra", "runtime/cgo"} {
		if strings.Contains(string(out), bad+"\n") {
			t.Errorf("rlxp depends on %s", bad)
		}
	}
}

// ^C at a prompt exits 130 with the one line that says nothing was written.
func TestReportInterrupted(t *testing.T) {
	var stderr bytes.Buffer
	env := &Env{Stderr: &stderr}
	if code := report(env, nil, fmt.Errorf("approve: %w", prompt.ErrInterrupted)); code != ExitInterrupted {
		t.Errorf("exit code %d, want %d", code, ExitInterrupted)
	}
	if got := stderr.String(); got != "rlxp: approve: interrupted at the prompt; nothing was written\n" {
		t.Errorf("stderr = %q", got)
	}
}
