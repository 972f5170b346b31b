//go:build unix

package preflight

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func requireBash(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not on PATH")
	}
}

// cartpoleDir is the example repository whose runner implements the
// preflight format.
func cartpoleDir(t *testing.T) string {
	t.Helper()
	requireBash(t)
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 not on PATH")
		}
		t.Skip("python3 not on PATH")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "cartpole"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func runCartpole(t *testing.T, args string) (Outcome, Verdict) {
	t.Helper()
	dir := cartpoleDir(t)
	cmd := fmt.Sprintf("bash scripts/run.sh train %s --seed 0 --out %s --preflight-only", args, t.TempDir())
	env := append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	o, err := Run(context.Background(), dir, cmd, env, time.Minute)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return o, o.Verdict()
}

func TestRunCartpole(t *testing.T) {
	t.Run("good config passes", func(t *testing.T) {
		t.Parallel()
		o, v := runCartpole(t, "configs/baseline.json")
		if o.ExitCode != 0 || v.Blocked || o.Result.Count(Fatal) != 0 || o.Result.Count(OK) == 0 {
			t.Fatalf("exit %d, verdict %+v, output:\n%s", o.ExitCode, v, o.Output)
		}
		if s := o.Result.Summary; s == nil || !s.Passed {
			t.Errorf("summary = %+v, want a passing one", s)
		}
		if len(o.Result.Other) != 0 {
			t.Errorf("unclassified lines: %q", o.Result.Other)
		}
	})
	t.Run("lr=0 is FATAL", func(t *testing.T) {
		t.Parallel()
		o, v := runCartpole(t, "configs/baseline.json --set lr=0")
		want := Verdict{Blocked: true, Blockers: []string{"lr=0 → the policy never changes"}}
		if diff := cmp.Diff(want, v, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("verdict mismatch (-want +got):\n%s\noutput:\n%s", diff, o.Output)
		}
		if o.ExitCode != 1 {
			t.Errorf("exit %d, want 1", o.ExitCode)
		}
		// stderr's FATAL arrives between stdout's lines, not after them.
		if last := o.Result.Lines[len(o.Result.Lines)-1]; last.Level == Fatal {
			t.Errorf("FATAL line came last; stdout and stderr were not merged in order:\n%s", o.Output)
		}
	})
	t.Run("missing config", func(t *testing.T) {
		t.Parallel()
		_, v := runCartpole(t, "configs/no-such-config.json")
		want := Verdict{Blocked: true, Blockers: []string{"config not found: configs/no-such-config.json"}}
		if diff := cmp.Diff(want, v, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("verdict mismatch (-want +got):\n%s", diff)
		}
	})
	t.Run("runner dies before its preflight", func(t *testing.T) {
		t.Parallel()
		o, v := runCartpole(t, "configs/baseline.json --no-such-flag")
		if o.ExitCode != 2 || !v.Blocked || len(v.Blockers) != 1 ||
			!strings.HasPrefix(v.Blockers[0], "the runner died before its preflight (exit status 2): ") ||
			!strings.Contains(v.Blockers[0], "unrecognized arguments: --no-such-flag") {
			t.Errorf("exit %d, verdict %+v", o.ExitCode, v)
		}
	})
}

func TestRunMergesStreamsInOrder(t *testing.T) {
	requireBash(t)
	cmd := `echo "  ✓ OK     $FOO"; echo '  ✗ FATAL  b' >&2; echo '  ⊘ SKIP   c'; exit 3`
	o, err := Run(context.Background(), t.TempDir(), cmd, []string{"FOO=a", "PATH=" + os.Getenv("PATH")}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := []Line{{OK, "a", 1}, {Fatal, "b", 2}, {Skip, "c", 3}}
	if diff := cmp.Diff(want, o.Result.Lines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if o.ExitCode != 3 || o.TimedOut || o.Canceled || o.Truncated {
		t.Errorf("outcome = %+v", o)
	}
}

func TestRunSignal(t *testing.T) {
	requireBash(t)
	o, err := Run(context.Background(), t.TempDir(), `echo oops; kill -KILL $$`, nil, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	v := o.Verdict()
	want := []string{"the runner died before its preflight (signal: killed): oops"}
	if o.ExitCode != -1 || o.Signal != "killed" || !slices.Equal(v.Blockers, want) {
		t.Errorf("exit %d signal %q blockers %q", o.ExitCode, o.Signal, v.Blockers)
	}
}

// gone reports whether pid has exited: no such process, or a zombie
// nobody has reaped yet.
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if gone(pid) {
			return
		}
	}
	t.Errorf("pid %d still running", pid)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	var b []byte
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var err error
		if b, err = os.ReadFile(path); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			break
		}
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		t.Fatalf("pid file %s: %q", path, b)
	}
	return pid
}

func TestRunTimeoutKillsGroup(t *testing.T) {
	requireBash(t)
	dir := t.TempDir()
	start := time.Now()
	o, err := Run(context.Background(), dir, `echo $$ > leader; sleep 30 & echo $! > child; wait`, nil, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("Run took %v", elapsed)
	}
	if !o.TimedOut || o.ExitCode != -1 || o.Signal != "killed" {
		t.Errorf("outcome = %+v", o)
	}
	v := o.Verdict()
	if !v.Blocked || !slices.Equal(v.Blockers, []string{"preflight did not finish within 200ms"}) {
		t.Errorf("verdict = %+v", v)
	}
	waitGone(t, readPid(t, filepath.Join(dir, "leader")))
	waitGone(t, readPid(t, filepath.Join(dir, "child")))
}

