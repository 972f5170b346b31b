package builtin

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestEntries(t *testing.T) {
	root := repo(t, map[string]string{
		"train.py":            "",
		"eval.py":             "",
		"pkg/trainer/run.py":  "",
		"accel.yaml":          "compute_environment: LOCAL_MACHINE\nnum_processes: 4\n",
		"scripts/run.sh":      "case $1 in train) s=train.py ;; eval) s=eval.py ;; esac\n[[ $a == --preflight-only ]]\nexec python3 \"$ROOT/$s\" \"$@\"\n",
		"pyproject.toml":      "[project]\nname = \"pkg\"\n\n[project.scripts]\n\nrl-train = \"pkg.trainer.run:main\"\n\"rl-cli\" = 'pkg.cli:app.run'\n[tool.x]\nother = \"pkg.other:main\"\n",
		"pkg/cli/__init__.py": "",
	})
	for _, tc := range []struct {
		cmd  string
		want []Entry
	}{
		{"python3 -u train.py --lr 0.1 --seed 0", []Entry{{Interpreter: "python3", Script: "train.py", Args: []string{"--lr", "0.1", "--seed", "0"}}}},
		{"python -m pkg.trainer.run --x=1", []Entry{{Interpreter: "python", Script: "pkg/trainer/run.py", Module: "pkg.trainer.run", Args: []string{"--x=1"}}}},
		{"CUDA_VISIBLE_DEVICES=0,1 torchrun --standalone --nproc_per_node=2 train.py --lr 1", []Entry{{Script: "train.py", Args: []string{"--lr", "1"}, Launcher: "torchrun", NProc: 2}}},
		{"python3 -m torch.distributed.run --nproc-per-node 8 train.py", []Entry{{Interpreter: "python3", Script: "train.py", Args: []string{}, Launcher: "torchrun", NProc: 8}}},
		{"accelerate launch --config_file accel.yaml train.py", []Entry{{Script: "train.py", Args: []string{}, Launcher: "accelerate", NProc: 4}}},
		{"deepspeed --num_gpus 2 train.py --deepspeed ds.json", []Entry{{Script: "train.py", Args: []string{"--deepspeed", "ds.json"}, Launcher: "deepspeed", NProc: 2}}},
		{"nohup env A=1 python3 train.py", []Entry{{Interpreter: "python3", Script: "train.py", Args: []string{}}}},
		{"bash scripts/run.sh train c.json --seed 0 && bash scripts/run.sh eval out/p.json --episodes 20", []Entry{
			{Runner: "scripts/run.sh", Script: "train.py", Args: []string{"c.json", "--seed", "0"}, RunnerOptions: []string{"--preflight-only"}},
			{Runner: "scripts/run.sh", Script: "eval.py", Args: []string{"out/p.json", "--episodes", "20"}, RunnerOptions: []string{"--preflight-only"}},
		}},
		{"uv run python cleanrl/../train.py --seed 1", []Entry{{Interpreter: "python", Script: "train.py", Args: []string{"--seed", "1"}}}},
		{"uv run --with tensorboard -p 3.11 --frozen train.py --seed 1", []Entry{{Script: "train.py", Args: []string{"--seed", "1"}}}},
		{"uv run -m pkg.trainer.run --x 1", []Entry{{Interpreter: "python", Script: "pkg/trainer/run.py", Module: "pkg.trainer.run", Args: []string{"--x", "1"}}}},
		{"poetry run python train.py", []Entry{{Interpreter: "python", Script: "train.py", Args: []string{}}}},
		{"conda run -n rl --no-capture-output python3 train.py", []Entry{{Interpreter: "python3", Script: "train.py", Args: []string{}}}},
		{"pixi run -e cuda -- python train.py", []Entry{{Interpreter: "python", Script: "train.py", Args: []string{}}}},
		{"rl-train --lr 0.1", []Entry{{Script: "pkg/trainer/run.py", Module: "pkg.trainer.run", Console: &ConsoleScript{Name: "rl-train", Module: "pkg.trainer.run", Func: "main"}, Args: []string{"--lr", "0.1"}}}},
		{"uv run rl-cli dpo --lr 0.1", []Entry{{Script: "pkg/cli/__init__.py", Module: "pkg.cli", Console: &ConsoleScript{Name: "rl-cli", Module: "pkg.cli", Func: "app.run"}, Args: []string{"dpo", "--lr", "0.1"}}}},
		{"other --lr 0.1", nil},
		{"uv sync", nil},
		{"python3 -c 'print(1)'", nil},
		{"make train", nil},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			calls, err := parseCommand(tc.cmd)
			if err != nil {
				t.Fatal(err)
			}
			var got []Entry
			for i := range calls {
				if e, ok := entryOf(root, &calls[i]); ok {
					got = append(got, e)
				}
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(Entry{}, "Call"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClosest(t *testing.T) {
	accepted := []string{"--config", "--seed", "--out", "--epochs", "--lr"}
	for in, want := range map[string]string{"--sead": "--seed", "--episodes": "--epochs", "--learning-rate": "--config", "--conifg": "--config"} {
		if got := closest(in, accepted); got != want {
			t.Errorf("closest(%s) = %s, want %s", in, got, want)
		}
	}
	if got := closest("--x", nil); got != "none" {
		t.Errorf("closest with nothing accepted = %s", got)
	}
}

// FuzzParseCommand: any command line is read or refused, never a panic,
// and a call's words are what the shell would see for literal words.
func FuzzParseCommand(f *testing.F) {
	for _, p := range []string{"../../../examples/drafts/cartpole/adapter.yaml", "../../../cmd/rlxp/testdata/fixtures/adapter.yaml"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`(?m)^  \w+: "(.*)"$`).FindAllSubmatch(data, -1) {
			f.Add(string(m[1]))
		}
	}
	f.Add(`CUDA_VISIBLE_DEVICES=0 torchrun --nproc_per_node "$N" train.py 'a b' "c d" $(echo x)`)
	f.Fuzz(func(t *testing.T, cmd string) {
		calls, err := parseCommand(cmd)
		if err != nil {
			return
		}
		root := t.TempDir()
		for i := range calls {
			entryOf(root, &calls[i])
		}
	})
}

func TestConsoleScripts(t *testing.T) {
	root := repo(t, map[string]string{
		"setup.py": "setup(\n    name='zoo',\n    entry_points={\"console_scripts\": [\"rl_zoo3=rl_zoo3.cli:main\", 'zoo-plot = rl_zoo3.plots.all:main']},\n    extras_require={'x': ['a=b:c']},\n)\n",
	})
	want := map[string]ConsoleScript{
		"rl_zoo3":  {Name: "rl_zoo3", Module: "rl_zoo3.cli", Func: "main"},
		"zoo-plot": {Name: "zoo-plot", Module: "rl_zoo3.plots.all", Func: "main"},
	}
	if diff := cmp.Diff(want, consoleScripts(root)); diff != "" {
		t.Errorf("console scripts (-want +got):\n%s", diff)
	}
}
