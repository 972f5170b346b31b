package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cartpole is the adapter of examples/drafts/cartpole: its preflight is the
// train command with one more flag, so only a whole match allows it.
func cartpole() map[string]string {
	return map[string]string{
		"train":     "bash scripts/run.sh train {config} --seed {seed} --out {run_dir} {params}",
		"eval":      "bash scripts/run.sh eval {run_dir}/policy.json --episodes 20 --seed-base 10000 --out {run_dir}",
		"preflight": "bash scripts/run.sh train {config} --seed {seed} --out {run_dir} {params} --preflight-only",
	}
}

const repo = "/work/cartpole"

// A decideCase is one command: want is "allow", or words the denial's
// reason must contain.
type decideCase struct {
	cmd  string
	want string
}

// testGuard is a guard for which root, and everything under it, is a
// repository with policy p (and nothing else is one).
func testGuard(root string, p *Policy) *Guard {
	return &Guard{
		Find: func(dir string) string {
			if dir == root || strings.HasPrefix(dir, root+"/") {
				return root
			}
			return ""
		},
		Load: func(string) *Policy { return p },
		Home: "/home/dana",
	}
}

// runDecide decides on each case in cwd, inside the repository of p (cwd
// itself when p has no root).
func runDecide(t *testing.T, p *Policy, cwd string, cases []decideCase) {
	t.Helper()
	root := p.root
	if root == "" {
		root = cwd
	}
	for _, tc := range cases {
		d := testGuard(root, p).Decide(tc.cmd, cwd)
		switch {
		case tc.want == "allow" && d.Deny:
			t.Errorf("Decide(%q) denied, want allowed: %s", tc.cmd, d.Reason)
		case tc.want != "allow" && !d.Deny:
			t.Errorf("Decide(%q) allowed, want denied (%s)", tc.cmd, tc.want)
		case tc.want != "allow" && !strings.Contains(d.Reason, tc.want):
			t.Errorf("Decide(%q) reason %q lacks %q", tc.cmd, d.Reason, tc.want)
		case d.Deny && strings.ContainsAny(d.Reason, "\n\r"):
			t.Errorf("Decide(%q) reason is not one line: %q", tc.cmd, d.Reason)
		case !d.Deny && d.Reason != "":
			t.Errorf("Decide(%q) allowed with a reason %q", tc.cmd, d.Reason)
		}
	}
}

