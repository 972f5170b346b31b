package launch

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runs"
)

// TestMain lets the test binary be the supervisor and the shepherds, as
// the rlxp binary is: StartLocal runs it as "rlxp supervise [--run]".
func TestMain(m *testing.M) {
	if len(os.Args) >= 2 && os.Args[0] == "rlxp" && os.Args[1] == "supervise" {
		var err error
		if len(os.Args) == 3 && os.Args[2] == "--run" {
			err = Shepherd(os.Stdin, os.Stdout, time.Now)
		} else {
			signal.Ignore(syscall.SIGHUP)
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
			err = Supervise(ctx, os.Stdin, os.Stdout, os.Stderr, time.Now, nil)
			stop()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// escaper is a trainer that ignores TERM and leaves two processes that
// also ignore it: one in a new session, one orphaned by a double fork. It
// writes their pids once both are running.
const escaper = `trap '' TERM
setsid bash -c 'trap "" TERM; echo $$ > session.pid.tmp; mv session.pid.tmp session.pid; exec sleep 120' &
( bash -c 'trap "" TERM; echo $$ > orphan.pid.tmp; mv orphan.pid.tmp orphan.pid; exec sleep 120' & )
sleep 120`

// startEscaper launches the escaper under a real supervisor in a fresh
// repository and returns it with the run's record directory.
func startEscaper(t *testing.T, wall, grace string) (runsDir, id string, pids []int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	runsDir = filepath.Join(root, ".rlxp", "runs")
	p := &Plan{Experiment: "esc", Backend: runs.Local, Root: root, WallClock: contract.Duration(wall), Grace: contract.Duration(grace),
		Nodes: 1, Concurrency: 1, Runs: []Run{{Seed: 0, RunDir: "runs/esc/seed0", Command: escaper}}}
	// The id is the run's tag in its processes' environment: unique, so
	// that a sweep finds this test's processes and no other's.
	ids := []string{fmt.Sprintf("r%d-%d", os.Getpid(), time.Now().UnixNano())}
	for _, rec := range p.Records(ids, time.Now()) {
		if err := runs.Write(runsDir, rec); err != nil {
			t.Fatal(err)
		}
	}
	id = ids[0]
	started, err := StartLocal(exe, []string{"rlxp", "supervise"}, Job{Plan: p, IDs: ids, RunsDir: runsDir})
	if err != nil || len(started) != 1 {
		t.Fatalf("StartLocal = %v, %v", started, err)
	}
	for _, name := range []string{"session.pid", "orphan.pid"} {
		pids = append(pids, waitPID(t, filepath.Join(root, name)))
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return runsDir, id, pids
}

// waitPID waits for the file a process writes with its pid.
func waitPID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, err := os.ReadFile(path)
		if err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitEnd waits up to limit for the run's record to have an end.
func waitEnd(t *testing.T, runsDir, id string, limit time.Duration) runs.Record {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		rec, err := runs.Read(runs.Path(runsDir, id))
		if err != nil {
			t.Fatal(err)
		}
		if rec.Ended() {
			return rec
		}
		if time.Now().After(deadline) {
			t.Fatalf("no end recorded within %s: %+v", limit, rec)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// running says whether pid is a live process (not gone, not a zombie).
func running(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z"
}

func TestEscapersStoppedAtAllowance(t *testing.T) {
	runsDir, id, pids := startEscaper(t, "1s", "1s")
	rec := waitEnd(t, runsDir, id, 30*time.Second)
	if rec.StoppedBy != runs.StoppedBudget || !strings.HasSuffix(rec.Note, "then KILL after 1s") {
		t.Errorf("record: stopped by %q, note %q", rec.StoppedBy, rec.Note)
	}
	for _, pid := range pids {
		if running(pid) {
			t.Errorf("pid %d escaped the allowance", pid)
		}
	}
	start, _ := time.Parse(time.RFC3339, rec.StartedAt)
	end, _ := time.Parse(time.RFC3339, rec.EndedAt)
	if d := end.Sub(start); d < time.Second {
		t.Errorf("charged %s for a run stopped at a 1s allowance and killed after 1s more", d)
	}
}

func TestSupervisorKilled(t *testing.T) {
	runsDir, id, pids := startEscaper(t, "1h", "30s")
	rec, err := runs.Read(runs.Path(runsDir, id))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(rec.Supervisor, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	rec = waitEnd(t, runsDir, id, 2*time.Second)
	for _, pid := range append(pids, rec.PID) {
		for running(pid) {
			if time.Since(killed) > 2*time.Second {
				t.Fatalf("pid %d outlived its supervisor by 2s", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	if rec.StoppedBy != runs.StoppedWatchdog || !strings.Contains(rec.Note, "died") {
		t.Errorf("record: stopped by %q, note %q", rec.StoppedBy, rec.Note)
	}
}

func TestShepherdKilled(t *testing.T) {
	runsDir, id, pids := startEscaper(t, "1h", "30s")
	rec, err := runs.Read(runs.Path(runsDir, id))
	if err != nil {
		t.Fatal(err)
	}
	shepherd := ppid(t, rec.PID)
	if err := syscall.Kill(shepherd, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	rec = waitEnd(t, runsDir, id, 10*time.Second)
	for _, pid := range pids {
		if running(pid) {
			t.Errorf("pid %d outlived its shepherd", pid)
		}
	}
	if rec.StoppedBy != runs.StoppedWatchdog || !strings.Contains(rec.Note, fmt.Sprintf("its shepherd (pid %d) was killed", shepherd)) {
		t.Errorf("record: stopped by %q, note %q", rec.StoppedBy, rec.Note)
	}
	// The supervisor is done once its only run has ended.
	for running(rec.Supervisor) {
		time.Sleep(20 * time.Millisecond)
	}
}

func ppid(t *testing.T, pid int) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	n, err := strconv.Atoi(fields[1])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSweepAfterSupervisionKilled(t *testing.T) {
	runsDir, id, pids := startEscaper(t, "1h", "30s")
	rec, err := runs.Read(runs.Path(runsDir, id))
	if err != nil {
		t.Fatal(err)
	}
	shepherd := ppid(t, rec.PID)
	// Both at once: nothing of rlxp is left to stop the run.
	syscall.Kill(rec.Supervisor, syscall.SIGKILL)
	syscall.Kill(shepherd, syscall.SIGKILL)
	for running(rec.Supervisor) || running(shepherd) || running(rec.PID) {
		time.Sleep(20 * time.Millisecond)
	}
	for _, pid := range pids {
		if !running(pid) {
			t.Fatalf("escaper %d died with its supervision: nothing left to sweep", pid)
		}
	}
	recs := []runs.Record{rec}
	if err := Sweep(context.Background(), diagnose.NewLives(probe.System(), nil), runsDir, recs, time.Now()); err != nil {
		t.Fatal(err)
	}
	swept := waitEnd(t, runsDir, id, time.Second)
	if swept.StoppedBy != runs.StoppedWatchdog || !strings.Contains(swept.Note, "sent KILL to the 2 processes still running") {
		t.Errorf("swept record: stopped by %q, note %q", swept.StoppedBy, swept.Note)
	}
	deadline := time.Now().Add(2 * time.Second)
	for _, pid := range pids {
		for running(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("escaper %d survived the sweep", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
