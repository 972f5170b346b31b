package audit

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestValueOrValidation: "val" names a value function where the rest of
// the tag names a value update's statistic or a training step logs it,
// and validation where a validation pass measures it.
func TestValueOrValidation(t *testing.T) {
	src := "import wandb\n\n" +
		"class PPOTrainer:\n" +
		"    def train(self):\n" +
		"        metrics = {}\n" +
		"        metrics['policy/approxkl_avg'] = kl\n" +
		"        metrics['val/clipfrac_avg'] = vf_clipfrac\n" +
		"        metrics['val/ratio'] = ratio\n" +
		"        metrics['val/num_eos_tokens'] = n\n" +
		"        wandb.log(metrics)\n" +
		"        wandb.log({'train/loss': loss, 'val/loss': val_loss, 'val/accuracy': acc})\n\n" +
		"    def validate(self):\n" +
		"        wandb.log({'val/reward': r, 'val/ratio_var': rv})\n\n" +
		"    def evaluate(self):\n" +
		"        wandb.log({'eval/walltime': t, 'eval/return': ret})\n\n" +
		"def imag_loss(\n    act, rew,\n    horizon=333,\n):\n  metrics = {}\n  metrics['val'] = val.mean()\n  wandb.log(metrics)\n\n" +
		"wandb.log({'val/' + name: v for name, v in val_metrics.items()})\n"
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"train.py": src})
	r, err := Run(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tg := range r.Tags {
		got[tg.Tag] = tg.Role
	}
	want := map[string]string{
		"policy/approxkl_avg": "kl",
		"val/clipfrac_avg":    roleOther,
		"val/ratio":           roleOther,
		"val/num_eos_tokens":  roleOther,
		"train/loss":          "loss",
		"val/loss":            roleEval,
		"val/accuracy":        roleEval,
		"val/reward":          roleEval,
		"val/ratio_var":       roleEval,
		"eval/walltime":       roleOther,
		"eval/return":         roleEval,
		"val":                 roleOther,
		"val/*":               roleEval,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
}