func TestDecideWellKnownLaunchers(t *testing.T) {
	runDecide(t, LoadPolicy(""), "/tmp", []decideCase{
		{"torchrun --nproc_per_node 8 train.py", "with torchrun"},
		// a help flag that may be an option's value, or that a launcher
		// passes on to what it starts
		{"python train.py --config --help", "a training script"},
		// one-letter options clustered, and uv run's -m
		{"python -um verl.trainer.main_ppo --x 1", "a training module"},
		{"python3 -Bum verl.trainer.main_ppo", "a training module"},
		{"python -u -OOmverl.trainer.main_ppo", "a training module"},
		{"uv run --extra gpu -m verl.trainer.main_ppo data.x=1", "a training module"},
		{"python -uc 'import os; os.system(\"torchrun x.py\")'", "torchrun"},
		// algorithms by their names
		{"python cleanrl/c51.py --env-id CartPole-v1 && python cleanrl/ppg_procgen.py", "a training script"},
		{"python3 acer.py", "a training script"},
		{"python mava/systems/ff_ippo.py env=lbf", "a training script"},
		{"python algorithms/offline/iql.py --env halfcheetah", "a training script"},
		{"python REINFORCE.py", "a training script"},
		{"perl -we 'system(\"torchrun x.py\")'", "torchrun"},
		{"torchrun --nproc_per_node 8 train.py --help", "with torchrun"},
		{"sbatch job.sh --help", "sbatch"},
		{"python train.py --config cfg.json", "a training script (train.py)"},
		{"python3 -u train.py", "a training script"},
		{"/usr/bin/python3.11 -X dev -W ignore scripts/train_ppo.py", "scripts/train_ppo.py"},
		{"python examples/grpo_trainer/main.py", "a training script"},
		{"python3 -m verl.trainer.main_ppo data.train_batch_size=8", "a training module (python -m verl.trainer.main_ppo)"},
		{"python -m openrlhf.cli.train_ppo_ray --pretrain x", "a training module"},
		{"python -m torch.distributed.run --nproc_per_node 2 main.py", "torch.distributed"},
		{"python -m torch.distributed.launch main.py", "torch.distributed"},
		{"accelerate launch --num_processes 8 grpo.py", "accelerate launch"},
		{"deepspeed --num_gpus 8 main.py", "DeepSpeed"},
		{"sbatch job.sh", "sbatch"},
		{"srun --gres=gpu:1 python main.py", "srun"},
		{"mpirun -np 4 python main.py", "mpirun"},
		{"ray job submit --address http://head:8265 -- python main.py", "ray job submit"},
		{"tune run lora_finetune_single_device --config x.yaml", "tune run"},
		{"llamafactory-cli train cfg.yaml", "llamafactory-cli train"},
		{"./train.py --steps 10", "a training script (train.py)"},
		{"/opt/rl/train.py", "a training script"},
		{"bash scripts/train_grpo.sh", "a training script (scripts/train_grpo.sh)"},
		{"bash examples/grpo_trainer/run_qwen2-7b.sh", "a training script"},
		{"./train.sh --gpus 8", "a training script (train.sh)"},
		{"sh train.sh", "a training script"},
		{"make train", "a training target (make train)"},
		{"make -C rl -j 8 train-ppo EPOCHS=3", "a training target (make train-ppo)"},
		{"just train", "a training target (just train)"},
	})
}

func TestDecideSeesThroughTheShell(t *testing.T) {
	runDecide(t, LoadPolicy(""), "/tmp", []decideCase{
		{"CUDA_VISIBLE_DEVICES=0,1 nohup python train.py > log 2>&1 &", "a training script"},
		{"cd /work && source .venv/bin/activate && python train.py", "a training script"},
		{"echo start; torchrun train.py | tee log", "torchrun"},
		{"ls || torchrun train.py", "torchrun"},
		{"if true; then\n  torchrun train.py\nfi", "torchrun"},
		{"for s in 0 1 2; do python train.py --seed $s; done", "a training script"},
		{"(cd sub && torchrun train.py)", "torchrun"},
		{"x=$(torchrun train.py)", "torchrun"},
		{"echo \"$(torchrun train.py)\"", "torchrun"},
		{"run() { torchrun train.py; }; run", "torchrun"},
		{"bash -lc 'source .venv/bin/activate && torchrun train.py'", "torchrun"},
		{"sh -c \"timeout 3600 python train.py\"", "a training script"},
		{"zsh -ec 'python train.py'", "a training script"},
		{"bash -o pipefail -c 'python train.py | tee log'", "a training script"},
		{"bash <<'EOF'\ntorchrun train.py\nEOF", "torchrun"},
		{"bash -s <<< 'torchrun train.py'", "torchrun"},
		{"eval \"torchrun train.py\"", "torchrun"},
		{"env -i PATH=/usr/bin FOO=1 python train.py", "a training script"},
		{"setsid -f nohup python train.py &", "a training script"},
		{"timeout -s INT 1h python train.py", "a training script"},
		{"nice -n 10 ionice -c 3 python train.py", "a training script"},
		{"time python train.py", "a training script"},
		{"exec torchrun train.py", "torchrun"},
		{"sudo -u alice -E torchrun train.py", "torchrun"},
		{"stdbuf -oL python train.py", "a training script"},
		{"taskset -c 0-7 numactl --membind 0 python train.py", "a training script"},
		{"echo train.py | xargs -n 1 torchrun", "torchrun"},
		{"uv run python train.py", "a training script"},
		{"uv run --with wandb train.py", "a training script"},
		{"poetry run python train.py", "a training script"},
		{"pipenv run python train.py", "a training script"},
		{"conda run -n rl --no-capture-output python train.py", "a training script"},
		{"micromamba run -n rl python train.py", "a training script"},
		{"pixi run -e cuda python train.py", "a training script"},
		{"tmux new-session -d -s train 'python train.py'", "a training script"},
		{"tmux new -d 'torchrun train.py'", "torchrun"},
		{"tmux send-keys -t train 'python train.py' Enter", "a training script"},
		{"screen -dmS train python train.py", "a training script"},
		{"ssh -p 2222 gpu01 'cd repo && torchrun train.py'", "torchrun"},
		{"watch -n 60 'python train.py'", "a training script"},
		{"\"python\" 'train.py'", "a training script"},
		{"py\\thon tr\\ain.py", "a training script"},
		// Source the parser rejects is split on operators instead.
		{"torchrun train.py && (", "torchrun"},
		{strings.Repeat("bash -c '", 1) + "torchrun train.py'", "torchrun"},
	})
}

