package guard

import (
	"os"
	"path/filepath"
	"testing"
)

// benchCommand is a realistic agent command in the repository at root: a
// background launch with environment, redirections and a declared runner,
// next to harmless commands.
func benchCommand(root string) string {
	return `cd ` + root + ` && source .venv/bin/activate && CUDA_VISIBLE_DEVICES=0 nohup bash scripts/run.sh train configs/baseline.json --seed 0 --out runs/lr-3e-3/seed0 --set lr=0.003 > runs/lr-3e-3/seed0.log 2>&1 & echo started; tail -n 5 runs/lr-3e-3/seed0.log`
}

// BenchmarkDecide is the decision alone, with the example's adapter
// already compiled.
func BenchmarkDecide(b *testing.B) {
	p := NewPolicy(repo, cartpole())
	cmd := benchCommand(repo)
	for b.Loop() {
		if d := testGuard(repo, p).Decide(cmd, repo); !d.Deny {
			b.Fatal("allowed")
		}
	}
}

// BenchmarkCheck is everything 'rlxp guard' does after start-up: decode
// the payload, find the repository, read adapter.yaml, compile its
// templates and decide.
func BenchmarkCheck(b *testing.B) {
	root := b.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".rlxp"), 0o755); err != nil {
		b.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "drafts", "cartpole", "adapter.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".rlxp", "adapter.yaml"), src, 0o644); err != nil {
		b.Fatal(err)
	}
	payload := []byte(`{"session_id":"s","transcript_path":"/t.jsonl","cwd":"` + root + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + jsonEscape(benchCommand(root)) + `","description":"Start training"},"tool_use_id":"toolu_1"}`)
	for b.Loop() {
		g := &Guard{}
		if d := g.Check(payload, root); !d.Deny {
			b.Fatal("allowed")
		}
	}
}

func jsonEscape(s string) string { q := jsonString(s); return q[1 : len(q)-1] }
