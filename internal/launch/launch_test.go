package launch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/slurm"
	"github.com/rlxp/rlxp/internal/state"
)

func plan() *Plan {
	return &Plan{
		Experiment: "lr-0.05", ExperimentDigest: "sha256:e", ContractDigest: "sha256:c",
		Backend: runs.Local, Root: "/repo", WallClock: "2h", Grace: "30s",
		GPUsPerRun: 2, Nodes: 1, Concurrency: 2, GPUs: []string{"0", "1", "2", "3", "5"},
		Runs: []Run{
			{Seed: 0, RunDir: "runs/lr-0.05/seed0", Command: "python train.py --seed 0"},
			{Seed: 1, RunDir: "runs/lr-0.05/seed1", Command: "python train.py --seed 1"},
		},
	}
}

func TestDigest(t *testing.T) {
	p := plan()
	d := p.Digest()
	if d != plan().Digest() {
		t.Fatal("the same plan has two digests")
	}
	for name, edit := range map[string]func(*Plan){
		"command":      func(p *Plan) { p.Runs[1].Command += " --lr 0.1" },
		"seeds":        func(p *Plan) { p.Runs = p.Runs[:1] },
		"wall clock":   func(p *Plan) { p.WallClock = "3h" },
		"backend":      func(p *Plan) { p.Backend = runs.Slurm },
		"GPUs":         func(p *Plan) { p.GPUs = p.GPUs[1:] },
		"approval":     func(p *Plan) { p.ExperimentDigest = "sha256:f" },
		"contract":     func(p *Plan) { p.ContractDigest = "sha256:d" },
		"concurrency":  func(p *Plan) { p.Concurrency = 1 },
		"grace":        func(p *Plan) { p.Grace = "1m" },
		"run dir":      func(p *Plan) { p.Runs[0].RunDir = "elsewhere" },
		"repository":   func(p *Plan) { p.Root = "/other" },
		"nodes":        func(p *Plan) { p.Nodes = 2 },
		"gpus per run": func(p *Plan) { p.GPUsPerRun = 1 },
	} {
		q := plan()
		edit(q)
		if q.Digest() == d {
			t.Errorf("changing the %s leaves the digest as it was", name)
		}
	}
}

