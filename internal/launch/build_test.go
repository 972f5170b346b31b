package launch

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/schema/validate"
)

const fixtures = "../../cmd/rlxp/testdata/fixtures/"

func spec(t *testing.T) Spec {
	t.Helper()
	read := func(name string) []byte {
		data, err := os.ReadFile(fixtures + name)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	l, err := contract.Parse(validate.Schemas{}, "contract.yaml", read("contract.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ad, err := adapter.Parse(validate.Schemas{}, "adapter.yaml", read("adapter.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ad.Commands = map[string]string{"train": "python3 train.py --config {config} --seed {seed} --out {run_dir} {params}"}
	ad.Config.Default = "configs/base.json"
	ad.Config.Override = "--{name} {value}"
	e := &experiment.Experiment{ID: "fast", Seeds: []int{0, 1, 2}, Params: yaml.MapSlice{{Key: "lr", Value: 0.05}, {Key: "gamma", Value: 0.99}}}
	return Spec{
		Source: Source{Adapter: ad, AdapterFile: ".rlxp/adapter.yaml", Experiment: e, RunDir: "runs/{experiment}/seed{seed}"},
		Root:   "/repo", Contract: l, Seeds: []int{1, 2},
	}
}

func TestBuild(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Spec)
		want Plan
	}{
		{
			name: "no free GPUs: the runs see every device",
			edit: func(*Spec) {},
			want: Plan{Experiment: "fast", Backend: "local", Root: "/repo", WallClock: "10m0s", Grace: "30s", GPUsPerRun: 1, Nodes: 1, Concurrency: 2, Runs: []Run{
				{Seed: 1, RunDir: "runs/fast/seed1", Command: "python3 train.py --config configs/base.json --seed 1 --out runs/fast/seed1 --lr 0.05 --gamma 0.99"},
				{Seed: 2, RunDir: "runs/fast/seed2", Command: "python3 train.py --config configs/base.json --seed 2 --out runs/fast/seed2 --lr 0.05 --gamma 0.99"},
			}},
		},
		{
			name: "one free GPU: one run at a time, pinned to it; the experiment's wall clock",
			edit: func(s *Spec) {
				s.FreeGPUs = []string{"3"}
				s.Experiment.WallClock = "5m"
				s.Seeds = []int{0}
			},
			want: Plan{Experiment: "fast", Backend: "local", Root: "/repo", WallClock: "5m0s", Grace: "30s", GPUsPerRun: 1, Nodes: 1, Concurrency: 1, GPUs: []string{"3"}, Runs: []Run{
				{Seed: 0, RunDir: "runs/fast/seed0", Command: "python3 train.py --config configs/base.json --seed 0 --out runs/fast/seed0 --lr 0.05 --gamma 0.99"},
			}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := spec(t)
			tc.edit(&s)
			p, err := Build(s)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&tc.want, p, cmpopts.IgnoreFields(Plan{}, "ExperimentDigest", "ContractDigest")); diff != "" {
				t.Errorf("Build (-want +got):\n%s", diff)
			}
			if p.ExperimentDigest != s.Experiment.Digest() || p.ContractDigest == "" {
				t.Errorf("digests %q %q do not pin the approved content", p.ExperimentDigest, p.ContractDigest)
			}
		})
	}
}

func TestCommandErrors(t *testing.T) {
	s := spec(t)
	if _, _, err := s.Command("preflight", 0); err == nil || err.Error() != ".rlxp/adapter.yaml declares no commands.preflight" {
		t.Errorf("undeclared command: %v", err)
	}
	s.RunDir = "runs/{nope}"
	_, _, err := s.Command("train", 0)
	var rd *RunDirError
	if !errors.As(err, &rd) {
		t.Errorf("bad run-dir template: %v, want a RunDirError", err)
	}
	if _, err := s.Commands([]int{0}); !errors.As(err, &rd) {
		t.Errorf("Commands with a bad run-dir template: %v, want a RunDirError", err)
	}
}

func TestGraceBound(t *testing.T) {
	for _, tc := range []struct {
		wall  string
		grace *time.Duration
		want  contract.Duration
		err   bool
	}{
		{"10m", nil, "30s", false},
		{"2s", nil, "5s", false}, // the default, clipped to the bound
		{"10m", ptr(150 * time.Second), "2m30s", false},
		{"10m", ptr(151 * time.Second), "", true},
		{"10m", ptr(0), "0s", false},
		{"100h", ptr(10 * time.Minute), "10m0s", false},
		{"100h", ptr(8760 * time.Hour), "", true},
	} {
		s := spec(t)
		s.Experiment.WallClock = contract.Duration(tc.wall)
		s.Grace = tc.grace
		p, err := Build(s)
		var ge *GraceError
		if tc.err != errors.As(err, &ge) {
			t.Errorf("wall %s, grace %v: error %v", tc.wall, tc.grace, err)
			continue
		}
		if err == nil && p.Grace != tc.want {
			t.Errorf("wall %s, grace %v: plan's grace %s, want %s", tc.wall, tc.grace, p.Grace, tc.want)
		}
	}
}

func ptr(d time.Duration) *time.Duration { return &d }

func TestRunDirRules(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(root+"/runs/fast/seed1", 0o755)
	os.Symlink(t.TempDir(), root+"/out")
	for _, tc := range []struct {
		tmpl string
		want string // "" ok; "exists" an ExistsError; else a RunDirError containing it
	}{
		{"runs/{experiment}/seed{seed}", "exists"},
		{"runs/{experiment}/s{seed}", ""},
		{"runs/{experiment}", "does not separate seeds"},
		{"../x/{seed}", "outside the repository"},
		{"/tmp/x/{seed}", "outside the repository"},
		{".rlxp/x{seed}", "inside .rlxp/"},
		{".git/x{seed}", "inside .git/"},
		{"out/{seed}", "through a symbolic link"},
		{"runs/{seed}/../../../{seed}", "outside the repository"},
	} {
		s := spec(t)
		s.Root, s.RunDir = root, tc.tmpl
		_, err := Build(s)
		var rd *RunDirError
		var ex *ExistsError
		switch {
		case tc.want == "" && err != nil, tc.want == "exists" && !errors.As(err, &ex):
			t.Errorf("%s: %v", tc.tmpl, err)
		case tc.want != "" && tc.want != "exists" && (!errors.As(err, &rd) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want a run-dir error saying %q", tc.tmpl, err, tc.want)
		}
	}
}