func TestDecideAllowsEverythingElse(t *testing.T) {
	runDecide(t, LoadPolicy(""), "/tmp", []decideCase{
		{"", "allow"},
		{"   ", "allow"},
		{"FOO=1", "allow"},
		{"grep -rn train .", "allow"},
		{"cat train.py", "allow"},
		{"vim train.py", "allow"},
		{"sed -i 's/lr = 1e-3/lr = 3e-4/' train.py", "allow"},
		{"git diff -- train.py && git log -p train.py", "allow"},
		{"ls train/ && find . -name '*train*'", "allow"},
		{"python -c 'import ast; print(ast.get_docstring(ast.parse(open(\"train.py\").read())))'", "allow"},
		{"python - <<'EOF'\nprint(open('train.py').read().count('def '))\nEOF", "allow"},
		{"python train.py --help", "allow"},
		{"python -um pip list && python -uc 'print(1)' && uv run -m pytest -q tools/test_x.py && python -Wignore tools/lint.py", "allow"},
		{"python -m pkg.train_gym --env=CartPole-v1 --help && python train.py --config c.json -h", "allow"},
		{"torchrun --help", "allow"},
		{"accelerate launch -h", "allow"},
		{"sbatch --version", "allow"},
		{"python -m pytest tests/test_train.py", "allow"},
		{"pytest -x tests/", "allow"},
		{"python tests/test_train.py", "allow"},
		{"python scripts/plot_training_curves.py runs/x", "allow"},
		{"python cleanrl/ppo.py --seed 1", "a training script"},
		{"python cleanrl/sac_continuous_action.py", "a training script"},
		{"bash examples/grpo-qwen2.5-7b.sh", "a training script"},
		{"python finetune.py --model x", "a training script"},
		{"python -m trl.scripts.sft --model x", "a training module"},
		{"python scripts/plot_ppo.py", "allow"},
		{"python eval_ppo.py", "allow"},
		{"python happo_notes.py", "allow"},
		{"python tools/make_train_split.py", "allow"},
		{"python eval_trained_policy.py", "allow"},
		{"python train/plot.py", "allow"},
		{"python -m pip install trainer", "allow"},
		{"cat > run.sh <<'EOF'\ntorchrun train.py\nEOF", "allow"},
		{"echo 'torchrun train.py'", "allow"},
		{"printf '%s\\n' \"python train.py\"", "allow"},
		{"git commit -m 'train: fix lr schedule'", "allow"},
		{"nvidia-smi && squeue -u $USER && scancel 123", "allow"},
		{"command -v torchrun", "allow"},
		{"which torchrun deepspeed", "allow"},
		{"uv pip install torch", "allow"},
		{"conda activate rl", "allow"},
		{"pkill -f train.py", "allow"},
		{"tail -f runs/x/log | grep loss", "allow"},
		{"ssh gpu01", "allow"},
		{"tmux attach -t train", "allow"},
		{"screen -r train", "allow"},
		{"accelerate config", "allow"},
		{"ray status", "allow"},
		{"bash", "allow"},
		{"bash scripts/run.sh train configs/baseline.json", "allow"}, // declared by no adapter here
		{"bash scripts/download_train_data.sh", "allow"},
		{"make test && make -j4 build && make test-train", "allow"},
		{"make lint TRAIN_DIR=x", "allow"},
		{"shellcheck scripts/train.sh && chmod +x scripts/train.sh", "allow"},
	})
}