func TestConfirms(t *testing.T) {
	p := plan()
	short := p.Short()
	full := p.Digest()
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{short, true},
		{strings.ToUpper(short), true},
		{" " + short + "\n", true},
		{full, true},
		{strings.TrimPrefix(full, "sha256:")[:20], true},
		{short[:ShortDigest-1], false}, // too short to mean this plan
		{"", false},
		{"yes", false},
		{"000000000000", false},
	} {
		if got := p.Confirms(tc.s); got != tc.want {
			t.Errorf("Confirms(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

func TestRunID(t *testing.T) {
	at := time.Date(2026, 11, 29, 14, 3, 4, 0, time.FixedZone("x", 3600))
	if got, want := RunID("lr-0.05", 2, at), "20261129T130304Z-s2-lr-0.05"; got != want {
		t.Errorf("RunID = %q, want %q", got, want)
	}
	long := RunID(strings.Repeat("x", 64), 0, at)
	if len(long) != 64 {
		t.Errorf("RunID of a long experiment has %d characters, want 64", len(long))
	}
}

func TestGPUGroups(t *testing.T) {
	p := plan()
	if got, want := gpuGroups(p), [][]string{{"0", "1"}, {"2", "3"}}; !cmp.Equal(got, want) {
		t.Errorf("two runs of two GPUs over five: %v, want %v", got, want)
	}
	p.Concurrency = 5
	if got, want := gpuGroups(p), [][]string{{"0", "1"}, {"2", "3"}}; !cmp.Equal(got, want) {
		t.Errorf("concurrency beyond the GPUs: %v, want %v", got, want)
	}
	p.GPUs = nil
	if got := gpuGroups(p); len(got) != 5 || got[0] != nil {
		t.Errorf("no GPUs named: %v, want 5 slots seeing every device", got)
	}
}

func TestRecordsAndEnv(t *testing.T) {
	p := plan()
	now := time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)
	recs := p.Records([]string{"a", "b"}, now)
	seed := 1
	want := runs.Record{ID: "b", Experiment: "lr-0.05", Seed: &seed, RunDir: "runs/lr-0.05/seed1", GPUs: 2,
		Backend: runs.Local, Command: "python train.py --seed 1", Plan: p.Digest(), Log: ".rlxp/runs/b/log",
		WallClock: "2h0m0s", StartedAt: "2026-11-29T14:00:00Z"}
	if d := cmp.Diff(want, recs[1]); d != "" {
		t.Errorf("record (-want +got):\n%s", d)
	}
	env := p.Env("b", 1, []string{"2", "3"})
	wantEnv := []string{"RLXP_RUN_ID=b", "RLXP_EXPERIMENT=lr-0.05", "RLXP_SEED=1", "RLXP_RUN_DIR=runs/lr-0.05/seed1",
		"CUDA_DEVICE_ORDER=PCI_BUS_ID", "CUDA_VISIBLE_DEVICES=2,3", "NVIDIA_VISIBLE_DEVICES=2,3"}
	if d := cmp.Diff(wantEnv, env); d != "" {
		t.Errorf("env (-want +got):\n%s", d)
	}
	p.GPUsPerRun = 0
	if got := p.Env("b", 1, nil); !slices.Contains(got, "CUDA_VISIBLE_DEVICES=") || !slices.Contains(got, "NVIDIA_VISIBLE_DEVICES=void") {
		t.Errorf("env of a run given no GPU: %q, want every device hidden", got)
	}
	p.Nodes = 3
	if got := p.NodeCommands("head"); len(got) != 4 || got[0] != "cd /repo && NNODES=3 NODE_RANK=1 MASTER_ADDR=head python train.py --seed 0" {
		t.Errorf("node commands: %q", got)
	}
}

func TestBatchScript(t *testing.T) {
	p := plan()
	p.Backend, p.WallClock, p.Nodes = runs.Slurm, "1h30m59s", 2
	p.Slurm = &Slurm{Partition: "gpu", QOS: "normal"}
	p.Runs[0].Command = "python train.py --name 'it''s'"
	p.Approved = "sha256:ab"
	got := p.BatchScript("r0", 0, "/repo/.rlxp/runs", "/opt/rlxp bin/rlxp")
	want := `#!/bin/bash
#SBATCH --job-name=rlxp-r0
#SBATCH --output=/repo/.rlxp/runs/r0/log
#SBATCH --chdir=/repo
#SBATCH --time=1:30:59
#SBATCH --nodes=2
#SBATCH --gres=gpu:2
#SBATCH --partition=gpu
#SBATCH --qos=normal
export RLXP_RUN_ID=r0
export RLXP_EXPERIMENT=lr-0.05
export RLXP_SEED=0
export RLXP_RUN_DIR=runs/lr-0.05/seed0
export NNODES=2
export NODE_RANK=0
written=$('/opt/rlxp bin/rlxp' supervise --hold r0) || exit 3
echo '[rlxp] run r0: python train.py --name '\''it'\'''\''s'\'''
bash -c 'python train.py --name '\''it'\'''\''s'\'''
status=$?
'/opt/rlxp bin/rlxp' supervise --hold r0 --end --written "$written"
echo "[rlxp] run r0 ended: exit status $status"
exit $status
`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("batch script (-want +got):\n%s", d)
	}
}

func TestSlurmTime(t *testing.T) {
	for d, want := range map[time.Duration]string{
		90 * time.Second:                     "0:01:30",
		2 * time.Hour:                        "2:00:00",
		50*time.Hour + 1500*time.Millisecond: "50:00:01",
		200 * time.Millisecond:               "0:00:01",
	} {
		if got := slurmTime(d); got != want {
			t.Errorf("slurmTime(%s) = %s, want %s", d, got, want)
		}
	}
}

func TestApplyJob(t *testing.T) {
	start := time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)
	end := start.Add(time.Hour)
	rec := func() runs.Record {
		return runs.Record{ID: "r", Backend: runs.Slurm, JobID: "7", StartedAt: "2026-11-29T13:00:00Z"}
	}
	zero, three := 0, 3
	for _, tc := range []struct {
		name string
		job  slurm.Job
		want runs.Record
	}{
		{"pending: the estimate is not a start", slurm.Job{ID: "7", State: "PENDING", Start: start, End: end}, rec()},
		{"running", slurm.Job{ID: "7", State: "RUNNING", Start: start, End: end},
			runs.Record{ID: "r", Backend: runs.Slurm, JobID: "7", StartedAt: "2026-11-29T14:00:00Z"}},
		{"completed", slurm.Job{ID: "7", State: "COMPLETED", Start: start, End: end},
			runs.Record{ID: "r", Backend: runs.Slurm, JobID: "7", StartedAt: "2026-11-29T14:00:00Z", EndedAt: "2026-11-29T15:00:00Z", Exit: &zero}},
		{"failed", slurm.Job{ID: "7", State: "FAILED", Exit: 3, Start: start, End: end},
			runs.Record{ID: "r", Backend: runs.Slurm, JobID: "7", StartedAt: "2026-11-29T14:00:00Z", EndedAt: "2026-11-29T15:00:00Z", Exit: &three}},
		{"timeout", slurm.Job{ID: "7", State: "TIMEOUT", Signal: 9, Start: start, End: end, TimeLimit: "01:00:00"},
			runs.Record{ID: "r", Backend: runs.Slurm, JobID: "7", StartedAt: "2026-11-29T14:00:00Z", EndedAt: "2026-11-29T15:00:00Z",
				Signal: "signal 9", StoppedBy: runs.StoppedBudget, Note: "Slurm stopped job 7 at its time limit 01:00:00"}},
		{"cancelled while pending: no time used", slurm.Job{ID: "7", State: "CANCELLED", Start: start, End: start},
			runs.Record{ID: "r", Backend: runs.Slurm, JobID: "7", StartedAt: "2026-11-29T14:00:00Z", EndedAt: "2026-11-29T14:00:00Z",
				Exit: &zero, StoppedBy: "user", Note: "Slurm job 7 was cancelled"}},
	} {
		r := rec()
		ApplyJob(&r, tc.job)
		if d := cmp.Diff(tc.want, r); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

func TestSubmitSlurmRemovesUnsubmitted(t *testing.T) {
	dir := t.TempDir()
	p := plan()
	p.Backend, p.Concurrency = runs.Slurm, 1
	ids := []string{"r0", "r1"}
	for _, rec := range p.Records(ids, time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC)) {
		if err := runs.Write(dir, rec); err != nil {
			t.Fatal(err)
		}
	}
	calls := 0
	c := slurm.NewWith(func(_ context.Context, name string, args ...string) ([]byte, []byte, error) {
		if calls++; calls == 2 {
			return nil, []byte("sbatch: error: Batch job submission failed: Invalid partition name specified"), errors.New("exit status 1")
		}
		return []byte("41\n"), nil, nil
	})
	p.Approved = "sha256:ab"
	jobs, err := SubmitSlurm(context.Background(), c, p, ids, dir, "/opt/rlxp")
	if err == nil || !strings.Contains(err.Error(), "Invalid partition") {
		t.Fatalf("SubmitSlurm error = %v, want the refusal", err)
	}
	if d := cmp.Diff([]string{"41"}, jobs); d != "" {
		t.Errorf("jobs (-want +got):\n%s", d)
	}
	if rec, err := runs.Read(runs.Path(dir, "r0")); err != nil || rec.JobID != "41" || rec.Held == nil || rec.Held.Approval != "sha256:ab" {
		t.Errorf("submitted run: %+v, %v", rec, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "r1")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the run never submitted still has a record: %v", err)
	}
}

func TestStartLosesRace(t *testing.T) {
	dir := t.TempDir()
	seed := 0
	_, _, err := Start{Plan: plan(), RunsDir: dir, Now: time.Now(),
		Runs:     []runs.Record{{ID: "other", Experiment: "lr-0.05", Seed: &seed}},
		InFlight: func(runs.Record) bool { return true },
	}.Run(context.Background())
	var race *RaceError
	if !errors.As(err, &race) || !errors.Is(err, state.ErrLocked) {
		t.Fatalf("Start with a run in flight = %v, want a lost race that reads as locked", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a lost race recorded runs: %v", ents)
	}
}
