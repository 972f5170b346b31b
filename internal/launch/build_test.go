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
		Root:   "/repo", Contract: l, Seeds: []int{1, 2}, FreeGPUs: []string{"0", "1"},
	}
}

func TestBuild(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Spec)
		want Plan
	}{
		{
			name: "two free GPUs: two runs at a time, one GPU each",
			edit: func(*Spec) {},
			want: Plan{Experiment: "fast", Backend: "local", Root: "/repo", WallClock: "10m0s", Grace: "30s", GPUsPerRun: 1, Nodes: 1, Concurrency: 2, GPUs: []string{"0", "1"}, Runs: []Run{
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

// TestDevices: a local run sees exactly the GPUs the contract approves,
// chosen among the free ones; a plan with fewer free than a run needs, or
// whose command picks devices itself or asks for more than approved, is
// refused before anything starts.
func TestDevices(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*Spec)
		train string
		want  string // "" builds; else the DevicesError says it
	}{
		{name: "no free GPU", edit: func(s *Spec) { s.FreeGPUs = nil }, want: "0 GPUs are free and the contract approves 1 per run: nothing starts without the GPUs it was approved for"},
		{name: "fewer free than a run needs", edit: func(s *Spec) { s.Contract.Contract.Hardware.GPUsPerRun = 4 }, want: "2 GPUs are free and the contract approves 4 per run"},
		{name: "slurm: the scheduler allocates", edit: func(s *Spec) { s.FreeGPUs = nil; s.Contract.Contract.Hardware.Launcher = "slurm" }},
		{name: "no GPUs approved, none free", edit: func(s *Spec) { s.FreeGPUs = nil; s.Contract.Contract.Hardware.GPUsPerRun = 0 }},
		{name: "command sets the devices", train: "CUDA_VISIBLE_DEVICES=0,1,2,3 python3 train.py {run_dir}", want: "commands.train sets CUDA_VISIBLE_DEVICES itself: a run sees the GPUs its plan gives it"},
		{name: "command exports the devices", train: "export NVIDIA_VISIBLE_DEVICES=all; python3 train.py {run_dir}", want: "sets NVIDIA_VISIBLE_DEVICES itself"},
		{name: "command reorders the devices", train: "env CUDA_DEVICE_ORDER=FASTEST_FIRST python3 train.py {run_dir}", want: "sets CUDA_DEVICE_ORDER itself"},
		{name: "command sets the devices through env", train: "env HIP_VISIBLE_DEVICES=1 python3 train.py {run_dir}", want: "sets HIP_VISIBLE_DEVICES itself"},
		{name: "command sets the devices in a subshell", train: "(CUDA_VISIBLE_DEVICES=3; export CUDA_VISIBLE_DEVICES; python3 train.py {run_dir})", want: "sets CUDA_VISIBLE_DEVICES itself"},
		{name: "srun asks more", train: "srun --gres=gpu:4 python3 train.py {run_dir}", want: "commands.train asks for 4 GPUs (--gres=gpu:4) and the contract approves 1 per run"},
		{name: "srun, typed gres", train: "srun --gres=gpu:h100:2 python3 train.py {run_dir}", want: "asks for 2 GPUs (--gres=gpu:h100:2)"},
		{name: "srun --gpus", train: "srun --gpus 3 python3 train.py {run_dir}", want: "asks for 3 GPUs (--gpus 3)"},
		{name: "srun --gpus-per-node, typed", train: "srun --gpus-per-node=a100:2 python3 train.py {run_dir}", want: "asks for 2 GPUs (--gpus-per-node=a100:2)"},
		{name: "as many as approved", train: "srun --gres=gpu:1 python3 train.py --gpus=1 {run_dir}"},
		{name: "a name merely like it", train: "python3 train.py --MY_CUDA_VISIBLE_DEVICES=3 --note 'CUDA_VISIBLE_DEVICES is set by rlxp' {run_dir}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := spec(t)
			if tc.edit != nil {
				tc.edit(&s)
			}
			if tc.train != "" {
				s.Adapter.Commands = map[string]string{"train": tc.train}
			}
			_, err := Build(s)
			var de *DevicesError
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Build: %v", err)
			case tc.want != "" && (!errors.As(err, &de) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Build: %v, want a DevicesError saying %q", err, tc.want)
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
