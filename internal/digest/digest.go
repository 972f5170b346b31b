// Package digest computes the sha256 of metric sources, remembering each
// file's digest under its identity and change stamps (device, inode, size,
// modification and change times in nanoseconds), as DVC's state database
// does: re-scoring unchanged files reads them once for their values, not
// twice. A file whose stamps changed is always hashed again.
package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Prefix starts every digest this package returns.
const Prefix = "sha256:"

// settle is how old a file's last change must be before its digest is
// remembered: a write in the same clock tick as the hash would leave the
// stamps unchanged (git's "racily clean" files).
const settle = 2 * time.Second

// A Cache remembers digests (and, with Store, what else a caller derives
// from a file's content) in a directory of small files, one per file
// identity and stamps, each written whole by rename: processes that score
// at once share it without a lock, and a torn entry cannot exist. A nil
// *Cache remembers nothing.
type Cache struct {
	dir string
	now func() time.Time
}

// Open returns the cache in dir, created on first write.
func Open(dir string) *Cache { return &Cache{dir: dir, now: time.Now} }

// DefaultDir is rlxp's digest cache for the user: $XDG_CACHE_HOME/rlxp/digests,
// else the OS's user cache directory; "" when there is none.
func DefaultDir(getenv func(string) string) string {
	if d := getenv("XDG_CACHE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "rlxp", "digests")
	}
	if home := getenv("HOME"); filepath.IsAbs(home) {
		return filepath.Join(home, ".cache", "rlxp", "digests")
	}
	return ""
}

// OpenDefault opens the user's cache in DefaultDir; nil (remembering
// nothing) when there is none.
func OpenDefault(getenv func(string) string) *Cache {
	if dir := DefaultDir(getenv); dir != "" {
		return Open(dir)
	}
	return nil
}

// File hashes the regular file at path, counting each byte read on
// counted (which may be nil); a cache hit reads nothing.
func (c *Cache) File(path string, counted io.Writer) (string, error) {
	r, err := c.Begin(path, counted)
	if err != nil {
		return "", err
	}
	defer r.Close()
	return r.Sum()
}

// Path hashes a file, or a directory (an MLflow run) as its files'
// relative names and contents in name order; directories are not cached.
func (c *Cache) Path(path string, counted io.Writer) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	if !fi.IsDir() {
		return c.File(path, counted)
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	sort.Strings(files)
	h := sha256.New()
	for _, p := range files {
		rel, _ := filepath.Rel(path, p)
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(rel))
		sum, err := c.File(p, counted)
		if err != nil {
			return "", err
		}
		// Each file's digest stands for its content: the same files give
		// the same directory digest, cached or not.
		io.WriteString(h, sum)
	}
	return Prefix + hex.EncodeToString(h.Sum(nil)), nil
}

func (c *Cache) entry(key string) string {
	sum := sha256.Sum256([]byte(key))
	name := hex.EncodeToString(sum[:])
	return filepath.Join(c.dir, name[:2], name)
}

func (c *Cache) get(key string) (string, bool) {
	data, ok := c.getData(key)
	if !ok {
		return "", false
	}
	// A damaged entry is a miss, never a wrong digest.
	sum, tail, ok := cut(string(data))
	if !ok || tail != "" || len(sum) != len(Prefix)+64 {
		return "", false
	}
	return sum, true
}

// put stores a digest.
func (c *Cache) put(key, sum string) { c.putData(key, []byte(sum+"\n")) }

// getData reads the entry of key: "key\n" then its data. The key guards
// against a name collision.
func (c *Cache) getData(key string) ([]byte, bool) {
	data, err := os.ReadFile(c.entry(key))
	if err != nil {
		return nil, false
	}
	k, rest, ok := cut(string(data))
	if !ok || k != key {
		return nil, false
	}
	return []byte(rest), true
}

// putData stores an entry whole, by rename; a cache that cannot be
// written is only slower.
func (c *Cache) putData(key string, data []byte) {
	path := c.entry(key)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(append([]byte(key+"\n"), data...))
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}

// Lookup returns what Store kept under name (one line, no newline) for
// the file whose stat is fi: only while its identity and change stamps
// are those it had when the data was stored.
func (c *Cache) Lookup(fi fs.FileInfo, name string) ([]byte, bool) {
	key, ok := Stamp(fi)
	if c == nil || !ok || strings.Contains(name, "\n") {
		return nil, false
	}
	return c.getData(key + " " + name)
}

// Store keeps data under name for a file that was read between the stats
// before and after: only when its stamps did not change meanwhile and its
// last change is old enough that a write in the same clock tick would
// have changed them.
func (c *Cache) Store(before, after fs.FileInfo, name string, data []byte) {
	k1, ok1 := Stamp(before)
	k2, ok2 := Stamp(after)
	if c == nil || !ok1 || !ok2 || k1 != k2 || strings.Contains(name, "\n") || c.now().Sub(after.ModTime()) <= settle {
		return
	}
	c.putData(k1+" "+name, data)
}

func cut(s string) (line, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}
