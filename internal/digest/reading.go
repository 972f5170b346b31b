package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"
)

// A score hashes each source (its provenance) while it parses it. Read
// twice, once for each, the file costs a second pass through the page
// cache; hashed by a goroutine that also reads, the digest takes as long
// as reading and hashing one after the other. A Reading reads the file
// once, in order, into a ring of blocks: one goroutine reads ahead while
// another hashes, and the parser borrows the blocks it asks for, waiting
// for those about to be read. What the ring no longer holds, or will not
// hold soon, a borrower reads from the file itself: the ring saves reads,
// it never decides which bytes a reader gets.
//
// The hash and the borrowers see the same bytes: both stop at the size
// the file had when it was opened, and Unchanged, asked after both are
// done, says whether anything wrote to the file meanwhile (a write moves
// its change time even when size and modification time are put back).

const (
	// Blocks small enough to be hashed and lent while still in the CPU's
	// caches cost less than blocks of a parser's chunk size.
	blockSize  = 256 << 10
	ringBlocks = 32 // blocks held at most: 8 MiB
	// ahead is how far the reader runs past the furthest block a borrower
	// has taken: blocks up to ringBlocks-ahead behind it stay lendable.
	ahead = 16
)

// A slot holds one block of the file.
type slot struct {
	buf    []byte
	block  int64 // the block held; -1 for none
	n      int   // its bytes: fewer than the block size only at the end
	pins   int   // borrowers copying out of it
	hashed bool
}

// A Reading is one file being read for its digest and lent to a parser.
type Reading struct {
	f       *os.File
	path    string
	fi      fs.FileInfo
	cache   *Cache
	key     string
	stamped bool
	counted io.Writer
	bs      int64 // block size
	size    int64 // the file's size when opened: the hash and the loans end there

	mu       sync.Mutex
	cond     sync.Cond
	slots    []slot
	next     int64 // the next block the reader reads
	end      int64 // the number of blocks once the reader met the end; -1 before
	front    int64 // the furthest block a borrower took or waits for
	released bool  // no borrower holds the reader back
	stopped  bool
	err      error
	sum      string
	read     chan struct{} // closed when the reader has stopped
	hashed   chan struct{} // closed when the digest is known or failed
}

// Begin opens the regular file at path and, unless the cache knows its
// digest, starts reading and hashing it, counting each byte hashed on
// counted (which may be nil). Parsers of the same file read it through
// Lend; Sum gives the digest, Close ends the reading.
func (c *Cache) Begin(path string, counted io.Writer) (*Reading, error) {
	return c.begin(path, counted, blockSize)
}

// begin is Begin with blocks of at most maxBlock bytes.
func (c *Cache) begin(path string, counted io.Writer, maxBlock int64) (*Reading, error) {
	// O_NONBLOCK keeps open(2) from waiting for a FIFO's writer.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("hash %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("hash %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("hash %s: not a regular file", path)
	}
	r := &Reading{f: f, path: path, fi: fi, size: fi.Size(), cache: c, counted: counted, end: -1,
		read: make(chan struct{}), hashed: make(chan struct{})}
	r.cond.L = &r.mu
	r.key, r.stamped = Stamp(fi)
	if c != nil && r.stamped {
		if sum, ok := c.get(r.key); ok {
			r.sum, r.stopped = sum, true
			close(r.read)
			close(r.hashed)
			return r, nil
		}
	}
	// A small file is one block of its size (and a little more, to meet
	// its end in the same read); a large one a ring of blocks.
	r.bs = min(maxBlock, (fi.Size()+4096)&^4095)
	r.slots = make([]slot, min(ringBlocks, fi.Size()/r.bs+2))
	for i := range r.slots {
		r.slots[i].block = -1
	}
	go r.reader()
	go r.hasher()
	return r, nil
}

// Stat is the file's stat when it was opened.
func (r *Reading) Stat() fs.FileInfo { return r.fi }

