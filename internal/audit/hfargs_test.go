package audit

import (
	"context"
	"testing"
)

// TestHFInheritedOptions: a script that parses transformers' or TRL's
// argument classes, directly, through a dataclass of its own extending
// one, or behind a console script's subcommand, takes --seed and
// --output_dir from the library; a repository's own PPOConfig gives none.
func TestHFInheritedOptions(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{{
		name: "HfArgumentParser of TrainingArguments",
		files: map[string]string{
			"README.md": "```bash\npython train.py --model_name_or_path gpt2 --output_dir out\n```\n",
			"train.py": "from dataclasses import dataclass\nfrom transformers import HfArgumentParser, TrainingArguments, Trainer\n\n" +
				"@dataclass\nclass ModelArguments:\n    model_name_or_path: str = 'gpt2'\n\n" +
				"if __name__ == '__main__':\n    model_args, training_args = HfArgumentParser((ModelArguments, TrainingArguments)).parse_args_into_dataclasses()\n" +
				"    Trainer(args=training_args).train()\n",
		},
		want: "python train.py --model_name_or_path gpt2 --output_dir {run_dir} --seed {seed} {params}",
	}, {
		name: "a dataclass of its own extending trl.GRPOConfig",
		files: map[string]string{
			"README.md":           "```bash\naccelerate launch src/pkg/grpo.py --config recipes/grpo.yaml\n```\n",
			"recipes/grpo.yaml":   "learning_rate: 1.0e-6\n",
			"src/pkg/__init__.py": "",
			"src/pkg/configs.py": "from dataclasses import dataclass, field\nimport trl\n\n" +
				"@dataclass\nclass GRPOConfig(trl.GRPOConfig):\n    benchmarks: list = field(default_factory=list)\n",
			"src/pkg/grpo.py": "from pkg.configs import GRPOConfig\nfrom trl import GRPOTrainer, TrlParser\n\n" +
				"def main(args):\n    GRPOTrainer(args=args).train()\n\n" +
				"if __name__ == '__main__':\n    parser = TrlParser((GRPOConfig,))\n    main(parser.parse_args_and_config()[0])\n",
		},
		want: "accelerate launch src/pkg/grpo.py --config {config} --seed {seed} --output_dir {run_dir} {params}",
	}, {
		name: "a console script's subcommand runs its package's script",
		files: map[string]string{
			"pyproject.toml":    "[project]\nname = \"mypkg\"\n\n[project.scripts]\nmycli = \"mypkg.cli.main:main\"\n",
			"README.md":         "Train with DPO:\n\n```bash\nmycli dpo --model_name_or_path gpt2 --dataset_name prefs\n```\n",
			"mypkg/__init__.py": "",
			"mypkg/cli/main.py": "import importlib, sys\n\ndef main():\n    importlib.import_module('mypkg.scripts.' + sys.argv[1]).main()\n",
			"mypkg/scripts/dpo.py": "def make_parser():\n    from trl import DPOConfig, TrlParser\n    return TrlParser((DPOConfig,))\n\n" +
				"def main():\n    from trl import DPOTrainer\n    DPOTrainer(args=make_parser().parse_args_and_config()[0]).train()\n\n" +
				"if __name__ == '__main__':\n    main()\n",
		},
		want: "mycli dpo --model_name_or_path gpt2 --dataset_name prefs --seed {seed} --output_dir {run_dir} {params}",
	}, {
		name: "a repository's own PPOConfig is not TRL's",
		files: map[string]string{
			"README.md": "```bash\npython train.py --lr 0.1\n```\n",
			"config.py": "from dataclasses import dataclass\n\n@dataclass\nclass PPOConfig:\n    lr: float = 0.1\n",
			"train.py": "from dataclasses import dataclass\nimport gymnasium as gym\nimport tyro\nfrom config import PPOConfig\n\n" +
				"@dataclass\nclass Args(PPOConfig):\n    env_id: str = 'CartPole-v1'\n\n" +
				"if __name__ == '__main__':\n    args = tyro.cli(Args)\n    env = gym.make(args.env_id)\n    loss.backward()\n",
		},
		want: "python train.py --lr 0.1 {params}",
	}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, c.files)
			r, err := Run(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Adapter.Commands["train"]; got != c.want {
				t.Errorf("commands.train = %q, want %q", got, c.want)
			}
		})
	}
}
