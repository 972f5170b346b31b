package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestVerifySources(t *testing.T) {
	root := t.TempDir()
	write := func(rel, data string) string {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256([]byte(data))
		return "sha256:" + hex.EncodeToString(s[:])
	}
	same := write("runs/a/eval.jsonl", "1\n")
	edited := write("runs/b/eval.jsonl", "2\n")
	gone := write("runs/c/eval.jsonl", "3\n")
	var fields map[string]any
	body := `{"experiment": "x", "sources": [
		{"seed": 0, "source": "eval", "path": "runs/a/eval.jsonl", "sha256": "` + same + `"},
		{"seed": 1, "source": "eval", "path": "runs/b/eval.jsonl", "sha256": "` + edited + `"},
		{"seed": 2, "source": "eval", "path": "runs/c/eval.jsonl", "sha256": "` + gone + `"}]}`
	if err := json.Unmarshal([]byte(body), &fields); err != nil {
		t.Fatal(err)
	}
	now := write("runs/b/eval.jsonl", "2.5\n")
	os.Remove(filepath.Join(root, "runs/c/eval.jsonl"))
	hash := func(path string) (string, error) {
		data, err := os.ReadFile(path)
		s := sha256.Sum256(data)
		return "sha256:" + hex.EncodeToString(s[:]), err
	}
	got := VerifySources([]Entry{{Seq: 3, Fields: fields}}, root, hash)
	want := []SourceCheck{
		{Seq: 3, Experiment: "x", Seed: 0, Source: "eval", Path: "runs/a/eval.jsonl", Recorded: same, Now: same, State: SourceUnchanged},
		{Seq: 3, Experiment: "x", Seed: 1, Source: "eval", Path: "runs/b/eval.jsonl", Recorded: edited, Now: now, State: SourceChanged},
		{Seq: 3, Experiment: "x", Seed: 2, Source: "eval", Path: "runs/c/eval.jsonl", Recorded: gone, State: SourceVanished},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