func TestDecideAdapterCommands(t *testing.T) {
	p := NewPolicy(repo, cartpole())
	runDecide(t, p, repo, []decideCase{
		{"bash scripts/run.sh train configs/baseline.json --seed 0 --out runs/x/seed0 --set lr=0.01", "runs the train command declared in .rlxp/adapter.yaml"},
		{"./scripts/run.sh train configs/baseline.json", "train command"},
		{"scripts/run.sh train --seed 1", "train command"},
		{"bash /work/cartpole/scripts/run.sh train c --seed 0 --out d", "train command"},
		{"cd /work/cartpole && bash scripts/run.sh train c", "train command"},
		{"cd scripts && bash run.sh train c", "train command"},
		{"cd /elsewhere && bash scripts/run.sh train c", "train command"},
		{"bash scripts/run.sh eval runs/x/policy.json --episodes 20 --out runs/x", "runs the eval command declared in .rlxp/adapter.yaml: evaluations spend GPU hours"},
		// The preflight, whole, is what rlxp check runs, and it is allowed.
		{"bash scripts/run.sh train configs/baseline.json --seed 0 --out runs/x/seed0 --set lr=0.01 --preflight-only", "allow"},
		{"bash scripts/run.sh train 'configs/baseline.json' --seed 0 --out 'runs/x/seed0' --preflight-only", "allow"},
		// Flags moved around are no longer the preflight.
		{"bash scripts/run.sh train c --preflight-only --seed 0 --out d", "train command"},
		{"bash scripts/run.sh --help", "allow"},
		{"cat scripts/run.sh && shellcheck scripts/run.sh", "allow"},
		{"bash scripts/other.sh train", "allow"},
		{"bash examples/scripts/run.sh train c", "allow"}, // another script of the same name
	})
	// From a subdirectory, a relative path names the same script.
	runDecide(t, p, repo+"/scripts", []decideCase{
		{"bash run.sh train c --seed 0 --out d", "train command"},
		{"bash scripts/run.sh train c --seed 0 --out d", "allow"}, // scripts/scripts/run.sh
	})
}

func TestDecideAdapterPreflightByEnvironment(t *testing.T) {
	// The fixture's preflight differs from the train command only by an
	// environment assignment.
	p := NewPolicy(repo, map[string]string{
		"train":     "bash scripts/run.sh train {config} --seed {seed} --out {run_dir} {params}",
		"preflight": "PREFLIGHT_ONLY=1 bash scripts/run.sh train {config} --seed {seed} --out {run_dir}",
	})
	runDecide(t, p, repo, []decideCase{
		{"PREFLIGHT_ONLY=1 bash scripts/run.sh train configs/baseline.json --seed 0 --out runs/x", "allow"},
		{"env PREFLIGHT_ONLY=1 bash scripts/run.sh train c --seed 0 --out d", "allow"},
		{"PREFLIGHT_ONLY=0 bash scripts/run.sh train c --seed 0 --out d", "train command"},
		{"bash scripts/run.sh train c --seed 0 --out d", "train command"},
	})
}

