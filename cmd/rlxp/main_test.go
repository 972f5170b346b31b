package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/cli"
	"github.com/rlxp/rlxp/internal/repotest"
)

var update = flag.Bool("update", false, "rewrite the scripts' expected output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"rlxp": func() {
			env := cli.SystemEnv("test")
			env.Procs = below(os.Getenv(ancestryTop))
			os.Exit(cli.Main(os.Args[1:], env))
		},
	})
}

// ancestryTop names the process that stands for the world above the
// scripts (the test binary, or the demo script): only processes below it
// count for the approval check, and the environment it passed down is the
// world's, not theirs. This seam exists in the test binary alone, so that
// the scripts pass also when they run inside an agent host; the rlxp
// binary reads no such variable.
const ancestryTop = "RLXP_TEST_ANCESTRY_TOP"

// below returns the process table seen from under the process top: the
// real /proc, ending above top, without the variables top's environment
// holds with the same values.
func below(top string) approval.ProcessTable {
	pid, err := strconv.Atoi(top)
	if err != nil || pid <= 1 {
		fmt.Fprintf(os.Stderr, "rlxp test binary: %s=%q: want the pid of the process the scripts run under\n", ancestryTop, top)
		os.Exit(2)
	}
	t := approval.System()
	outside := map[string]bool{}
	if p, err := t.Process(pid); err == nil {
		for _, kv := range p.Env {
			outside[kv] = true
		}
	}
	return belowTable{t, pid, outside}
}

type belowTable struct {
	approval.ProcessTable
	top     int
	outside map[string]bool
}

func (b belowTable) Process(pid int) (approval.Process, error) {
	if pid == b.top {
		return approval.Process{}, fs.ErrNotExist
	}
	p, err := b.ProcessTable.Process(pid)
	var env []string
	for _, kv := range p.Env {
		if !b.outside[kv] {
			env = append(env, kv)
		}
	}
	p.Env = env
	return p, err
}

func TestScript(t *testing.T) {
	fixtures, err := filepath.Abs("testdata/fixtures")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			env.Setenv(ancestryTop, strconv.Itoa(os.Getpid()))
			env.Setenv("USER", "tester")
			env.Setenv("FIXTURES", fixtures)
			env.Setenv("REPO", repo)
			// The Slurm client commands find the controller through it.
			env.Setenv("SLURM_CONF", os.Getenv("SLURM_CONF"))
			// The browser scripts: playwright-core's directory, and where
			// their screenshots go.
			env.Setenv("PLAYWRIGHT", os.Getenv("RLXP_PLAYWRIGHT"))
			env.Setenv("ARTIFACTS", artifacts())
			return nil
		},
		Condition: condition,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"readonly": readonly,
			"code":     repotest.ExitCode,
			"holdlock": holdlock,
			"waitruns": waitRuns,
			"setenv":   setFromStdout,
			"spawn":    spawnRun,
			"backdate": backdate,
			"freeport": freePort,
			"waitfile": waitFile,
		},
	})
}

// readonly makes a directory unwritable, even for root (which ignores
// permission bits), by also setting the immutable attribute.
func readonly(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: readonly DIR")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.Chmod(dir, 0o555))
	ts.Defer(func() { os.Chmod(dir, 0o755) })
	if os.Geteuid() != 0 {
		return
	}
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		ts.Fatalf("chattr +i %s: %v: %s", dir, err, out)
	}
	ts.Defer(func() {
		if out, err := exec.Command("chattr", "-i", dir).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "chattr -i %s: %v: %s\n", dir, err, out)
		}
	})
}

// holdlock takes the flock(2) lock on a file for the rest of the script, as
// another rlxp process would.
func holdlock(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: holdlock FILE")
	}
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_RDWR|os.O_CREATE, 0o644)
	ts.Check(err)
	ts.Check(syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	fmt.Fprintf(f, "pid %d: holdlock\n", os.Getpid())
	ts.Defer(func() { f.Close() })
}

