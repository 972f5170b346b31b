package diagnose

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runs"
)

// fakeProc is a /proc holding the given files; everything else a Host
// offers is refused.
type fakeProc map[string]string

func (f fakeProc) ReadFile(p string) ([]byte, error) {
	if s, ok := f[p]; ok {
		if s == "EACCES" {
			return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrPermission}
		}
		return []byte(s), nil
	}
	return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
}

func (fakeProc) Run(context.Context, string, ...string) ([]byte, []byte, error) {
	return nil, nil, errors.New("no commands here")
}
func (fakeProc) ReadDir(string) ([]fs.DirEntry, error) { return nil, errors.New("no listing") }
func (fakeProc) Readlink(string) (string, error)       { return "", errors.New("no links") }
func (fakeProc) Statfs(string) (uint64, uint64, error) { return 0, 0, errors.New("no statfs") }
func (fakeProc) Listen(string, string) error           { return errors.New("no network") }
func (fakeProc) UID() int                              { return 1000 }
func (fakeProc) PID() int                              { return 1 }

// proc adds a process: its status (state letter) and its stat line with
// start time ticks.
func (f fakeProc) proc(pid int, name, state string, ticks uint64) fakeProc {
	f[fmt.Sprintf("/proc/%d/status", pid)] = fmt.Sprintf("Name:\t%s\nState:\t%s (x)\nPPid:\t1\nUid:\t1000\t1000\t1000\t1000\n", name, state)
	f[fmt.Sprintf("/proc/%d/stat", pid)] = fmt.Sprintf("%d (%s) %s 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %d 0 0\n", pid, name, state, ticks)
	return f
}

var _ probe.Host = fakeProc{}

func exit(n int) *int { return &n }