func TestDecideAdapterDeclaredTrainingScript(t *testing.T) {
	// The design's example: a runner named train.sh whose preflight is the
	// same script with an environment switch.
	p := NewPolicy(repo, map[string]string{
		"train":     "bash scripts/train/train.sh {config} {params}",
		"preflight": "PREFLIGHT_ONLY=1 bash scripts/train/train.sh {config}",
	})
	runDecide(t, p, repo, []decideCase{
		{"PREFLIGHT_ONLY=1 bash scripts/train/train.sh configs/ppo.yaml", "allow"},
		{"bash scripts/train/train.sh configs/ppo.yaml", "runs the train command declared"},
		// {config} stands for any words, so more arguments stay the preflight.
		{"PREFLIGHT_ONLY=1 bash scripts/train/train.sh configs/ppo.yaml lr=3", "allow"},
	})
}

func TestDecideAdapterPythonTemplates(t *testing.T) {
	p := NewPolicy(repo, map[string]string{
		"train":     "mkdir -p {run_dir} && CUDA_VISIBLE_DEVICES=0 python -u scripts/learn.py --config {config} --out {run_dir} {params} | tee {run_dir}/log",
		"eval":      "python3 -m cartpole.evaluate --ckpt {run_dir}/policy.pt",
		"preflight": "python scripts/learn.py --config {config} --dry-run",
	})
	runDecide(t, p, repo, []decideCase{
		{"python scripts/learn.py --config c.json", "train command"},
		{"python3.11 -O scripts/learn.py", "train command"},
		{"uv run python scripts/learn.py --config c --out d", "train command"},
		{"python -m cartpole.evaluate --ckpt runs/x/policy.pt", "eval command"},
		{"python scripts/learn.py --config c.json --dry-run", "allow"},
		{"mkdir -p runs/x", "allow"},
		{"tee runs/x/log < /dev/null", "allow"},
		{"python scripts/other.py", "allow"},
		{"python -m cartpole.plots", "allow"},
	})
}

func TestDecideUnidentifiableTemplateMatchesWhole(t *testing.T) {
	// A template whose script is a placeholder names no program; only a
	// command of its whole shape matches.
	p := NewPolicy(repo, map[string]string{"train": "python {config} --steps 5"})
	runDecide(t, p, repo, []decideCase{
		{"python3 cfg.py --steps 5", "train command"},
		{"python3 cfg.py --steps 6", "allow"},
		{"python3 cfg.py --help", "allow"},
	})
}

func TestDecideTooDeep(t *testing.T) {
	cmd := "torchrun train.py"
	for i := 0; i < maxDepth+1; i++ {
		cmd = "bash -c " + shellQuote(cmd)
	}
	runDecide(t, LoadPolicy(""), "/tmp", []decideCase{{cmd, "more than 8 levels"}})
}

// Brackets nested deeper than the parser can recurse are refused before it
// sees them, instead of ending the process on a stack overflow.
func TestDecideDeepBrackets(t *testing.T) {
	deep := strings.Repeat("(", 200000) + "true" + strings.Repeat(")", 200000)
	runDecide(t, LoadPolicy(""), "/tmp", []decideCase{
		{deep, "brackets (more than 64)"},
		{strings.Repeat("(", 10) + "echo ok" + strings.Repeat(")", 10), "allow"},
	})
}

