package audit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSkipped: vendored code, virtualenvs, a vendored copy of an RL
// library, nested repositories, run outputs, ignored, binary and large
// files are skipped and counted by reason.
func TestSkipped(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"train.py":                             "import gymnasium\nenv.step(a)\nenv.reset()\nloss.backward()\n",
		".gitignore":                           "logs/\n*.tmp\n",
		"logs/old.py":                          "from stable_baselines3 import PPO\n",
		"x.tmp":                                "",
		"big.py":                               "# " + strings.Repeat("x", 300) + "\n",
		"nul.py":                               "a = 1\x00\n",
		"model.pt":                             "\x80\x02",
		"notes.txt":                            "",
		"vendor/lib.py":                        "import rsl_rl\n",
		".venv/pyvenv.cfg":                     "home = /usr/bin\n",
		"env/pyvenv.cfg":                       "home = /usr/bin\n",
		"env/lib/python3.11/x.py":              "import trl\n",
		"src/libs/rsl_rl/__init__.py":          "",
		"src/libs/rsl_rl/runner.py":            "OnPolicyRunner(\n",
		"deps/verl/setup.py":                   "",
		"deps/verl/verl/__init__.py":           "import verl\n",
		"sub/.git":                             "gitdir: ../.git/modules/sub\n",
		"sub/x.py":                             "import tianshou\n",
		"wandb/run-1/files/wandb-summary.json": "{}",
		"pkg.egg-info/PKG-INFO":                "",
		"__pycache__/x.cpython-311.pyc":        "",
	})
	if err := os.Symlink("train.py", filepath.Join(dir, "link.py")); err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), dir, Options{MaxFileSize: 200})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"binary": 2, "large": 1, "gitignored": 1, "gitignored directories": 1, "not read (file type)": 2,
		"symlink": 1, "vendored directories": 4, "vendored copy of rsl_rl directories": 1,
		"vendored copy of verl directories": 1, "nested repository directories": 1, "run outputs directories": 1,
		"tool caches directories": 1,
	}
	if diff := cmp.Diff(want, r.Files.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	var dirs []string
	for _, d := range r.Files.SkippedDirs {
		dirs = append(dirs, d.Path+" "+d.Reason)
	}
	wantDirs := []string{".venv/ vendored", "deps/verl/ vendored copy of verl", "env/ vendored", "logs/ gitignored",
		"pkg.egg-info/ vendored", "src/libs/rsl_rl/ vendored copy of rsl_rl", "sub/ nested repository", "vendor/ vendored", "wandb/ run outputs"}
	if diff := cmp.Diff(wantDirs, dirs); diff != "" {
		t.Errorf("skipped directories (-want +got):\n%s", diff)
	}
	if r.Files.Scanned != 1 || len(r.Frameworks) != 1 || r.Frameworks[0].Kind != "generic" {
		t.Errorf("scanned %d, frameworks %+v: want only train.py, a generic loop", r.Files.Scanned, r.Frameworks)
	}
	if r.Outputs[len(r.Outputs)-1].Path != "wandb/" || r.Outputs[len(r.Outputs)-1].Kind != "existing" {
		t.Errorf("outputs %+v lack the existing wandb/ directory", r.Outputs)
	}
}

// TestOutputNamedPackage: a Python package named after a tracker
// (monitors/wandb/) is source to read; a wandb/ of runs beside it is not.
func TestOutputNamedPackage(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"monitors/wandb/__init__.py":           "",
		"monitors/wandb/monitor.py":            "import wandb\n",
		"wandb/run-1/files/wandb-summary.json": "{}",
	})
	r, err := Run(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, d := range r.Files.SkippedDirs {
		dirs = append(dirs, d.Path+" "+d.Reason)
	}
	if diff := cmp.Diff([]string{"wandb/ run outputs"}, dirs); diff != "" {
		t.Errorf("skipped directories (-want +got):\n%s", diff)
	}
	if r.Files.Scanned != 2 {
		t.Errorf("scanned %d files, want the package's 2", r.Files.Scanned)
	}
}

