package state

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestValidID(t *testing.T) {
	for _, id := range []string{"a", "lr-3e-3", "A.b_c-1", strings.Repeat("x", 64)} {
		if err := ValidID(id); err != nil {
			t.Errorf("ValidID(%q) = %v", id, err)
		}
	}
	for _, id := range []string{"", ".", "..", "../x", "a/b", "a..b", ".hidden", "-flag", "sp ace", "x\x00", strings.Repeat("x", 65), "é"} {
		if err := ValidID(id); err == nil {
			t.Errorf("ValidID(%q) accepted", id)
		}
	}
}

func TestWriteFileLeavesNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	for _, content := range []string{"one", "two"} {
		if err := WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		if string(b) != content {
			t.Errorf("content = %q, want %q", b, content)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries, want 1 (temp files left behind?)", len(ents))
	}
	// A write into a missing directory fails and leaves nothing.
	if err := WriteFile(filepath.Join(dir, "missing", "f"), []byte("x"), 0o644); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

func TestLock(t *testing.T) {
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, DirName), 0o755)
	r, err := Open(root, root)
	if err != nil {
		t.Fatal(err)
	}
	l, err := r.Lock(time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// flock locks belong to the open file description, so a second open in
	// this process contends like another process would.
	_, err = r.Lock(50 * time.Millisecond)
	var le *LockedError
	if !errors.Is(err, ErrLocked) || !errors.As(err, &le) || !strings.HasPrefix(le.Holder, "pid ") {
		t.Fatalf("second lock = %v, want a LockedError naming the holder", err)
	}
	done := make(chan error)
	go func() {
		l2, err := r.Lock(5 * time.Second)
		if err == nil {
			l2.Unlock()
		}
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	l.Unlock()
	if err := <-done; err != nil {
		t.Errorf("waiting writer did not get the lock after release: %v", err)
	}
}

func TestReadMissing(t *testing.T) {
	root := t.TempDir()
	r, _ := Open(root, root)
	if _, err := r.Read(Contract); !errors.Is(err, ErrNotInitialized) {
		t.Errorf("Read without .rlxp = %v, want ErrNotInitialized", err)
	}
	os.Mkdir(r.Dir(), 0o755)
	if _, err := r.Read(Contract); err == nil || !strings.Contains(err.Error(), "file is missing") {
		t.Errorf("Read of a missing file = %v", err)
	}
}
