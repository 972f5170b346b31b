//go:build linux

package launch

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// tree writes files under a new directory and returns it.
func tree(t testing.TB, files ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x = 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestWatchSeesEditsUndone: an edit of a pinned file made while the run
// runs and undone before it ends leaves nothing for the pin recomputed at
// the end to find; the watch names it. Files nobody pinned (the run's
// outputs, byte code) are not named.
func TestWatchSeesEditsUndone(t *testing.T) {
	for _, tc := range []struct {
		name string
		act  func(root string) error
		want []string
	}{
		{"a write undone", func(root string) error {
			p := filepath.Join(root, "train.py")
			old, _ := os.ReadFile(p)
			if err := os.WriteFile(p, []byte("x = 2\n"), 0o644); err != nil {
				return err
			}
			return os.WriteFile(p, old, 0o644)
		}, []string{"train.py: written while the run ran"}},
		{"a rename over it and back", func(root string) error {
			p := filepath.Join(root, "pkg", "model.py")
			if err := os.Rename(p, p+".orig"); err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte("evil\n"), 0o644); err != nil {
				return err
			}
			return os.Rename(p+".orig", p)
		}, []string{"pkg/model.py: renamed away while the run ran"}},
		{"a deleted and recreated config", func(root string) error {
			p := filepath.Join(root, "configs", "base.json")
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.WriteFile(p, []byte("x = 1\n"), 0o644)
		}, []string{"configs/base.json: deleted while the run ran"}},
		{"a pinned directory moved away and back", func(root string) error {
			p := filepath.Join(root, "pkg")
			if err := os.Rename(p, p+".bak"); err != nil {
				return err
			}
			return os.Rename(p+".bak", p)
		}, []string{"pkg: renamed away while the run ran"}},
		{"outputs and byte code", func(root string) error {
			if err := os.MkdirAll(filepath.Join(root, "pkg", "__pycache__"), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(root, "pkg", "__pycache__", "model.pyc"), nil, 0o644); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(root, "out.log"), []byte("step 1\n"), 0o644)
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := tree(t, "train.py", "pkg/model.py", "configs/base.json")
			w := watchFiles(root, []string{filepath.Join(root, "train.py"), filepath.Join(root, "pkg/model.py"), filepath.Join(root, "configs/base.json")}, 100)
			defer w.close()
			if w.note != "" {
				t.Fatalf("not watching: %s", w.note)
			}
			from := time.Now()
			if err := tc.act(root); err != nil {
				t.Fatal(err)
			}
			got, _ := w.since(from)
			for i, g := range got {
				got[i], _, _ = strings.Cut(g, " (at ")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("since (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWatchCreatedAndGone: a name created beside the pinned files and
// removed before the end is handed back to be checked (the pin decides
// whether it would have covered it); one that stayed is the end's
// recomputation's to find.
func TestWatchCreatedAndGone(t *testing.T) {
	root := tree(t, "train.py")
	w := watchFiles(root, []string{filepath.Join(root, "train.py")}, 10)
	defer w.close()
	from := time.Now()
	shadow, kept := filepath.Join(root, "torch.py"), filepath.Join(root, "out.log")
	for _, p := range []string{shadow, kept} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(shadow); err != nil {
		t.Fatal(err)
	}
	changed, gone := w.since(from)
	var paths []string
	for _, g := range gone {
		paths = append(paths, g.path)
	}
	if changed != nil || !cmp.Equal(paths, []string{shadow}) {
		t.Errorf("since: changed %q, gone %q; want nothing changed and %s gone", changed, paths, shadow)
	}
}

// TestWatchBound: more directories than the bound are not watched, and
// the watch says so instead of claiming to see.
func TestWatchBound(t *testing.T) {
	var files []string
	for i := range 5 {
		files = append(files, fmt.Sprintf("d%d/f.py", i))
	}
	root := tree(t, files...)
	var abs []string
	for _, f := range files {
		abs = append(abs, filepath.Join(root, f))
	}
	w := watchFiles(root, abs, 3)
	defer w.close()
	if want := "not watched: the 5 pinned files lie in 5 directories, over the bound of 3 watches"; !strings.HasPrefix(w.note, want) {
		t.Errorf("note %q, want it to start %q", w.note, want)
	}
	if err := os.WriteFile(abs[0], []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, gone := w.since(time.Time{}); got != nil || gone != nil {
		t.Errorf("an unwatched tree reported %q", got)
	}
}

// BenchmarkWatch measures setting up the watch of a repository of 5,000
// pinned files in 250 directories and taking it down.
func BenchmarkWatch(b *testing.B) {
	var files []string
	for d := range 250 {
		for f := range 20 {
			files = append(files, fmt.Sprintf("pkg%d/sub/m%d.py", d, f))
		}
	}
	root := tree(b, files...)
	var abs []string
	for _, f := range files {
		abs = append(abs, filepath.Join(root, f))
	}
	b.ResetTimer()
	for range b.N {
		w := watchFiles(root, abs, 8192)
		if w.note != "" {
			b.Fatal(w.note)
		}
		w.close()
	}
}

// BenchmarkWriteBesidePinned measures what the watch costs a run that
// writes often beside pinned files (a log in the repository's root): each
// op appends a line to a file in a directory that holds pinned files,
// with the watch reading every event and without a watch.
func BenchmarkWriteBesidePinned(b *testing.B) {
	for _, watched := range []bool{false, true} {
		b.Run(map[bool]string{false: "unwatched", true: "watched"}[watched], func(b *testing.B) {
			root := tree(b, "train.py")
			if watched {
				w := watchFiles(root, []string{filepath.Join(root, "train.py")}, 10)
				defer w.close()
			}
			f, err := os.OpenFile(filepath.Join(root, "train.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			line := []byte("step 1 loss 0.5 reward 100 ...................................................\n")
			b.ResetTimer()
			for range b.N {
				if _, err := f.Write(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
