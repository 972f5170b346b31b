package audit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/schema/validate"
)

// TestCartpole audits the bundled example and checks what an engineer
// reading it would find: the runner's train and eval subcommands wrapping
// train.py and eval.py, the held-out eval tags, the training tags, and an
// adapter draft equal to the hand-written one in examples/drafts.
func TestCartpole(t *testing.T) {
	root := filepath.Join("..", "..", "examples", "cartpole")
	r, err := Run(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var eps []string
	for _, e := range r.EntryPoints {
		eps = append(eps, e.Kind+": "+e.Command+" | "+e.Usage)
	}
	wantEps := []string{
		"train: bash scripts/run.sh train | bash scripts/run.sh train CONFIG [--seed N] [--out DIR] [--set KEY=VALUE ...]",
		"train: python train.py | python3 train.py --config configs/baseline.json --seed 0 --out runs/baseline/seed0 [--set KEY=VALUE ...]",
		"eval: bash scripts/run.sh eval | bash scripts/run.sh eval CHECKPOINT [--episodes N] [--seed-base B] [--out DIR]",
		"eval: python eval.py | python3 eval.py --checkpoint runs/baseline/seed0/policy.json --episodes 20 --seed-base 10000 --out runs/baseline/seed0",
		"other: python -m cartpole.preflight | python3 -m cartpole.preflight train --config CONFIG [--seed N] [--out DIR] [--set k=v ...]",
	}
	if diff := cmp.Diff(wantEps, eps); diff != "" {
		t.Errorf("entry points (-want +got):\n%s", diff)
	}
	if got := r.EntryPoints[0].Runs; !cmp.Equal(got, []string{"python3 -m cartpole.preflight", "python3 train.py"}) {
		t.Errorf("run.sh train runs %q", got)
	}

	tags := map[string]string{}
	for _, tg := range r.Tags {
		tags[tg.Tag] = tg.Role + " " + tg.Backend + " " + tg.Output
	}
	for tag, want := range map[string]string{
		"eval/mean_return":    "held_out_eval jsonl {run_dir}/eval.jsonl",
		"eval/mean_length":    "episode_length jsonl {run_dir}/eval.jsonl",
		"rollout/ep_rew_mean": "train_reward csv {run_dir}/progress.csv",
		"rollout/ep_len_mean": "episode_length csv {run_dir}/progress.csv",
		"train/entropy":       "entropy csv {run_dir}/progress.csv",
	} {
		if tags[tag] != want {
			t.Errorf("tag %s: %q, want %q", tag, tags[tag], want)
		}
	}
	if c := r.MetricCandidates[0]; c.Tag != "eval/mean_return" || c.Role != roleEval || c.Source != "eval" || c.Goal != "maximize" {
		t.Errorf("first metric candidate %+v, want eval/mean_return from source eval", c)
	}
	for _, c := range r.MetricCandidates {
		if c.Tag == "rollout/ep_rew_mean" && (c.Role != roleTrainReward || !strings.Contains(c.Note, "not held out")) {
			t.Errorf("rollout/ep_rew_mean is not flagged as training reward: %+v", c)
		}
	}

	var scope []string
	for _, p := range r.Scope {
		scope = append(scope, p.Name+"="+p.Value+" "+p.Evidence[0].String())
	}
	wantScope := []string{"lr=0.02 configs/baseline.json:2", "gamma=0.99 configs/baseline.json:3", "episodes=300 configs/baseline.json:4",
		"hidden=0 configs/baseline.json:5", "entropy_coef=0.0 configs/baseline.json:6", "max_steps=500 configs/baseline.json:7",
		"log_every=10 configs/baseline.json:8"}
	if diff := cmp.Diff(wantScope, scope); diff != "" {
		t.Errorf("scope candidates (-want +got):\n%s", diff)
	}

	// The draft matches examples/drafts/cartpole/adapter.yaml, except that
	// the hand-written train command also evaluates, and the draft
	// declares eval.csv too.
	want, err := os.ReadFile(filepath.Join("..", "..", "examples", "drafts", "cartpole", "adapter.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ref, err := adapter.Parse(validate.Schemas{}, "adapter.yaml", want)
	if err != nil {
		t.Fatal(err)
	}
	d := r.Adapter
	if got, want := d.Commands["preflight"], ref.Commands["preflight"]; got != want {
		t.Errorf("preflight %q, want %q", got, want)
	}
	if got, want := d.Commands["train"], strings.Split(ref.Commands["train"], " && ")[0]; got != want {
		t.Errorf("train %q, want %q", got, want)
	}
	if got := d.Commands["eval"]; got != "bash scripts/run.sh eval {run_dir}/policy.json --out {run_dir}" {
		t.Errorf("eval %q", got)
	}
	if d.Config.System != "json" || d.Config.Default != ref.Config.Default || d.Config.Override != ref.Config.Override {
		t.Errorf("config %+v, want json, %s, %s", d.Config, ref.Config.Default, ref.Config.Override)
	}
	for name, s := range ref.Metrics.Sources {
		if got := d.Sources[name]; got.Path != s.Path || got.Format != s.Format {
			t.Errorf("source %s: %+v, want %+v", name, got, s)
		}
	}
}