func TestRunErrors(t *testing.T) {
	if _, err := Run(context.Background(), filepath.Join(t.TempDir(), "missing"), Options{}); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing root: %v", err)
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if _, err := Run(context.Background(), f, Options{}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file root: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, t.TempDir(), Options{}); err == nil {
		t.Error("cancelled run succeeded")
	}
}

func TestConfigParams(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ppo.yaml"), []byte(`algo:
  lr: 3e-4   # Adam
  clip: 0.2
  net:
    hidden: 256
  name: ppo
env:
  num_envs: 4096
  headless: true
seed: 1
`), 0o644)
	var got []string
	for _, p := range configParams(dir, "ppo.yaml") {
		got = append(got, p.Name+"="+p.Value+" "+p.Evidence[0].String())
	}
	want := []string{"algo.lr=3e-4 ppo.yaml:2", "algo.clip=0.2 ppo.yaml:3", "algo.net.hidden=256 ppo.yaml:5",
		"env.num_envs=4096 ppo.yaml:8", "env.headless=true ppo.yaml:9", "seed=1 ppo.yaml:10"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestProjectsOfTheirOwn: directories that are projects of their own are
// skipped with their reason, and what they import decides nothing; the
// repository's own packages, docs and tools are read.
func TestProjectsOfTheirOwn(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"pyproject.toml":                 "[project]\nname = \"imaging\"\ndependencies = [\"numpy\"]\n",
		"imaging/__init__.py":            "",
		"imaging/LICENSE":                "MIT\n",
		"imaging/filters.py":             "import numpy\n",
		"docs/requirements.txt":          "sphinx\n",
		"docs/conf.py":                   "project = 'imaging'\n",
		"third/gym-0.21.0/gym/core.py":   "import gym\nenv.step(a)\nloss.backward()\n",
		"copied/agent/LICENSE":           "Apache\n",
		"copied/agent/train.py":          "from stable_baselines3 import PPO\nPPO('MlpPolicy', env).learn(total_timesteps=10)\n",
		"tools/rl_helper/setup.py":       "from setuptools import setup\nsetup(install_requires=['trl'])\n",
		"tools/rl_helper/grpo.py":        "from trl import GRPOTrainer\ntrainer.train()\n",
		"tutorials/sb3/requirements.txt": "stable-baselines3\n",
		"tutorials/sb3/train.py":         "import stable_baselines3\nmodel.learn(total_timesteps=1)\n",
		"hub/push.py":                    "import stable_baselines3\ndef push(model):\n    model.save('x')\n",
	})
	r, err := Run(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, d := range r.Files.SkippedDirs {
		dirs = append(dirs, d.Path+" "+d.Reason)
	}
	want := []string{
		"copied/agent/ project of its own (LICENSE)",
		"third/gym-0.21.0/ project of its own (gym-0.21.0)",
		"tools/rl_helper/ project of its own (setup.py)",
		"tutorials/sb3/ project of its own (requirements.txt)",
	}
	if diff := cmp.Diff(want, dirs); diff != "" {
		t.Errorf("skipped directories (-want +got):\n%s", diff)
	}
	if !r.Unknown() {
		t.Errorf("frameworks %+v: want none (the repository imports stable_baselines3 but trains nothing)", r.Frameworks)
	}
}

func TestVersionedName(t *testing.T) {
	for name, want := range map[string]bool{
		"gym-0.21.0": true, "mujoco-py-2.1.2": true, "rsl_rl-v1.0.2": true,
		"gym": false, "v1.0": false, "py-3": false, "-1.0": false, "foo-": false, "foo-1.x": false,
	} {
		if got := versionedName(name); got != want {
			t.Errorf("versionedName(%q) = %v, want %v", name, got, want)
		}
	}
}
