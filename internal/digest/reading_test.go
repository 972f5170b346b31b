package digest

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// borrow reads a Reading's file the way one of the readers does, and
// returns what it read, in file order.
type borrow func(r *Reading, size int64) ([]byte, error)

func sequential(r *Reading, _ int64) ([]byte, error) {
	var out bytes.Buffer
	l := r.Lend()
	buf := make([]byte, 1000)
	for {
		n, err := l.Read(buf[:1+rand.IntN(len(buf))])
		out.Write(buf[:n])
		if err == io.EOF {
			return out.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// chunked reads as the parallel line reader does: workers take chunks in
// order, each with the byte before and a lookahead after it.
func chunked(r *Reading, size int64) ([]byte, error) {
	const chunk, workers = 3000, 4
	chunks := (size + chunk - 1) / chunk
	out := make([]byte, size)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= chunks {
					return
				}
				from, to := max(i*chunk-1, 0), min(i*chunk+chunk+700, size)
				buf := make([]byte, to-from)
				if n, err := r.ReadAt(buf, from); int64(n) != to-from || err != nil && err != io.EOF {
					errs <- err
					return
				}
				copy(out[i*chunk:min(i*chunk+chunk, size)], buf[i*chunk-from:])
			}
		}()
	}
	wg.Wait()
	close(errs)
	return out, <-errs
}

// tailFirst reads the end first (as a text reader finds its last line)
// then the whole file twice (as a binary reader scans, then decodes).
func tailFirst(r *Reading, size int64) ([]byte, error) {
	tail := make([]byte, min(size, 100))
	if _, err := r.ReadAt(tail, size-int64(len(tail))); err != nil && err != io.EOF {
		return nil, err
	}
	first, err := sequential(r, size)
	if err != nil || !bytes.Equal(first[len(first)-len(tail):], tail) {
		return nil, err
	}
	return sequential(r, size)
}

func random(r *Reading, size int64) ([]byte, error) {
	out := make([]byte, size)
	for range 200 {
		off := rand.Int64N(size + 1)
		n, err := r.ReadAt(out[off:min(off+rand.Int64N(20000), size)], off)
		if err != nil && err != io.EOF || n < 0 {
			return nil, err
		}
	}
	if _, err := r.ReadAt(out, 0); err != nil && err != io.EOF {
		return nil, err
	}
	return out, nil
}

