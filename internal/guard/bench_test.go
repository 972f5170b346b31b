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

// BenchmarkFollow is a decision that reads the scripts a command runs
// from disk: the example's evaluation script, which imports five of the
// example's modules, run after sourcing a virtual environment's
// activate script.
func BenchmarkFollow(b *testing.B) {
	root := b.TempDir()
	if err := os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "examples", "cartpole"))); err != nil {
		b.Fatal(err)
	}
	activate := "# This file must be used with \"source bin/activate\"\ndeactivate () {\n    if [ -n \"${_OLD_VIRTUAL_PATH:-}\" ] ; then\n        PATH=\"${_OLD_VIRTUAL_PATH:-}\"\n        export PATH\n        unset _OLD_VIRTUAL_PATH\n    fi\n    hash -r 2> /dev/null\n}\ndeactivate nondestructive\nVIRTUAL_ENV=\"" + root + "/.venv\"\nexport VIRTUAL_ENV\n_OLD_VIRTUAL_PATH=\"$PATH\"\nPATH=\"$VIRTUAL_ENV/bin:$PATH\"\nexport PATH\n"
	for name, body := range map[string]string{".rlxp/adapter.yaml": "", ".venv/bin/activate": activate} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	p := NewPolicy(root, cartpole())
	cmd := "source .venv/bin/activate && python3 eval.py --checkpoint runs/a/policy.json --episodes 20"
	for b.Loop() {
		if d := testGuard(root, p).Decide(cmd, root); d.Deny {
			b.Fatal(d.Reason)
		}
	}
}
