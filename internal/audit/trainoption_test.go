package audit

import (
	"context"
	"strings"
	"testing"
)

// TestAlgorithmOption: a documented command whose option value names an
// RL algorithm (--config=qmix, algo=ppo) trains, though its program's
// name and its own code (it hands off to another module) do not say so.
func TestAlgorithmOption(t *testing.T) {
	main := "from run import run\n\n\ndef go(config):\n    run(config)\n\n\nif __name__ == \"__main__\":\n    go({})\n"
	for _, c := range []struct {
		name, readme, want string
	}{
		{"option=value", "python src/main.py --config=qmix --env-config=gymma with env_args.key=x\n", "python src/main.py"},
		{"key=value", "python src/main.py algo=ppo env=cartpole\n", "python src/main.py"},
		{"quoted value", "python src/main.py --config=\"mappo\"\n", "python src/main.py"},
		{"a value that is no algorithm", "python src/main.py --config=default\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{
				"README.md":   "# Agents\n\nRun an experiment:\n\n```sh\n" + c.readme + "```\n",
				"src/main.py": main,
				"src/run.py":  "def run(config):\n    return config\n",
			})
			r, err := Run(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := r.Adapter.Commands["train"]
			if c.want == "" && got != "" || c.want != "" && !strings.HasPrefix(got, c.want+" ") {
				t.Errorf("commands.train = %q, want it to run %q", got, c.want)
			}
		})
	}
}

// TestRootReadmeFirst: the root README's way to train beats a command in
// another root page (agent instructions, contributing notes), even a
// more concrete one; a root page named as a start page beats the docs'.
func TestRootReadmeFirst(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{{
		name: "README over AGENTS.md",
		files: map[string]string{
			"README.md": "# Lab\n\n```bash\nlab run spec.json spec_name train\n```\n",
			"AGENTS.md": "# Notes\n\n```bash\nuv run lab specs/ppo.json ppo_cartpole train\n```\n",
		},
		want: "lab run ",
	}, {
		name: "a root quick start over the docs' pages",
		files: map[string]string{
			"README.md":        "# Lab\n\nSee QUICKSTART.md.\n",
			"QUICKSTART.md":    "```bash\npython train.py --env CartPole-v1\n```\n",
			"docs/advanced.md": "```bash\npython train_dist.py --env CartPole-v1\n```\n",
		},
		want: "python train.py ",
	}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"pyproject.toml": "[project]\nname = \"lab\"\n[project.scripts]\nlab = \"lab.cli:main\"\n",
				"lab/cli.py":     "import gymnasium as gym\n\n\ndef main():\n    env = gym.make('CartPole-v1')\n    env.step(0)\n",
				"train.py":       "import argparse\nimport gymnasium as gym\np = argparse.ArgumentParser()\nargs = p.parse_args()\nenv = gym.make('x')\nenv.step(0)\nloss.backward()\n",
				"train_dist.py":  "import argparse\nimport gymnasium as gym\np = argparse.ArgumentParser()\nargs = p.parse_args()\nenv = gym.make('x')\nenv.step(0)\nloss.backward()\n",
			}
			for k, v := range c.files {
				files[k] = v
			}
			writeTree(t, dir, files)
			r, err := Run(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Adapter.Commands["train"]; !strings.HasPrefix(got, c.want) {
				t.Errorf("commands.train = %q, want it to start %q", got, c.want)
			}
		})
	}
}

// TestStartPageOverLinkedExample: of the pages the root README links to,
// the docs' quick start is the way in; an example's README it also
// links to comes after, however RL its name.
func TestStartPageOverLinkedExample(t *testing.T) {
	dir := t.TempDir()
	trainPy := "import argparse\nimport gymnasium as gym\np = argparse.ArgumentParser()\nargs = p.parse_args()\nenv = gym.make('x')\nenv.step(0)\nloss.backward()\n"
	writeTree(t, dir, map[string]string{
		"README.md": "# Lab\n\n- [Quick Start](./docs/get_started/quick_start.md)\n" +
			"- [`examples/agent_rl`](examples/agent_rl/README.md): an agent trained with RL\n",
		"docs/get_started/quick_start.md":   "```bash\nbash scripts/run-small.sh\n```\n",
		"examples/agent_rl/README.md":       "```bash\nbash examples/agent_rl/run_agent_rl.sh\n```\n",
		"scripts/run-small.sh":              "#!/bin/bash\npython3 train.py --lr 1e-3\n",
		"examples/agent_rl/run_agent_rl.sh": "#!/bin/bash\npython3 train.py --lr 1e-4\n",
		"train.py":                          trainPy,
	})
	r, err := Run(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Adapter.Commands["train"]; !strings.HasPrefix(got, "bash scripts/run-small.sh") {
		t.Errorf("commands.train = %q, want the quick start's bash scripts/run-small.sh", got)
	}
}