// reader reads the file in order into the ring, a block into the slot of
// a block that is hashed and no longer borrowed, as far ahead of the
// borrowers as ahead allows.
func (r *Reading) reader() {
	defer close(r.read)
	for j := int64(0); ; j++ {
		s := &r.slots[j%int64(len(r.slots))]
		r.mu.Lock()
		for !r.stopped && (!r.released && j >= r.front+ahead || s.block >= 0 && (!s.hashed || s.pins > 0)) {
			r.cond.Wait()
		}
		if r.stopped {
			r.mu.Unlock()
			return
		}
		s.block = -1
		r.mu.Unlock()
		if s.buf == nil {
			s.buf = make([]byte, r.bs)
		}
		want := min(r.bs, max(r.size-j*r.bs, 0))
		n, err := r.f.ReadAt(s.buf[:want], j*r.bs)
		if err == nil && j*r.bs+want == r.size {
			err = io.EOF // the size at open: bytes written since are not hashed
		}
		r.mu.Lock()
		s.block, s.n, s.hashed = j, n, false
		r.next = j + 1
		if err != nil {
			// A short read is the end of the file (io.EOF) or a failure.
			r.end = j + 1
			if err != io.EOF {
				r.err = fmt.Errorf("hash %s: %w", r.path, err)
			}
		}
		r.cond.Broadcast()
		r.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// hasher hashes the blocks in order as they are read.
func (r *Reading) hasher() {
	defer close(r.hashed)
	h := sha256.New()
	for j := int64(0); ; j++ {
		s := &r.slots[j%int64(len(r.slots))]
		r.mu.Lock()
		for !r.stopped && r.next <= j {
			r.cond.Wait()
		}
		last, err := r.end == j+1, r.err
		if r.stopped || last && err != nil {
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		// The reader leaves the slot alone until it is hashed.
		h.Write(s.buf[:s.n])
		if r.counted != nil {
			r.counted.Write(s.buf[:s.n])
		}
		r.mu.Lock()
		s.hashed = true
		if last {
			r.sum = Prefix + hex.EncodeToString(h.Sum(nil))
		}
		r.cond.Broadcast()
		r.mu.Unlock()
		if last {
			return
		}
	}
}

// ReadAt reads the file's bytes at off, out of the ring where it holds
// them or is about to, else from the file.
func (r *Reading) ReadAt(p []byte, off int64) (int, error) {
	if off >= r.size {
		return 0, io.EOF
	}
	if rest := r.size - off; int64(len(p)) > rest {
		n, err := r.ReadAt(p[:rest], off)
		if err == nil {
			err = io.EOF
		}
		return n, err
	}
	done := 0
	for done < len(p) {
		at := off + int64(done)
		if r.slots == nil || at < 0 {
			n, err := r.f.ReadAt(p[done:], at)
			return done + n, err
		}
		j, in := at/r.bs, int(at%r.bs)
		s := &r.slots[j%int64(len(r.slots))]
		r.mu.Lock()
		// A block the reader is about to read is worth waiting for; the
		// borrower's wait lets the reader go on to it.
		for !r.stopped && s.block != j && j >= r.next && j < r.next+ahead && r.end < 0 {
			if j > r.front {
				r.front = j
				r.cond.Broadcast()
			}
			r.cond.Wait()
		}
		if s.block != j || in >= s.n {
			// Gone from the ring, far ahead of it, or past the end the
			// reader met (the file may have grown since). A borrower
			// behind the ring reads again what it read before (a second
			// pass) or lags: the reader stops waiting for it.
			if s.block != j && j < r.next && !r.released {
				r.released = true
				r.cond.Broadcast()
			}
			r.mu.Unlock()
			n, err := r.f.ReadAt(p[done:], at)
			return done + n, err
		}
		if j > r.front {
			r.front = j
			r.cond.Broadcast()
		}
		s.pins++
		r.mu.Unlock()
		done += copy(p[done:], s.buf[in:s.n])
		r.mu.Lock()
		if s.pins--; s.pins == 0 {
			r.cond.Broadcast()
		}
		r.mu.Unlock()
	}
	return done, nil
}

// Lend returns the file for a parser: reads in order from its start
// (Read) or anywhere (ReadAt); closing it leaves the file open.
func (r *Reading) Lend() *Loan { return &Loan{r: r} }

// A Loan is a parser's view of a Reading's file.
type Loan struct {
	r   *Reading
	off int64
}

func (l *Loan) ReadAt(p []byte, off int64) (int, error) { return l.r.ReadAt(p, off) }

func (l *Loan) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, err := l.r.ReadAt(p, l.off)
	l.off += int64(n)
	if n > 0 && err == io.EOF {
		err = nil
	}
	return n, err
}

// Close ends the loan; the Reading keeps the file.
func (l *Loan) Close() error { return nil }

// Release lets the reader run ahead of the borrowers: they are done, or
// there are none.
func (r *Reading) Release() {
	r.mu.Lock()
	r.released = true
	r.cond.Broadcast()
	r.mu.Unlock()
}

// Sum returns the file's digest once it is hashed, and remembers it when
// the file did not change meanwhile and its last change is old enough.
func (r *Reading) Sum() (string, error) {
	r.Release()
	<-r.hashed
	r.mu.Lock()
	sum, err := r.sum, r.err
	r.mu.Unlock()
	if err != nil {
		return "", err
	}
	if sum == "" {
		return "", fmt.Errorf("hash %s: closed before its end", r.path)
	}
	if r.slots == nil {
		return sum, nil // from the cache
	}
	// Stamps read after the hash: a file changed meanwhile is not stored.
	after, err := r.f.Stat()
	if r.cache != nil && r.stamped && err == nil {
		if k, _ := Stamp(after); k == r.key && r.cache.now().Sub(after.ModTime()) > settle {
			r.cache.put(r.key, sum)
		}
	}
	return sum, nil
}

// Unchanged reports, once the hash and the borrowers are done, whether
// the file is as it was opened: a *ChangedError when something wrote to
// it meanwhile, so that the bytes parsed may not be the bytes hashed.
func (r *Reading) Unchanged() error {
	now, err := r.f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", r.path, err)
	}
	k, ok := Stamp(now)
	same := k == r.key
	if !ok || !r.stamped {
		same = now.Size() == r.fi.Size() && now.ModTime().Equal(r.fi.ModTime())
	}
	if same {
		return nil
	}
	return &ChangedError{Path: r.path, Before: r.fi.Size(), After: now.Size()}
}

// A ChangedError is a file written to while it was read.
type ChangedError struct {
	Path          string
	Before, After int64 // sizes
}

func (e *ChangedError) Error() string {
	how := fmt.Sprintf("rewritten in place (still %d bytes)", e.After)
	switch {
	case e.After > e.Before:
		how = fmt.Sprintf("grew from %d to %d bytes", e.Before, e.After)
	case e.After < e.Before:
		how = fmt.Sprintf("shrank from %d to %d bytes", e.Before, e.After)
	}
	return fmt.Sprintf("%s: changed while it was read (%s): a writer is still at work", e.Path, how)
}

// Close stops reading and hashing, waits for both, and closes the file.
func (r *Reading) Close() error {
	r.mu.Lock()
	r.stopped = true
	r.cond.Broadcast()
	r.mu.Unlock()
	<-r.read
	<-r.hashed
	return r.f.Close()
}
