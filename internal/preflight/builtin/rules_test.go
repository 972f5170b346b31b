package builtin

import (
	"context"
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
				{Level: preflight.Fatal, Rule: "overrides", Message: "override model.widht names no key of conf/config.yaml (closest: model.width)"},
				{Level: preflight.Fatal, Rule: "hydra-groups", Message: "config group optimizer has no option adamw (options: adam, sgd)"},
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
