package adapter

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMatchFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{
		"one/events.out.tfevents.1700000000.host.123.0",
		"two/events.out.tfevents.1700000000.host.123.0",
		"two/events.out.tfevents.1700000500.host.456.0",
		"profiled/events.out.tfevents.1700000000.host.123.0",
		"profiled/events.out.tfevents.1700000000.host.profile-empty",
		"runs/CartPole-v1__ppo__1__1700000000/eval.jsonl",
		"odd[1]/eval.jsonl",
	} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A directory matching the pattern is not a file of it.
	if err := os.MkdirAll(filepath.Join(dir, "one/events.out.tfevents.dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("events.out.tfevents.1700000000.host.123.0", filepath.Join(dir, "one/link")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pattern string
		want    []string
	}{
		{"one/events.out.tfevents.*", []string{"one/events.out.tfevents.1700000000.host.123.0"}},
		{"two/events.out.tfevents.*", []string{"two/events.out.tfevents.1700000000.host.123.0", "two/events.out.tfevents.1700000500.host.456.0"}},
		// A profiler's file matches TensorBoard's pattern: excluded only by a narrower one.
		{"profiled/events.out.tfevents.*", []string{"profiled/events.out.tfevents.1700000000.host.123.0", "profiled/events.out.tfevents.1700000000.host.profile-empty"}},
		{"profiled/events.out.tfevents.*[^y]", []string{"profiled/events.out.tfevents.1700000000.host.123.0"}},
		{"runs/*__1__*/eval.jsonl", []string{"runs/CartPole-v1__ppo__1__1700000000/eval.jsonl"}},
		{"runs/*__2__*/eval.jsonl", nil},
		{"one/l?nk", []string{"one/link"}},
		{QuoteMeta("odd[1]") + "/*.jsonl", []string{"odd[1]/eval.jsonl"}},
		{"odd[1]/*.jsonl", nil},
	}
	for _, tt := range tests {
		got, err := MatchFiles(filepath.Join(QuoteMeta(dir), tt.pattern))
		if err != nil {
			t.Errorf("MatchFiles(%q): %v", tt.pattern, err)
			continue
		}
		for i, g := range got {
			got[i], _ = filepath.Rel(dir, g)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("MatchFiles(%q) (-want +got):\n%s", tt.pattern, diff)
		}
	}
	if _, err := MatchFiles(filepath.Join(dir, "[")); err == nil {
		t.Error("MatchFiles of a malformed pattern: no error")
	}
}

func TestIsPattern(t *testing.T) {
	got := map[string]bool{}
	for _, p := range []string{"{run_dir}/eval.jsonl", "{run_dir}/events.out.tfevents.*", "{run_dir}/seed?.csv", "{run_dir}/[ab].csv"} {
		got[p] = IsPattern(p)
	}
	want := map[string]bool{"{run_dir}/eval.jsonl": false, "{run_dir}/events.out.tfevents.*": true, "{run_dir}/seed?.csv": true, "{run_dir}/[ab].csv": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("IsPattern (-want +got):\n%s", diff)
	}
}