// waitRuns waits until every run record under .rlxp/runs has an end time,
// as a supervisor writes it: waitruns [SECONDS].
func waitRuns(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		ts.Fatalf("usage: waitruns [SECONDS]")
	}
	limit := 60
	if len(args) == 1 {
		n, err := strconv.Atoi(args[0])
		ts.Check(err)
		limit = n
	}
	deadline := time.Now().Add(time.Duration(limit) * time.Second)
	for {
		paths, err := filepath.Glob(ts.MkAbs(".rlxp/runs/*/run.json"))
		ts.Check(err)
		open := 0
		for _, p := range paths {
			var rec struct {
				EndedAt string `json:"ended_at"`
			}
			data, err := os.ReadFile(p)
			ts.Check(err)
			ts.Check(json.Unmarshal(data, &rec))
			if rec.EndedAt == "" {
				open++
			}
		}
		if open == 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitruns: %d runs still without an end after %ds", open, limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitFile waits until a process the script started has written FILE (not
// empty): waitfile FILE [SECONDS]. The process writes it once it is ready,
// so the script waits on its own process, never on the machine's.
func waitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfile FILE [SECONDS]")
	}
	limit := 60
	if len(args) == 2 {
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		limit = n
	}
	path := ts.MkAbs(args[0])
	deadline := time.Now().Add(time.Duration(limit) * time.Second)
	for {
		if st, err := os.Stat(path); err == nil && st.Size() > 0 {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfile: %s not written after %ds", args[0], limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// setFromStdout sets an environment variable to the first submatch of a
// regular expression in the last command's stdout: setenv NAME REGEXP.
func setFromStdout(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: setenv NAME REGEXP")
	}
	m := regexp.MustCompile(args[1]).FindStringSubmatch(ts.ReadFile("stdout"))
	if len(m) < 2 {
		ts.Fatalf("setenv: no match for %s in stdout", args[1])
	}
	ts.Setenv(args[0], m[1])
}

// condition is [root] (this test runs as root, so it can act as another
// user) and [slurm]: a Slurm controller answers (SLURM_CONF names its
// config). Under CI=true a missing controller fails the script rather than
// skipping it: .ci/run starts one.
func condition(cond string) (bool, error) {
	switch cond {
	case "root":
		return os.Geteuid() == 0, nil
	case "browser":
		return browserReady()
	case "samples":
		return samplesReady()
	case "slurm":
	default:
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	err := exec.Command("sinfo", "-h").Run()
	if err != nil && os.Getenv("CI") == "true" {
		return false, fmt.Errorf("CI=true but no Slurm controller answers (SLURM_CONF=%q): %v", os.Getenv("SLURM_CONF"), err)
	}
	return err == nil, nil
}

// samplesReady is [samples]: the real metric files of ../shared beside the
// repository, which the scripts read in place. Under CI=true their absence
// fails the script.
func samplesReady() (bool, error) {
	_, err := os.Stat(filepath.Join("..", "..", "..", "shared", "metrics-samples", "README.md"))
	if err != nil && os.Getenv("CI") == "true" {
		return false, fmt.Errorf("CI=true but the metric samples are absent: %v", err)
	}
	return err == nil, nil
}

// browserReady is [browser]: Debian's chromium and playwright-core
// (RLXP_PLAYWRIGHT names its directory) are installed. Under CI=true their
// absence fails the script.
func browserReady() (bool, error) {
	_, err := exec.LookPath("chromium")
	if err == nil {
		_, err = os.Stat(filepath.Join(os.Getenv("RLXP_PLAYWRIGHT"), "package.json"))
	}
	if err != nil && os.Getenv("CI") == "true" {
		return false, fmt.Errorf("CI=true but the browser tests cannot run (chromium on PATH, playwright-core in RLXP_PLAYWRIGHT=%q): %v", os.Getenv("RLXP_PLAYWRIGHT"), err)
	}
	return err == nil, nil
}

// artifacts is where browser scripts leave screenshots: RLXP_ARTIFACTS, or
// a directory under the system's temporary one that outlives the test.
func artifacts() string {
	if d := os.Getenv("RLXP_ARTIFACTS"); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "rlxp-artifacts")
}
