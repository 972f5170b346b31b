package builtin

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/preflight"
)

func TestRunRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		in    Input
		rules []string
		want  []Finding
	}{
		{
			name: "hydra: a group option that does not exist, a key the config does not have",
			files: map[string]string{
				"train.py":                 "import hydra\n\n@hydra.main(config_path=\"conf\", config_name=\"config\")\ndef main(cfg):\n    pass\n",
				"conf/config.yaml":         "defaults:\n  - optimizer: sgd\nlr: 0.1\nmodel:\n  width: 64\n",
				"conf/optimizer/sgd.yaml":  "momentum: 0.9\n",
				"conf/optimizer/adam.yaml": "beta1: 0.9\n",
			},
			in:    Input{Command: "python3 train.py optimizer=adamw lr=0.2 model.width=32 model.widht=3"},
			rules: []string{"overrides", "hydra-groups"},
			want: []Finding{
				{Level: preflight.Fatal, Rule: "overrides", Message: "override model.widht names no key of conf/config.yaml and its defaults' YAML (Hydra is not importable in python3) (closest: model.width)"},
				{Level: preflight.Fatal, Rule: "hydra-groups", Message: "config group optimizer has no option adamw (options: adam, sgd)"},
			},
		},
		{
			name: "hydra without Hydra: keys of the group option the command chooses",
			files: map[string]string{
				"train.py":                 "import hydra\n\n@hydra.main(config_path=\"conf\", config_name=\"config\")\ndef main(cfg):\n    pass\n",
				"conf/config.yaml":         "defaults:\n  - optimizer: sgd\n  - _self_\nlr: 0.1\n",
				"conf/optimizer/sgd.yaml":  "momentum: 0.9\n",
				"conf/optimizer/adam.yaml": "beta1: 0.9\n",
			},
			in:    Input{Command: "python3 train.py optimizer=adam optimizer.beta1=0.8 optimizer.momentum=0.5 lr=0.2"},
			rules: []string{"overrides", "hydra-groups"},
			want: []Finding{
				{Level: preflight.Fatal, Rule: "overrides", Message: "override optimizer.momentum names no key of conf/config.yaml and its defaults' YAML (Hydra is not importable in python3) (closest: optimizer.beta1)"},
				{Level: preflight.OK, Rule: "hydra-groups", Message: "config group optimizer has option adam"},
			},
		},
		{
			name:  "held-out seed, GPUs asked by the launcher",
			files: map[string]string{"train.py": "import argparse\np = argparse.ArgumentParser()\np.add_argument('--seed')\n"},
			in:    Input{Command: "torchrun --nproc_per_node=4 train.py --seed 10000", Seed: 10000, HeldOut: []int{10000, 10001}, GPUsPerRun: 2},
			rules: []string{"seed", "gpus", "options"},
			want: []Finding{
				{Level: preflight.OK, Rule: "options", Message: "every option given to train.py is one it reads (argparse, read from its parser definitions)"},
				{Level: preflight.Fatal, Rule: "seed", Message: "seed 10000 is one of the held-out evaluation seeds [10000 10001]"},
				{Level: preflight.Fatal, Rule: "gpus", Message: "torchrun asks for 4 processes (one per GPU); the contract approves 2 GPUs per run"},
			},
		},
		{
			name:  "verl: nodes, GPUs per node and parallel sizes against the contract",
			files: map[string]string{},
			in: Input{Command: "python3 -m verl.trainer.main_ppo trainer.nnodes=2 rollout.nnodes=1 trainer.n_gpus_per_node=4 " +
				"actor_rollout_ref.rollout.tensor_model_parallel_size=8 actor_rollout_ref.actor.ulysses_sequence_parallel_size=3", GPUsPerRun: 4, Nodes: 2},
			rules: []string{"verl-topology"},
			want: []Finding{
				{Level: preflight.Fatal, Rule: "verl-topology", Message: "verl: trainer.nnodes=2 + rollout.nnodes=1 asks for 3 nodes; the contract approves 2"},
				{Level: preflight.Fatal, Rule: "verl-topology", Message: "verl: actor_rollout_ref.actor.ulysses_sequence_parallel_size=3 does not divide the train world of 8 GPUs (2 nodes × 4)"},
				{Level: preflight.Warn, Rule: "verl-topology", Message: "verl: actor_rollout_ref.rollout.tensor_model_parallel_size=8 spans nodes (4 GPUs per node): tensor parallelism across nodes is slow"},
			},
		},
		{
			name:  "verl: a topology the contract approves",
			files: map[string]string{},
			in:    Input{Command: "python3 -m verl.trainer.main_ppo trainer.nnodes=2 trainer.n_gpus_per_node=8 actor_rollout_ref.actor.ulysses_sequence_parallel_size=4", GPUsPerRun: 8, Nodes: 2},
			rules: []string{"verl-topology"},
			want:  []Finding{{Level: preflight.OK, Rule: "verl-topology", Message: "verl: trainer.nnodes=2 × 8 GPUs per node as the contract approves; parallel sizes divide the world of 16"}},
		},
		{
			name: "rsl_rl: a task the repository does not register",
			files: map[string]string{
				"train.py":          "import argparse\nimport rsl_rl\np = argparse.ArgumentParser()\np.add_argument('--task')\n",
				"tasks/__init__.py": "import gymnasium as gym\n\ngym.register(\n    id=\"Isaac-Velocity-Flat-Anymal-C-v0\",\n    entry_point=\"x:y\",\n)\ngym.register(id='Isaac-Velocity-Rough-Anymal-C-v0', entry_point='x:y')\n",
			},
			in:    Input{Command: "python3 train.py --task Isaac-Velocity-Flat-Anymal-v0"},
			rules: []string{"task"},
			want:  []Finding{{Level: preflight.Fatal, Rule: "task", Message: "task Isaac-Velocity-Flat-Anymal-v0 is not registered in the repository (closest: Isaac-Velocity-Flat-Anymal-C-v0)"}},
		},
		{
			name: "sb3 zoo: an env without an entry, a key PPO does not take",
			files: map[string]string{
				"train.py":            "import argparse\np = argparse.ArgumentParser()\np.add_argument('--algo')\np.add_argument('--env')\np.add_argument('--hyperparams', nargs='+')\n",
				"hyperparams/ppo.yml": "CartPole-v1:\n  n_envs: 8\n  n_timesteps: !!float 1e5\n  policy: 'MlpPolicy'\n  n_steps: 32\n  learning_rate: lin_0.001\n  clip_rnage: 0.2\n",
				"hyperparams/dqn.yml": "CartPole-v1:\n  policy: MlpPolicy\n",
			},
			in:    Input{Command: "python3 train.py --algo ppo --env CartPole-v1 --hyperparams n_epochs:5 gae_lamda:0.9 && python3 train.py --algo ppo --env Acrobot-v1 && python3 train.py --algo pp --env CartPole-v1"},
			rules: []string{"sb3-zoo"},
			want: []Finding{
				{Level: preflight.Fatal, Rule: "sb3-zoo", Message: "sb3 zoo: hyperparams/ppo.yml for CartPole-v1 sets clip_rnage, which neither the zoo nor PPO reads (closest: clip_range)"},
				{Level: preflight.Fatal, Rule: "sb3-zoo", Message: "sb3 zoo: hyperparams/ppo.yml for CartPole-v1 sets gae_lamda, which neither the zoo nor PPO reads (closest: gae_lambda)"},
				{Level: preflight.Fatal, Rule: "sb3-zoo", Message: "sb3 zoo: hyperparams/ppo.yml has no entry for Acrobot-v1 (closest: CartPole-v1)"},
				{Level: preflight.Fatal, Rule: "sb3-zoo", Message: "sb3 zoo: --algo pp has no hyperparams/pp.yml (closest: ppo)"},
			},
		},
		{
			name: "hydra without Hydra: verl's defaults at packages ('@'), nested, with groups beside them ('../')",
			files: map[string]string{
				"main_ppo.py": "import hydra\n\n@hydra.main(config_path=\"config\", config_name=\"ppo_trainer\")\ndef main(cfg):\n    pass\n",
				"config/ppo_trainer.yaml": "defaults:\n  - actor@actor_rollout_ref.actor: dp_actor\n  - data@data: legacy_data\n  - reward_manager@reward_manager\n  - _self_\n" +
					"trainer:\n  nnodes: 1\n",
				"config/actor/dp_actor.yaml":   "defaults:\n  - ../optim@optim: fsdp\n  - actor\n  - _self_\nstrategy: fsdp\n",
				"config/actor/actor.yaml":      "ppo_mini_batch_size: 256\n",
				"config/optim/fsdp.yaml":       "lr: 1e-6\n",
				"config/data/legacy_data.yaml": "train_batch_size: 1024\nseed: 1\n",
				"config/reward_manager.yaml":   "name: naive\n",
			},
			in: Input{Command: "python3 main_ppo.py data.seed=0 actor_rollout_ref.actor.optim.lr=1e-5 actor_rollout_ref.actor.ppo_mini_batch_size=64 " +
				"actor_rollout_ref.actor.strategy=fsdp2 reward_manager.name=x trainer.nnodes=1 actor_rollout_ref.actor.optim.lrr=1"},
			rules: []string{"overrides"},
			want: []Finding{
				{Level: preflight.Fatal, Rule: "overrides", Message: "override actor_rollout_ref.actor.optim.lrr names no key of config/ppo_trainer.yaml and its defaults' YAML (Hydra is not importable in python3) (closest: actor_rollout_ref.actor.optim.lr)"},
			},
		},
		{
			name: "a YAML slip in the zoo's hyperparameters or the config: one line at the slip",
			files: map[string]string{
				"train.py":            "import argparse\np = argparse.ArgumentParser()\np.add_argument('--algo')\np.add_argument('--env')\np.add_argument('--conf')\n",
				"hyperparams/ppo.yml": "CartPole-v1:\n  n_envs: 8\n   n_steps: 32\n",
				"conf.yaml":           "lr: 0.1\nmodel\n  width: 3\n",
			},
			in:    Input{Command: "python3 train.py --algo ppo --env CartPole-v1 --conf conf.yaml", Config: "conf.yaml"},
			rules: []string{"sb3-zoo", "paths"},
			want: []Finding{
				{Level: preflight.Fatal, Rule: "paths", Message: `config does not parse: conf.yaml:2:1: "model" is not a 'key: value' pair: a ':' is missing after "model"`},
				{Level: preflight.Fatal, Rule: "sb3-zoo", Message: `sb3 zoo: hyperparams/ppo.yml:3:4: "n_steps: 32" is indented more than "n_envs: 8" on line 2, which already has a value: align it with the keys above (2 spaces), or nest it under a key that has no value`},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			in.Root = repo(t, tc.files)
			in.Live = true
			r, err := Run(context.Background(), in, Profiles()...)
			if err != nil {
				t.Fatal(err)
			}
			var got []Finding
			for _, f := range r.Findings {
				if slices.Contains(tc.rules, f.Rule) {
					got = append(got, f)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// The reader compiles entry points and never runs the repository's code:
// modules at the repository's top that share a name with the standard
// library ones it uses must not be imported in their place.
func TestReadingImportsNothingFromTheRepository(t *testing.T) {
	files := map[string]string{
		"train.py": "import argparse\np = argparse.ArgumentParser()\np.add_argument('--seed')\n",
	}
	for _, m := range []string{"json", "ast", "inspect", "importlib"} {
		files[m+".py"] = "open('imported-" + m + "', 'w').write('ran')\n"
	}
	in := Input{Root: repo(t, files), Command: "python3 train.py --seed 1"}
	r, err := Run(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	var options []Finding
	for _, f := range r.Findings {
		if f.Rule == "options" {
			options = append(options, f)
		}
	}
	want := []Finding{{Level: preflight.OK, Rule: "options", Message: "every option given to train.py is one it reads (argparse, read from its parser definitions)"}}
	if diff := cmp.Diff(want, options); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	ran, err := filepath.Glob(filepath.Join(in.Root, "imported-*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ran) != 0 {
		t.Errorf("the repository's modules ran while reading it: %v", ran)
	}
}

// A command that does not name its run directory writes its files where a
// later run of the experiment finds them: a warning, beside the run-dir
// rule's own findings.
func TestRunDirNotNamed(t *testing.T) {
	root := repo(t, map[string]string{"train.py": "import argparse\np = argparse.ArgumentParser()\np.add_argument('--seed')\n"})
	want := Finding{Level: preflight.Warn, Rule: "run-dir", Message: "the command does not name its run directory runs/a/seed0: the program writes elsewhere, where a later run finds this one's files; pass {run_dir} with its output option if it has one"}
	for _, tc := range []struct {
		cmd  string
		warn bool
	}{{"python3 train.py --seed 0", true}, {"python3 train.py --seed 0 --out runs/a/seed0", false}} {
		r, err := Run(context.Background(), Input{Root: root, Command: tc.cmd, RunDir: "runs/a/seed0", Live: true}, Profiles()...)
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(r.Findings, want); got != tc.warn {
			t.Errorf("%s: warned %v, want %v (%v)", tc.cmd, got, tc.warn, r.Findings)
		}
	}
}