func TestPatterns(t *testing.T) {
	type view struct {
		Name   string
		Env    map[string]token
		Words  []token
		Prefix int
	}
	got := func(name, tmpl string) view {
		t.Helper()
		p, ok := compile(name, tmpl, repo)
		if !ok {
			t.Fatalf("compile(%q) failed", tmpl)
		}
		return view{p.name, p.env, p.words, p.prefix}
	}
	opt := cmp.AllowUnexported(token{})
	want := view{"train", map[string]token{}, []token{
		{lit: repo + "/scripts/run.sh"}, {lit: "train"}, {slurp: true}, {lit: "--seed"}, {slurp: true},
		{lit: "--out"}, {slurp: true}, {slurp: true},
	}, 2}
	if diff := cmp.Diff(want, got("train", cartpole()["train"]), opt); diff != "" {
		t.Errorf("train pattern (-want +got):\n%s", diff)
	}
	want = view{"eval", map[string]token{}, []token{
		{lit: repo + "/scripts/run.sh"}, {lit: "eval"}, {glob: []string{"", "/policy.json"}}, {lit: "--episodes"}, {lit: "20"},
		{lit: "--seed-base"}, {lit: "10000"}, {lit: "--out"}, {slurp: true},
	}, 2}
	if diff := cmp.Diff(want, got("eval", cartpole()["eval"]), opt); diff != "" {
		t.Errorf("eval pattern (-want +got):\n%s", diff)
	}
	want = view{"preflight", map[string]token{"PREFLIGHT_ONLY": {lit: "1"}, "OUT": {glob: []string{"runs/", "/x"}}}, []token{
		{lit: "python"}, {lit: "-m"}, {lit: "pkg.learn"}, {glob: []string{"--lr=", ""}},
	}, 0}
	if diff := cmp.Diff(want, got("preflight", "PREFLIGHT_ONLY=1 OUT=runs/{experiment}/x python3 -m pkg.learn --lr={lr}"), opt); diff != "" {
		t.Errorf("preflight pattern (-want +got):\n%s", diff)
	}
	if _, ok := compile("train", "cd x && echo hi", repo); ok {
		t.Errorf("a template of utilities only compiled")
	}
}

func TestMatchWord(t *testing.T) {
	for _, tc := range []struct {
		tmpl, word string
		want       bool
	}{
		{"{run_dir}/policy.json", "runs/x/policy.json", true},
		{"{run_dir}/policy.json", "/policy.json", true},
		{"{run_dir}/policy.json", "runs/x/policy.pt", false},
		{"--out={run_dir}", "--out=d", true},
		{"--out={run_dir}", "--output=d", false},
		{"a{x}b{y}c", "abc", true},
		{"a{x}b{y}c", "a1b2c", true},
		{"a{x}b{y}c", "a1c", false},
		{"ab{x}ba", "aba", false},
		{"{Bad}", "{Bad}", true}, // not a placeholder name: a literal
	} {
		if got := tokenOf(tc.tmpl).matchWord(tc.word); got != tc.want {
			t.Errorf("%q matches %q = %v, want %v", tc.tmpl, tc.word, got, tc.want)
		}
	}
}