func TestRunPlainSleepTimesOut(t *testing.T) {
	requireBash(t)
	start := time.Now()
	o, err := Run(context.Background(), t.TempDir(), "sleep 30", nil, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !o.TimedOut || time.Since(start) > 5*time.Second {
		t.Errorf("outcome = %+v after %v", o, time.Since(start))
	}
}

// A background grandchild inherits the output pipe; Run must not wait for it.
func TestRunBackgroundGrandchild(t *testing.T) {
	requireBash(t)
	dir := t.TempDir()
	start := time.Now()
	o, err := Run(context.Background(), dir, `(sleep 30 & echo $! > child); echo '  ✓ OK     started'`, nil, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("Run took %v", elapsed)
	}
	if o.TimedOut || o.ExitCode != 0 || !slices.Equal(o.Result.Messages(OK), []string{"started"}) {
		t.Errorf("outcome = %+v", o)
	}
	waitGone(t, readPid(t, filepath.Join(dir, "child")))
}

// A process that leaves the group cannot be killed with it; Run stops
// reading after a grace period instead.
func TestRunEscapedGrandchild(t *testing.T) {
	requireBash(t)
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid not on PATH")
	}
	dir := t.TempDir()
	start := time.Now()
	o, err := Run(context.Background(), dir,
		`setsid sh -c 'echo $$ > tmp; mv tmp escaped; exec sleep 30' &
		while [ ! -s escaped ]; do sleep 0.05; done
		echo '  ✓ OK     done'`, nil, time.Minute)
	pid := readPid(t, filepath.Join(dir, "escaped"))
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > drainGrace+4*time.Second {
		t.Errorf("Run took %v", elapsed)
	}
	if o.ExitCode != 0 || !slices.Equal(o.Result.Messages(OK), []string{"done"}) {
		t.Errorf("outcome = %+v", o)
	}
}

func TestRunCancel(t *testing.T) {
	requireBash(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	o, err := Run(ctx, t.TempDir(), "echo '  ✓ OK     a'; sleep 30", nil, 0)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want deadline exceeded", err)
	}
	if !o.Canceled || o.TimedOut {
		t.Errorf("outcome = %+v", o)
	}
	if v := o.Verdict(); !slices.Equal(v.Blockers, []string{"preflight was cancelled before it finished"}) {
		t.Errorf("verdict = %+v", v)
	}

	done, cancelDone := context.WithCancel(context.Background())
	cancelDone()
	if _, err := Run(done, t.TempDir(), "true", nil, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a done context: err = %v", err)
	}
}

func TestRunStartError(t *testing.T) {
	requireBash(t)
	_, err := Run(context.Background(), filepath.Join(t.TempDir(), "missing"), "true", nil, time.Second)
	if err == nil || !strings.Contains(err.Error(), "start") {
		t.Errorf("err = %v, want a start error", err)
	}
}

func TestRunOutputCap(t *testing.T) {
	requireBash(t)
	const filler = 5_000_000
	first, last := "  ✗ FATAL  first\n", "\n  ✗ FATAL  last\n"
	cmd := fmt.Sprintf(`printf '%s'; yes 'filler line of output' | head -c %d; printf '%s'; exit 1`,
		strings.TrimSuffix(first, "\n")+`\n`, filler, `\n`+strings.TrimPrefix(last, "\n"))
	o, err := Run(context.Background(), t.TempDir(), cmd, nil, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(len(first) + filler + len(last)); o.OutputBytes != want || !o.Truncated {
		t.Errorf("OutputBytes %d truncated %v, want %d true", o.OutputBytes, o.Truncated, want)
	}
	if len(o.Output) > MaxOutput+64 {
		t.Errorf("kept %d bytes, cap %d", len(o.Output), MaxOutput)
	}
	if !bytes.HasPrefix(o.Output, []byte(first)) || !bytes.HasSuffix(o.Output, []byte(last)) {
		t.Error("head or tail not kept")
	}
	if !bytes.Contains(o.Output, []byte(" bytes omitted …] ")) {
		t.Error("no omission marker")
	}
	v := o.Verdict()
	if !slices.Equal(v.Blockers, []string{"first", "last"}) || len(v.Warnings) != 1 ||
		!strings.Contains(v.Warnings[0], "only the first and last") {
		t.Errorf("verdict = %+v", v)
	}
}

func TestCapBuffer(t *testing.T) {
	data := make([]byte, 1000)
	for i := range data {
		data[i] = byte('a' + i%26)
	}
	for _, limit := range []int{0, 1, 2, 16, 17, 999, 1000, 2000, 4096} {
		for _, chunk := range []int{1, 3, 7, 8, 64, 1000} {
			c := newCapBuffer(limit)
			for p := data; len(p) > 0; {
				n := min(chunk, len(p))
				c.write(p[:n])
				p = p[n:]
			}
			got, total, truncated := c.contents()
			half := limit / 2
			wantTrunc := len(data) > 2*half
			if total != int64(len(data)) || truncated != wantTrunc {
				t.Fatalf("limit %d chunk %d: total %d truncated %v", limit, chunk, total, truncated)
			}
			if !wantTrunc {
				if !bytes.Equal(got, data) {
					t.Fatalf("limit %d chunk %d: got %q", limit, chunk, got)
				}
				continue
			}
			marker := fmt.Sprintf("\n[… %d bytes omitted …] ", len(data)-2*half)
			want := string(data[:half]) + marker + string(data[len(data)-half:])
			if string(got) != want {
				t.Fatalf("limit %d chunk %d:\n got %q\nwant %q", limit, chunk, got, want)
			}
		}
	}
}
