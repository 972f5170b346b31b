package probe

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// recorded is the nvidia-smi output captured on an H200 host.
const recorded = "../../testdata/nvidia-smi"

// fakeHost replays canned command output and serves files from a directory
// standing in for /.
type fakeHost struct {
	root     string
	run      func(name string, args []string) (stdout, stderr []byte, err error)
	listen   func(network, address string) error
	statfs   func(path string) (uint64, uint64, error)
	uid, pid int
}

func (f *fakeHost) Run(ctx context.Context, name string, args ...string) ([]byte, []byte, error) {
	if f.run == nil {
		return nil, nil, fmt.Errorf("exec: %q: %w", name, exec.ErrNotFound)
	}
	return f.run(name, args)
}

func (f *fakeHost) path(p string) string { return filepath.Join(f.root, filepath.FromSlash(p)) }

func (f *fakeHost) ReadFile(p string) ([]byte, error) {
	if f.root == "" {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	return os.ReadFile(f.path(p))
}

func (f *fakeHost) ReadDir(p string) ([]fs.DirEntry, error) {
	if f.root == "" {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	return os.ReadDir(f.path(p))
}

func (f *fakeHost) Readlink(p string) (string, error) {
	if f.root == "" {
		return "", &fs.PathError{Op: "readlink", Path: p, Err: fs.ErrNotExist}
	}
	return os.Readlink(f.path(p))
}

func (f *fakeHost) Statfs(p string) (uint64, uint64, error) {
	if f.statfs == nil {
		return 0, 0, errors.New("no statfs")
	}
	return f.statfs(p)
}

func (f *fakeHost) Listen(network, address string) error {
	if f.listen == nil {
		return nil
	}
	return f.listen(network, address)
}

func (f *fakeHost) UID() int { return f.uid }
func (f *fakeHost) PID() int { return f.pid }

// replay answers the two nvidia-smi queries from a recorded directory.
func replay(t *testing.T, dir string) func(string, []string) ([]byte, []byte, error) {
	t.Helper()
	files := map[string][]byte{}
	for _, name := range []string{"query-gpu.csv", "query-apps.csv"} {
		data, err := os.ReadFile(filepath.Join(recorded, dir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = data
	}
	return func(name string, args []string) ([]byte, []byte, error) {
		if name != "nvidia-smi" || len(args) != 2 || args[1] != "--format=csv,noheader,nounits" {
			return nil, nil, fmt.Errorf("unexpected command %s %q", name, args)
		}
		switch {
		case strings.HasPrefix(args[0], "--query-gpu="):
			return files["query-gpu.csv"], nil, nil
		case strings.HasPrefix(args[0], "--query-compute-apps="):
			return files["query-apps.csv"], nil, nil
		}
		return nil, nil, fmt.Errorf("unexpected query %q", args[0])
	}
}

// procTree writes /proc/<pid>/status files under root.
func procTree(t *testing.T, root string, status map[int]string) {
	t.Helper()
	for pid, text := range status {
		dir := filepath.Join(root, "proc", fmt.Sprint(pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "status"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func status(name string, ppid, uid int) string {
	return fmt.Sprintf("Name:\t%s\nState:\tS (sleeping)\nPid:\t0\nPPid:\t%d\nUid:\t%d\t%d\t%d\t%d\n", name, ppid, uid, uid, uid, uid)
}

func write(t *testing.T, root, rel, text string) {
	t.Helper()
	mkdir(t, root, filepath.Dir(rel))
	if err := os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, root, rel string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(root, rel), 0o755); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, root, rel string) {
	t.Helper()
	if err := os.Symlink(target, filepath.Join(root, rel)); err != nil {
		t.Fatal(err)
	}
}