func writeAdapter(t *testing.T, content string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".rlxp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if content != "" {
		if err := os.WriteFile(filepath.Join(root, ".rlxp", "adapter.yaml"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestLoadPolicy(t *testing.T) {
	const good = "schema: rlxp.adapter/v1\ncommands:\n  train: \"bash scripts/run.sh train {config} {params}\"\n"
	for _, tc := range []struct {
		name, adapter string
		note          string
		launches      int
	}{
		{"no adapter.yaml", "", "", 0},
		{"declared", good, "", 1},
		{"no commands", "schema: rlxp.adapter/v1\n", "", 0},
		{"broken YAML", "schema: rlxp.adapter/v1\ncommands: [\n", ".rlxp/adapter.yaml:", 0},
		{"command not a string", "schema: rlxp.adapter/v1\ncommands:\n  train: [a, b]\n", ".rlxp/adapter.yaml:3:3: commands.train: must be a command line (a string), not a list", 0},
		{"commands not a mapping", "schema: rlxp.adapter/v1\ncommands: 3\n", "commands: must be a mapping", 0},
		{"utility only", "schema: rlxp.adapter/v1\ncommands:\n  train: \"echo {config}\"\n  eval: \"cd x\"\n", ".rlxp/adapter.yaml: commands.train and commands.eval names no command", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := LoadPolicy(writeAdapter(t, tc.adapter))
			if !strings.Contains(p.note, tc.note) || (tc.note == "") != (p.note == "") {
				t.Errorf("note = %q, want %q", p.note, tc.note)
			}
			if len(p.launches) != tc.launches {
				t.Errorf("%d launch patterns, want %d", len(p.launches), tc.launches)
			}
		})
	}
}

func TestBrokenAdapterStillEnforcesTheRest(t *testing.T) {
	root := writeAdapter(t, "schema: rlxp.adapter/v1\ncommands: [\n")
	p := LoadPolicy(root)
	runDecide(t, p, root, []decideCase{
		{"torchrun train.py", "(note: .rlxp/adapter.yaml:"},
		{"rlxp contract approve --all", "the commands it declares are not checked until it is fixed"},
		{"bash scripts/run.sh train c", "allow"},
		{"ls", "allow"},
	})
}

func TestUnreadableAdapter(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	root := writeAdapter(t, "schema: rlxp.adapter/v1\n")
	if err := os.Chmod(filepath.Join(root, ".rlxp", "adapter.yaml"), 0); err != nil {
		t.Fatal(err)
	}
	if p := LoadPolicy(root); !strings.Contains(p.note, "cannot read .rlxp/adapter.yaml: permission denied") {
		t.Errorf("note = %q", p.note)
	}
}

// Payloads as the hosts send them: Claude Code 2.1 (its hooks reference and
// binary) and Codex 0.171 (codex-rs/hooks pre_tool_use.rs, exec_command.rs).
const (
	claudePayload = `{"session_id":"8f0c6a1e-2c1b-4a51-9d0e-3f9a8d4b7c21","transcript_path":"/home/u/.claude/projects/-work-cartpole/8f0c6a1e.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%q,"description":"Start training","timeout":120000,"run_in_background":false},"tool_use_id":"toolu_01ABC123"}`
	codexPayload  = `{"session_id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","turn_id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a60","transcript_path":null,"cwd":"%s","hook_event_name":"PreToolUse","model":"gpt-5-codex","permission_mode":"default","tool_name":"Bash","tool_input":{"command":%q},"tool_use_id":"call_k3J9"}`
)

func TestCheckPayloads(t *testing.T) {
	root := writeAdapter(t, "schema: rlxp.adapter/v1\ncommands:\n  train: \"bash scripts/run.sh train {config} {params}\"\n")
	sub := filepath.Join(root, "configs")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	sprintf := func(format, cwd, cmd string) []byte {
		return []byte(strings.Replace(strings.Replace(format, "%s", cwd, 1), "%q", jsonString(cmd), 1))
	}
	const train = "bash scripts/run.sh train configs/a.json"
	for _, tc := range []struct {
		name    string
		payload []byte
		dir     string
		want    string
	}{
		{"claude launch", sprintf(claudePayload, root, train), "/", "train command"},
		{"codex launch", sprintf(codexPayload, root, train), "/", "train command"},
		{"claude from a subdirectory", sprintf(claudePayload, sub, "bash ../scripts/run.sh train x"), "/", "train command"},
		{"codex allowed", sprintf(codexPayload, root, "git log -5 -- train.py"), "/", "allow"},
		{"cwd missing: the hook's own directory", []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + train + `"}}`), root, "train command"},
		{"cwd relative", []byte(`{"cwd":"configs","tool_name":"Bash","tool_input":{"command":"bash ../scripts/run.sh train x"}}`), root, "train command"},
		{"outside any repository", sprintf(claudePayload, "/", train), "/", "allow"},
		{"another tool", []byte(`{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/x/train.py","content":"torchrun"}}`), root, "allow"},
		{"codex apply_patch", []byte(`{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: train.py\n*** End Patch"}}`), root, "allow"},
		{"codex apply_patch to the ledger", []byte(`{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: .rlxp/ledger.jsonl\n*** End Patch"}}`), root, "written by rlxp alone"},
		{"claude Write to the approvals log", []byte(`{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":".rlxp/approvals.jsonl","content":"{}"}}`), root, "written by rlxp alone"},
		{"claude Edit of a run record", []byte(`{"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"` + root + `/.rlxp/runs/r1/run.json","old_string":"a","new_string":"b"}}`), root, "written by rlxp alone"},
		{"claude MultiEdit of contract.yaml", []byte(`{"hook_event_name":"PreToolUse","tool_name":"MultiEdit","tool_input":{"file_path":".rlxp/contract.yaml","edits":[]}}`), root, "allow"},
		{"claude NotebookEdit under runs", []byte(`{"hook_event_name":"PreToolUse","tool_name":"NotebookEdit","tool_input":{"notebook_path":".rlxp/runs/x.ipynb","new_source":""}}`), root, "written by rlxp alone"},
		{"an MCP tool with a command", []byte(`{"hook_event_name":"PreToolUse","tool_name":"mcp__shell__run","tool_input":{"command":"torchrun train.py"}}`), root, "torchrun"},
		{"an MCP tool outside", []byte(`{"hook_event_name":"PreToolUse","tool_name":"mcp__shell__run","tool_input":{"command":"torchrun train.py"}}`), "/", "allow"},
		{"another event", []byte(`{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"torchrun train.py"}}`), root, "allow"},
		{"not JSON", []byte(`tool_name: Bash`), root, "cannot read the hook payload (invalid character"},
		{"not JSON outside", []byte(`tool_name: Bash`), "/", "allow"},
		{"empty", nil, root, "cannot read the hook payload (unexpected end of JSON input)"},
		{"JSON null", []byte(`null`), root, "names no tool_name"},
		{"an array", []byte(`[1]`), root, "cannot read the hook payload (a JSON array, not an object)"},
		{"tool_name not a string", []byte(`{"tool_name":1}`), root, "cannot read the hook payload (tool_name is a JSON number, not a string)"},
		{"no tool_input", []byte(`{"tool_name":"Bash"}`), root, "tool_input holds no command"},
		{"command an argv list", []byte(`{"tool_name":"Bash","tool_input":{"command":["torchrun","x"]}}`), root, "torchrun"},
		{"command a number", []byte(`{"tool_name":"Bash","tool_input":{"command":1}}`), root, "neither a string nor a list of strings"},
		{"command null", []byte(`{"tool_name":"Bash","tool_input":{"command":null}}`), root, "neither a string nor a list of strings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &Guard{}
			d := g.Check(tc.payload, tc.dir)
			got := "allow"
			if d.Deny {
				got = d.Reason
			}
			if (tc.want == "allow") != !d.Deny || !strings.Contains(got, tc.want) {
				t.Errorf("Check = %q, want %q", got, tc.want)
			}
		})
	}
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

func TestTrainer(t *testing.T) {
	for _, tc := range []struct {
		argv []string
		cwd  string
		want string
	}{
		{[]string{"/usr/bin/python3", "-u", "train.py", "--seed", "0"}, "/repo", "a training script (/repo/train.py)"},
		{[]string{"/opt/venv/bin/python", "/opt/venv/bin/torchrun", "--nproc-per-node", "8", "main.py"}, "/repo", "torchrun"},
		{[]string{"python3", "-m", "verl.trainer.main_ppo", "trainer.n_gpus_per_node=8"}, "/repo", "a training module (python -m verl.trainer.main_ppo)"},
		{[]string{"bash", "scripts/run.sh", "train"}, "/repo", ""},
		{[]string{"/usr/bin/python3", "-m", "http.server"}, "/", ""},
		{[]string{"sleep", "100"}, "/", ""},
		{[]string{"python3", "plot_training_curves.py"}, "/repo", ""},
		{nil, "/", ""},
		{[]string{""}, "/", ""},
	} {
		if got := Trainer(tc.argv, tc.cwd); got != tc.want {
			t.Errorf("Trainer(%q, %q) = %q, want %q", tc.argv, tc.cwd, got, tc.want)
		}
	}
}
