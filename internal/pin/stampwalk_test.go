package pin

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lines records what a walk writes to its hash.
type lines struct{ bytes.Buffer }

func (l *lines) Sum(b []byte) []byte { return append(b, l.Bytes()...) }
func (l *lines) Size() int           { return 0 }
func (l *lines) BlockSize() int      { return 1 }

// TestStampWalkerMatchesWalkDir: the system-call walk writes, line for line,
// what filepath.WalkDir's did, so that an approval stamped before keeps
// verifying: nested and empty directories, names that sort by byte
// (case, punctuation, UTF-8), __pycache__ and .git left out at any depth
// (a file of that name is not), the skipped directory, links to files and
// to directories (stamped, not followed), a named pipe, set-id and sticky
// modes, and a directory too large for one read of its entries.
func TestStampWalkerMatchesWalkDir(t *testing.T) {
	files := map[string]string{
		"a.py": "1", "B.py": "2", "a-b/c.py": "3", "a.b/d.py": "4", "é/ü.py": "5", "_x.py": "6",
		"pkg/__init__.py": "", "pkg/__pycache__/m.pyc": "c", "pkg/sub/__pycache__/n.pyc": "c",
		"pkg/sub/deep/x.so": "bin", ".git/HEAD": "ref", "pkg/.git/config": "x", "repo/code.py": "skip me",
		"pkg/notcache/__pycache__": "a file, not a directory",
	}
	for i := 0; i < 1500; i++ {
		files[fmt.Sprintf("big/%s%04d.py", strings.Repeat("long_module_name_", 4), i)] = "m"
	}
	root := writeTree(t, files)
	for _, d := range []string{"empty", "pkg/empty/inner"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"tofile": "a.py", "todir": "pkg", "dangling": "nowhere"} {
		if err := os.Symlink(to, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	for p, mode := range map[string]os.FileMode{"a.py": 0o755 | os.ModeSetuid, "B.py": 0o600 | os.ModeSetgid, "empty": 0o755 | os.ModeSticky} {
		if err := os.Chmod(filepath.Join(root, p), mode); err != nil {
			t.Fatal(err)
		}
	}
	skip := filepath.Join(root, "repo")
	var want, got lines
	var n1, n2 atomic.Int64
	if err := walkStamps(&want, root, skip, &n1); err != nil {
		t.Fatal(err)
	}
	// A walker that stamped another tree first, as stampAll's workers do.
	w := stampWalker{files: &n2}
	var first lines
	if err := w.dir(&first, filepath.Join(root, "pkg"), ""); err != nil {
		t.Fatal(err)
	}
	n2.Store(0)
	if err := w.dir(&got, root, skip); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.Split(want.String(), "\n"), strings.Split(got.String(), "\n")); diff != "" {
		t.Errorf("the walker's lines differ from WalkDir's (-want +got):\n%s", diff)
	}
	if n1.Load() != n2.Load() || n1.Load() < 1500 {
		t.Errorf("files counted: WalkDir %d, the walker %d", n1.Load(), n2.Load())
	}
	for _, left := range []string{"__pycache__/m.pyc", ".git/", "repo/code.py"} {
		if strings.Contains(got.String(), left) {
			t.Errorf("stamped %s, which is left out", left)
		}
	}
}

// TestStampWalkerLimit: a tree over the limit is an error, not a cut.
func TestStampWalkerLimit(t *testing.T) {
	root := writeTree(t, map[string]string{"a/b.py": "", "c.py": ""})
	var n atomic.Int64
	n.Store(stampLimit - 1)
	var h lines
	w := stampWalker{files: &n}
	if err := w.dir(&h, root, ""); err != errStampLimit {
		t.Errorf("the walker over the limit: %v, want errStampLimit", err)
	}
}