func TestCheckEnded(t *testing.T) {
	base := runs.Record{ID: "r1", Backend: runs.Local, PID: 10, Supervisor: 9, StartedAt: "2026-11-29T10:00:00Z", EndedAt: "2026-11-29T12:00:00Z"}
	for _, tc := range []struct {
		name string
		edit func(*runs.Record)
		want Liveness
	}{
		{"exit 0", func(r *runs.Record) { r.Exit = exit(0) }, Liveness{State: Finished, Detail: "exit 0", Known: true}},
		{"exit 1", func(r *runs.Record) { r.Exit = exit(1) }, Liveness{State: Failed, Detail: "exit 1", Known: true}},
		{"signal", func(r *runs.Record) { r.Signal = "killed" }, Liveness{State: Failed, Detail: "signal killed", Known: true}},
		{"budget", func(r *runs.Record) {
			r.Signal, r.StoppedBy, r.WallClock, r.Note = "terminated", runs.StoppedBudget, "2h0m0s", "wall-clock allowance 2h0m0s spent: sent TERM to process group 10"
		}, Liveness{State: Stopped, Detail: "at its wall-clock allowance of 2h0m0s", Known: true,
			Evidence: []string{"run.json records its end at 2026-11-29T12:00:00Z", "run.json notes: wall-clock allowance 2h0m0s spent: sent TERM to process group 10"}}},
		{"user", func(r *runs.Record) { r.StoppedBy = "user" }, Liveness{State: Stopped, Detail: "by user", Known: true}},
		{"no status", func(r *runs.Record) {}, Liveness{State: Unknown, Detail: "ended without an exit status recorded", Known: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := base
			tc.edit(&rec)
			if tc.want.Evidence == nil {
				tc.want.Evidence = []string{"run.json records its end at 2026-11-29T12:00:00Z"}
			}
			// The record's end is final: /proc is not consulted.
			if d := cmp.Diff(tc.want, Check(context.Background(), fakeProc{}.proc(10, "python3", "R", 5), nil, rec)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestCheckLocal(t *testing.T) {
	rec := runs.Record{ID: "r1", Backend: runs.Local, PID: 10, Supervisor: 9, StartTicks: 500, StartedAt: "2026-11-29T10:00:00Z"}
	for _, tc := range []struct {
		name string
		host fakeProc
		edit func(*runs.Record)
		want Liveness
	}{
		{"running", fakeProc{}.proc(10, "python3", "R", 500).proc(9, "rlxp", "S", 499), nil,
			Liveness{State: Running, Alive: true, Known: true, Evidence: []string{
				"process group leader pid 10 is alive (its start time matches run.json)", "supervisor pid 9 is alive (no start time recorded, so a reused pid is not ruled out)"}}},
		{"pid reused", fakeProc{}.proc(10, "nginx", "S", 90000), nil,
			Liveness{State: Lost, Detail: "no end recorded and nothing of it is alive", Known: true, Evidence: []string{"run.json records no end",
				"process group leader pid 10 is now another process (nginx, started at tick 90000, not 500): the pid was reused", "supervisor pid 9 is not running"}}},
		{"zombie", fakeProc{}.proc(10, "python3", "Z", 500), nil,
			Liveness{State: Lost, Detail: "no end recorded and nothing of it is alive", Known: true, Evidence: []string{"run.json records no end",
				"process group leader pid 10 has exited (a zombie)", "supervisor pid 9 is not running"}}},
		{"ending", fakeProc{}.proc(9, "rlxp", "S", 499), nil,
			Liveness{State: Running, Detail: "ending: its supervisor has not recorded the end yet", Alive: true, Known: true, Evidence: []string{
				"process group leader pid 10 is not running", "supervisor pid 9 is alive (no start time recorded, so a reused pid is not ruled out)"}}},
		{"queued under its supervisor", fakeProc{}.proc(9, "rlxp", "S", 499), func(r *runs.Record) { r.PID, r.StartTicks = 0, 0 },
			Liveness{State: Pending, Detail: "queued", Known: true, Evidence: []string{
				"supervisor pid 9 is alive (no start time recorded, so a reused pid is not ruled out)"}}},
		{"no start time", fakeProc{}.proc(10, "python3", "S", 123), func(r *runs.Record) { r.StartTicks, r.Supervisor = 0, 0 },
			Liveness{State: Running, Alive: true, Known: true, Evidence: []string{"process group leader pid 10 is alive (no start time recorded, so a reused pid is not ruled out)"}}},
		{"unreadable", fakeProc{"/proc/10/status": "EACCES"}, nil,
			Liveness{State: Unknown, Detail: "the process table could not be read", Evidence: []string{
				"process group leader pid 10: read /proc/10/status: open /proc/10/status: permission denied", "supervisor pid 9 is not running"}}},
		{"queued", fakeProc{}, func(r *runs.Record) { r.PID, r.Supervisor = 0, 0 },
			Liveness{State: Pending, Detail: "queued", Known: true, Evidence: []string{"run.json records no end and no process yet: its supervisor has not started it"}}},
		{"hand-written", fakeProc{}, func(r *runs.Record) { r.PID, r.Supervisor, r.Backend = 0, 0, "" },
			Liveness{State: Unknown, Detail: "no process or job recorded", Evidence: []string{"run.json records no end, no pid and no job id"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rec
			if tc.edit != nil {
				tc.edit(&r)
			}
			if d := cmp.Diff(tc.want, Check(context.Background(), tc.host, nil, r)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// fakeScheduler answers from a table of jobs.
type fakeScheduler map[string]Job

func (f fakeScheduler) Job(_ context.Context, id string) (Job, error) {
	if id == "broken" {
		return Job{}, errors.New("squeue: slurm_load_jobs error: Unable to contact slurm controller")
	}
	j, ok := f[id]
	if !ok {
		return Job{}, fmt.Errorf("job %s: %w", id, ErrNoJob)
	}
	return j, nil
}

func TestCheckSlurm(t *testing.T) {
	sched := fakeScheduler{
		"11": {ID: "11", State: "RUNNING", Node: "gpu-a01"},
		"12": {ID: "12", State: "PENDING", Reason: "Resources"},
		"13": {ID: "13", State: "COMPLETED", Node: "gpu-a01", Reason: "None"},
		"14": {ID: "14", State: "COMPLETED", ExitCode: 2},
		"15": {ID: "15", State: "TIMEOUT", Node: "gpu-a02"},
		"16": {ID: "16", State: "CANCELLED by 1000"},
		"17": {ID: "17", State: "OUT_OF_MEMORY", ExitCode: 137, Reason: "OutOfMemory"},
		"18": {ID: "18", State: "FAILED+", ExitCode: 1, Reason: "NonZeroExitCode"},
		"19": {ID: "19", State: "WEIRD"},
	}
	for _, tc := range []struct {
		job   string
		sched Scheduler
		want  Liveness
	}{
		{"11", sched, Liveness{State: Running, Alive: true, Known: true, Evidence: []string{"Slurm job 11 is RUNNING on gpu-a01"}}},
		{"12", sched, Liveness{State: Pending, Detail: "pending", Known: true, Evidence: []string{"Slurm job 12 is PENDING (Resources)"}}},
		{"13", sched, Liveness{State: Finished, Detail: "exit 0", Known: true, Evidence: []string{"Slurm job 13 is COMPLETED on gpu-a01"}}},
		{"14", sched, Liveness{State: Failed, Detail: "exit 2", Known: true, Evidence: []string{"Slurm job 14 is COMPLETED"}}},
		{"15", sched, Liveness{State: Stopped, Detail: "at its wall-clock allowance", Known: true, Evidence: []string{"Slurm job 15 is TIMEOUT on gpu-a02"}}},
		{"16", sched, Liveness{State: Stopped, Detail: "cancelled", Known: true, Evidence: []string{"Slurm job 16 is CANCELLED by 1000"}}},
		{"17", sched, Liveness{State: Failed, Detail: "out_of_memory, exit 137", Known: true, Evidence: []string{"Slurm job 17 is OUT_OF_MEMORY (OutOfMemory)"}}},
		{"18", sched, Liveness{State: Failed, Detail: "failed, exit 1", Known: true, Evidence: []string{"Slurm job 18 is FAILED+ (NonZeroExitCode)"}}},
		{"19", sched, Liveness{State: Unknown, Detail: "scheduler state WEIRD", Evidence: []string{"Slurm job 19 is WEIRD"}}},
		{"404", sched, Liveness{State: Lost, Detail: "no end recorded and the scheduler has no such job", Known: true,
			Evidence: []string{"run.json records no end", "the scheduler does not know job 404"}}},
		{"broken", sched, Liveness{State: Unknown, Detail: "the scheduler did not answer",
			Evidence: []string{"Slurm job broken: squeue: slurm_load_jobs error: Unable to contact slurm controller"}}},
		{"11", nil, Liveness{State: Unknown, Detail: "scheduler not queried", Evidence: []string{"Slurm job 11: the scheduler was not asked"}}},
		{"", sched, Liveness{State: Unknown, Detail: "no job id recorded", Evidence: []string{"run.json records no end and no job id"}}},
	} {
		t.Run(tc.job, func(t *testing.T) {
			rec := runs.Record{ID: "r", Backend: runs.Slurm, JobID: tc.job, StartedAt: "2026-11-29T10:00:00Z"}
			if d := cmp.Diff(tc.want, Check(context.Background(), fakeProc{}, tc.sched, rec)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestCheckSelf: this test process, with its real start time, is alive;
// with another start time it is a reused pid.
func TestCheckSelf(t *testing.T) {
	h := probe.System()
	ticks, err := probe.StartTicks(h, os.Getpid())
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	rec := runs.Record{ID: "r", Backend: runs.Local, PID: os.Getpid(), StartTicks: ticks}
	if l := Check(context.Background(), h, nil, rec); l.State != Running {
		t.Errorf("self: %+v", l)
	}
	rec.StartTicks++
	if l := Check(context.Background(), h, nil, rec); l.State != Lost {
		t.Errorf("self, other start: %+v", l)
	}
}

func TestProgress(t *testing.T) {
	point := func(s *Source, step int64, wall float64) {
		t.Helper()
		if err := s.Point("critic/rewards/mean", metrics.Point{Step: step, WallTime: wall, Value: 0.5}); err != nil {
			t.Fatal(err)
		}
	}
	// verl console lines: no wall times; steps 1..60 in an hour.
	log := NewSource("run.log", Rules())
	for i := int64(1); i <= 60; i++ {
		point(log, i, 0)
		point(log, i, 0) // several keys per step
	}
	got, ok := log.Progress(time.Hour)
	if want := (Progress{Source: "run.log", LastStep: 60, PerMin: 1, Basis: BasisElapsed}); !ok || got != want {
		t.Errorf("log = %+v, %v; want %+v", got, ok, want)
	}
	// A val-only step 0 before training adds nothing; a run resumed at
	// step 101 counts from there.
	resumed := NewSource("run.log", Rules())
	point(resumed, 0, 0)
	for i := int64(1); i <= 30; i++ {
		point(resumed, i, 0)
	}
	if got, _ := resumed.Progress(30 * time.Minute); got.PerMin != 1 {
		t.Errorf("from step 0: %+v", got)
	}
	resumed = NewSource("run.log", Rules())
	for i := int64(101); i <= 130; i++ {
		point(resumed, i, 0)
	}
	if got, _ := resumed.Progress(30 * time.Minute); got.PerMin != 1 || got.LastStep != 130 {
		t.Errorf("resumed: %+v", got)
	}
	// SB3 dumps every 2048 timesteps, 30 s apart: the rate uses the last
	// twenty-one steps' wall times.
	csv := NewSource("progress.csv", Rules())
	for i := int64(1); i <= 40; i++ {
		w := 1.7e9 + 30*float64(i)
		if i > 30 {
			w += 30 * float64(i-30) // slower lately
		}
		point(csv, 2048*i, w)
	}
	got, _ = csv.Progress(time.Hour)
	if d := cmp.Diff(Progress{Source: "progress.csv", LastStep: 81920, PerMin: 2048 * 20 / 900.0 * 60, Basis: BasisWall}, got, cmpopts.EquateApprox(1e-12, 0)); d != "" {
		t.Errorf("csv (-want +got):\n%s", d)
	}
	empty := NewSource("eval.jsonl", Rules())
	if _, ok := empty.Progress(time.Hour); ok {
		t.Error("empty source has progress")
	}
	if PickProgress(log, []*Source{csv}) != log || PickProgress(empty, []*Source{empty, csv}) != csv || PickProgress(nil, []*Source{empty}) != nil {
		t.Error("PickProgress chose the wrong source")
	}
}

func TestTail(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	long := make([]byte, 40<<10)
	for i := range long {
		long[i] = 'x'
	}
	text := string(long) + "\nTraceback (most recent call last):\n\n  File \"train.py\", line 3\r\n\x1b[31mRuntimeError: CUDA error: out of memory\x1b[0m\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Tail(path, 2)
	if d := cmp.Diff([]string{`File "train.py", line 3`, "RuntimeError: CUDA error: out of memory"}, got); err != nil || d != "" {
		t.Errorf("Tail: %v (-want +got):\n%s", err, d)
	}
	got, _ = Tail(path, 10)
	if len(got) != 3 || got[0] != "Traceback (most recent call last):" {
		t.Errorf("Tail 10 = %q", got)
	}
	if _, err := Tail(filepath.Join(dir, "none"), 3); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func FuzzEvaluate(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 255, 254, 7, 7, 7, 7, 7, 7, 9, 9, 9, 9, 0, 0, 0, 0, 0})
	f.Add([]byte("val-core/x acc 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Every byte is a point: which tag (of the rules' own), which
		// step, and a value, some of them NaN or infinite.
		var tags []string
		for _, r := range Rules() {
			for _, n := range r.Needs {
				for _, tg := range n.Tags {
					tags = append(tags, tg.Name)
				}
			}
		}
		s := NewSource("run.log", Rules())
		specials := []float64{0, -1, 1e-6, math.NaN(), math.Inf(1)}
		for i, b := range data {
			v := float64(b)/16 - 4
			if int(b)%11 < len(specials) {
				v = specials[int(b)%11]
			}
			tag := tags[int(b)%len(tags)]
			if tag == "val-core/*" {
				tag = "val-core/x/acc/mean@1"
			}
			if err := s.Point(tag, metrics.Point{Step: int64(i / 3), Value: v}); err != nil {
				t.Fatal(err)
			}
		}
		for _, r := range Evaluate(Rules(), Input{Sources: []*Source{s}, Facts: alive(time.Duration(len(data)) * time.Minute)}) {
			if r.Outcome == Matched && len(r.Evidence) == 0 {
				t.Errorf("%s matched without evidence", r.ID)
			}
			if r.Outcome != Matched && r.Reason == "" {
				t.Errorf("%s %s without a reason", r.ID, r.Outcome)
			}
		}
	})
}

// TestProgressUnderASecond: points whose wall times span under a second
// give no rate of their own; the run's elapsed time does.
func TestProgressUnderASecond(t *testing.T) {
	s := NewSource("m.jsonl", nil)
	for i := int64(0); i <= 1000; i++ {
		if err := s.Point("loss", metrics.Point{Step: i * 100, WallTime: 1700000000 + float64(i)/2000, Value: 1}); err != nil {
			t.Fatal(err)
		}
	}
	got, ok := s.Progress(2 * time.Minute)
	if !ok {
		t.Fatal("no progress")
	}
	want := Progress{Source: "m.jsonl", LastStep: 100000, PerMin: 100000 / 2.0, Basis: BasisElapsed}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(1e-12, 0)); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}
}