// TestReadingLends checks that the digest and every borrower's bytes are
// the file's, whatever the block size, the file's size and the order in
// which the borrower asks.
func TestReadingLends(t *testing.T) {
	dir := t.TempDir()
	patterns := map[string]borrow{"sequential": sequential, "chunked": chunked, "tail first": tailFirst, "random": random}
	for _, size := range []int64{1, 5, 4096, 4097, 5000, 100_000, 2_000_001} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(rand.IntN(256))
		}
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, bs := range []int64{3, 4096, 65536, blockSize} {
			if size/bs > 2000 {
				continue // a slow test, and no new case
			}
			for name, read := range patterns {
				var counted bytes.Buffer
				r, err := (*Cache)(nil).begin(path, &counted, bs)
				if err != nil {
					t.Fatal(err)
				}
				got, err := read(r, size)
				if err != nil || !bytes.Equal(got, data) {
					t.Errorf("size %d, blocks of %d, %s: borrowed %d bytes (%v), not the file's %d", size, bs, name, len(got), err, size)
				}
				if s, err := r.Sum(); err != nil || s != sum(data) {
					t.Errorf("size %d, blocks of %d, %s: digest %s, %v; want %s", size, bs, name, s, err, sum(data))
				}
				if !bytes.Equal(counted.Bytes(), data) {
					t.Errorf("size %d, blocks of %d, %s: counted %d bytes, want the file's %d", size, bs, name, counted.Len(), size)
				}
				if err := r.Close(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// A borrower that stops early (a parse error) must not leave the reader
// waiting for it: Close ends the reading, and Sum then fails.
func TestReadingClosedEarly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := (*Cache)(nil).begin(path, nil, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadAt(make([]byte, 10), 0); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err := r.Sum(); err == nil {
		t.Fatalf("Sum after Close = %s; want an error", s)
	}
}

func TestReadingEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := (*Cache)(nil).Begin(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n, err := r.Lend().Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Fatalf("read of an empty file = %d, %v; want 0, EOF", n, err)
	}
	if s, err := r.Sum(); err != nil || s != sum(nil) {
		t.Fatalf("digest of an empty file = %s, %v", s, err)
	}
}

// A file the cache knows is not read for its digest; borrowers still get
// its bytes.
func TestReadingCacheHit(t *testing.T) {
	dir := t.TempDir()
	c := Open(filepath.Join(dir, "cache"))
	path := filepath.Join(dir, "f")
	data := []byte("step,r\n1,2\n")
	settled(t, path, data)
	if _, err := c.File(path, nil); err != nil {
		t.Fatal(err)
	}
	var counted bytes.Buffer
	r, err := c.Begin(path, &counted)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := sequential(r, int64(len(data)))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("borrowed %q, %v; want %q", got, err, data)
	}
	if s, err := r.Sum(); err != nil || s != sum(data) || counted.Len() != 0 {
		t.Fatalf("cached digest = %s, %v after hashing %d bytes; want %s, nothing hashed", s, err, counted.Len(), sum(data))
	}
}

// A file written to while it is read: the digest and every borrower stop
// at the size it had when opened, so they cover the same bytes, and
// Unchanged says that the file moved, whether it grew, was cut, or was
// rewritten in place with its modification time put back (when only
// Unchanged tells, and the score refuses the file).
func TestReadingWrittenMeanwhile(t *testing.T) {
	data := bytes.Repeat([]byte("{\"step\": 1, \"r\": 2}\n"), 3000)
	writes := map[string]func(t *testing.T, path string){
		"grows": func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString("{\"step\": 2, \"r\": 999}\n"); err != nil {
				t.Fatal(err)
			}
		},
		"cut": func(t *testing.T, path string) {
			if err := os.Truncate(path, int64(len(data)/2)); err != nil {
				t.Fatal(err)
			}
		},
		"rewritten, mtime restored": func(t *testing.T, path string) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt([]byte("9"), int64(len(data)-3)); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, write := range writes {
		for _, bs := range []int64{4096, blockSize} {
			path := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := (*Cache)(nil).begin(path, nil, bs)
			if err != nil {
				t.Fatal(err)
			}
			half := make([]byte, len(data)/3)
			if _, err := r.ReadAt(half, 0); err != nil {
				t.Fatal(err)
			}
			write(t, path)
			rest, err := io.ReadAll(io.NewSectionReader(r, int64(len(half)), 1<<40))
			if err != nil {
				t.Fatal(err)
			}
			got := append(half, rest...)
			s, err := r.Sum()
			// Bytes rewritten in place may reach the hash and a borrower
			// at different moments: only Unchanged can vouch for them.
			if name == "grows" && (err != nil || !bytes.Equal(got, data) || s != sum(data)) {
				t.Errorf("%s, blocks of %d: borrowed %d bytes, digest %s (%v); want the %d bytes at open and their digest", name, bs, len(got), s, err, len(data))
			}
			if name == "cut" && err == nil && s != sum(got) {
				t.Errorf("%s, blocks of %d: digest %s of other bytes than the %d borrowed", name, bs, s, len(got))
			}
			var ce *ChangedError
			if err := r.Unchanged(); !errors.As(err, &ce) || ce.Before != int64(len(data)) {
				t.Errorf("%s, blocks of %d: Unchanged() = %v; want a ChangedError from %d bytes", name, bs, err, len(data))
			}
			r.Close()
		}
	}
	// Nothing written: nothing to say.
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := (*Cache)(nil).Begin(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := sequential(r, int64(len(data))); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Sum(); err != nil {
		t.Fatal(err)
	}
	if err := r.Unchanged(); err != nil {
		t.Errorf("Unchanged() of an untouched file = %v", err)
	}
}
