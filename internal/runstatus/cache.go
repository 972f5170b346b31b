package runstatus

import (
	"os"
	"sync"
	"time"

	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/digest"
	"github.com/rlxp/rlxp/internal/metrics"
)

// A Cache keeps what each metric file and log said, keyed on the file's
// identity and change stamps (device, inode, size, mtime and ctime in
// nanoseconds), so that a dashboard refreshing a thousand runs reads only
// the files that changed. Any change to a stamp reads the file again;
// where the system gives no stamps, every file is read every time. A Cache
// is safe for concurrent use; the zero value is not: use NewCache. A nil
// *Cache caches nothing.
type Cache struct {
	mu    sync.Mutex
	files map[cacheKey]*cacheEntry
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{files: map[cacheKey]*cacheEntry{}} }

// cacheKey is everything besides the file's content that shapes what is
// read from it.
type cacheKey struct {
	path, shown string
	format      metrics.Format
	notBefore   time.Time
	tail        bool
}

type cacheEntry struct {
	id    string // digest.Stamp
	facts fileFacts
	used  bool
}

// fileFacts is what one read of a file found. The source is not written
// after the read, so readers may share it.
type fileFacts struct {
	src     *diagnose.Source
	format  metrics.Format
	err     error
	tail    []string
	tailErr error
}

// read returns what the file at abs says, from the cache when its stamps
// (st, taken before the read) are unchanged. A file that changes during a
// read has new stamps on the next look, so it is read again then.
func (c *Cache) read(abs, shown string, format metrics.Format, notBefore time.Time, st os.FileInfo, tail bool, rules []diagnose.Rule) fileFacts {
	id, ok := digest.Stamp(st)
	if c == nil || !ok {
		return readFile(abs, shown, format, notBefore, tail, rules)
	}
	k := cacheKey{abs, shown, format, notBefore, tail}
	c.mu.Lock()
	e := c.files[k]
	if e != nil && e.id == id {
		e.used = true
		c.mu.Unlock()
		return e.facts
	}
	c.mu.Unlock()
	f := readFile(abs, shown, format, notBefore, tail, rules)
	c.mu.Lock()
	c.files[k] = &cacheEntry{id: id, facts: f, used: true}
	c.mu.Unlock()
	return f
}

// Sweep forgets the files not read since the last sweep: those of runs
// whose records are gone, or of sources no longer declared.
func (c *Cache) Sweep() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.files {
		if !e.used {
			delete(c.files, k)
			continue
		}
		e.used = false
	}
}

// Len is how many files the cache holds.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.files)
}
