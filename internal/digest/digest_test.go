package digest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func sum(data []byte) string {
	s := sha256.Sum256(data)
	return Prefix + hex.EncodeToString(s[:])
}

// settled writes a file whose last change is far enough in the past to
// be remembered.
func settled(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

func TestCacheHitAndChange(t *testing.T) {
	dir := t.TempDir()
	c := Open(filepath.Join(dir, "cache"))
	path := filepath.Join(dir, "eval.jsonl")
	settled(t, path, []byte("{\"step\": 1, \"r\": 1}\n"))
	var read bytes.Buffer
	got, err := c.File(path, &read)
	if err != nil || got != sum([]byte("{\"step\": 1, \"r\": 1}\n")) {
		t.Fatalf("first hash = %s, %v", got, err)
	}
	if read.Len() == 0 {
		t.Fatal("the first hash read nothing")
	}
	read.Reset()
	if again, err := c.File(path, &read); err != nil || again != got || read.Len() != 0 {
		t.Fatalf("re-hash of an unchanged file = %s, %v after reading %d bytes; want the cached digest, nothing read", again, err, read.Len())
	}

	// Same size, same mtime, other content: the change time gives it away.
	settled(t, path, []byte("{\"step\": 1, \"r\": 9}\n"))
	if changed, err := c.File(path, &read); err != nil || changed != sum([]byte("{\"step\": 1, \"r\": 9}\n")) {
		t.Fatalf("a changed file gave %s, %v", changed, err)
	}
}

func TestFreshFilesNotRemembered(t *testing.T) {
	dir := t.TempDir()
	c := Open(filepath.Join(dir, "cache"))
	path := filepath.Join(dir, "eval.jsonl")
	if err := os.WriteFile(path, []byte("1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.File(path, nil); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "cache")); len(ents) != 0 {
		t.Errorf("a file changed this instant was remembered: %v", ents)
	}
}

func TestDamagedEntryIsAMiss(t *testing.T) {
	dir := t.TempDir()
	c := Open(filepath.Join(dir, "cache"))
	path := filepath.Join(dir, "eval.jsonl")
	settled(t, path, []byte("abc\n"))
	want, _ := c.File(path, nil)
	fi, _ := os.Stat(path)
	key, _ := Stamp(fi)
	if err := os.WriteFile(c.entry(key), []byte(key+"\nsha256:00\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := c.File(path, nil); err != nil || got != want {
		t.Errorf("damaged entry: %s, %v; want %s", got, err, want)
	}
}

func TestNotRegular(t *testing.T) {
	if _, err := Open(t.TempDir()).File("/dev/null", nil); err == nil {
		t.Error("a device was hashed")
	}
}

func TestConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "eval.jsonl")
	data := bytes.Repeat([]byte("0123456789\n"), 10000)
	settled(t, path, data)
	want := sum(data)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := Open(filepath.Join(dir, "cache"))
			for range 20 {
				if got, err := c.File(path, nil); err != nil || got != want {
					t.Errorf("concurrent hash = %s, %v", got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestPathDirectory(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "mlruns", "0", "abc")
	os.MkdirAll(filepath.Join(run, "metrics"), 0o755)
	settled(t, filepath.Join(run, "metrics", "loss"), []byte("1 0.5 0\n"))
	c := Open(filepath.Join(dir, "cache"))
	a, err := c.Path(run, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := (*Cache)(nil).Path(run, nil)
	if err != nil || a != b {
		t.Errorf("directory digest cached %s, uncached %s (%v)", a, b, err)
	}
}

// BenchmarkCacheHit is the re-score path: a stat, a cache read, no hash.
func BenchmarkCacheHit(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "eval.jsonl")
	data := bytes.Repeat([]byte("{\"step\": 1, \"eval/mean_return\": 1.5}\n"), 1<<16)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path, old, old)
	c := Open(filepath.Join(dir, "cache"))
	want, _ := c.File(path, nil)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		if got, err := c.File(path, nil); err != nil || got != want {
			b.Fatal(got, err)
		}
	}
}

// BenchmarkMiss is the first score's hash of the same file.
func BenchmarkMiss(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "eval.jsonl")
	data := bytes.Repeat([]byte("{\"step\": 1, \"eval/mean_return\": 1.5}\n"), 1<<16)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for range b.N {
		if _, err := (*Cache)(nil).File(path, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestStoreLookup checks data kept beside a file's identity: found while
// the file is unchanged, under its own name only; never for a file that
// changed while it was read, one changed since, or one too fresh to tell.
func TestStoreLookup(t *testing.T) {
	dir := t.TempDir()
	c := Open(filepath.Join(dir, "cache"))
	path := filepath.Join(dir, "eval.jsonl")
	settled(t, path, []byte("{\"r\": 1}\n"))
	stat := func() os.FileInfo {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	before := stat()
	c.Store(before, stat(), "aggregates x", []byte("r=1\n"))
	if got, ok := c.Lookup(stat(), "aggregates x"); !ok || string(got) != "r=1\n" {
		t.Fatalf("lookup = %q, %v; want the stored data", got, ok)
	}
	if got, ok := c.Lookup(stat(), "aggregates y"); ok {
		t.Fatalf("another name found %q", got)
	}
	if _, ok := c.Lookup(stat(), "two\nlines"); ok {
		t.Fatal("a name with a newline found an entry")
	}

	// Changed while being read: not stored.
	settled(t, path, []byte("{\"r\": 2}\n"))
	during := stat()
	settled(t, path, []byte("{\"r\": 3}\n"))
	c.Store(during, stat(), "aggregates x", []byte("r=2\n"))
	if got, ok := c.Lookup(stat(), "aggregates x"); ok {
		t.Fatalf("a file changed during its read found %q", got)
	}
	// Changed since it was stored: a miss, same size and mtime as before.
	settled(t, path, []byte("{\"r\": 3}\n"))
	c.Store(stat(), stat(), "aggregates x", []byte("r=3\n"))
	settled(t, path, []byte("{\"r\": 4}\n"))
	if got, ok := c.Lookup(stat(), "aggregates x"); ok {
		t.Fatalf("a changed file found %q", got)
	}
	// Fresh: a write in the same clock tick would not show; not stored.
	if err := os.WriteFile(path, []byte("{\"r\": 5}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Store(stat(), stat(), "aggregates x", []byte("r=5\n"))
	if got, ok := c.Lookup(stat(), "aggregates x"); ok {
		t.Fatalf("a fresh file found %q", got)
	}
	var none *Cache
	none.Store(stat(), stat(), "aggregates x", nil)
	if _, ok := none.Lookup(stat(), "aggregates x"); ok {
		t.Fatal("a nil cache found an entry")
	}
}
