package state

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFind(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Find(deep); got != "" {
		t.Fatalf("Find(%s) = %q before any .rlxp exists", deep, got)
	}
	if err := os.Mkdir(filepath.Join(root, DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{root, filepath.Join(root, "a"), deep, deep + "/../c/."} {
		if got := Find(dir); got != root {
			t.Errorf("Find(%s) = %q, want %q", dir, got, root)
		}
	}
	// The nearest wins, and a file named .rlxp is not a state directory.
	inner := filepath.Join(root, "a", "b")
	if err := os.Mkdir(filepath.Join(inner, DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Find(deep); got != inner {
		t.Errorf("Find(%s) = %q, want the nearer %q", deep, got, inner)
	}
	if err := os.WriteFile(filepath.Join(deep, DirName), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Find(deep); got != inner {
		t.Errorf("Find(%s) with a file named %s = %q, want %q", deep, DirName, got, inner)
	}
}
