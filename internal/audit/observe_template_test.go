package audit

import "testing"

// TestRunTemplate: the names a logger gives each run become patterns; the
// rest of a run's file is taken literally.
func TestRunTemplate(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"runs/a/progress.csv", "{run_dir}/progress.csv"},
		{"runs/a/logs/eval.jsonl", "{run_dir}/logs/eval.jsonl"},
		{"runs/a/PPO_1/events.out.tfevents.1700000000.host.123.0", "{run_dir}/PPO_1/events.out.tfevents.*"},
		{"runs/a/wandb/run-20240101_000000-abc123/run-abc123.wandb", "{run_dir}/wandb/*run-*/run-*.wandb"},
		{"runs/a/wandb/offline-run-20240101_000000-abc123/run-abc123.wandb", "{run_dir}/wandb/*run-*/run-*.wandb"},
		{"runs/a/odd[1]/eval.jsonl", `{run_dir}/odd\[1]/eval.jsonl`},
		{"elsewhere/eval.jsonl", "elsewhere/eval.jsonl"},
	} {
		if got := runTemplate("runs/a", c.file); got != c.want {
			t.Errorf("runTemplate(runs/a, %s) = %s, want %s", c.file, got, c.want)
		}
	}
}
