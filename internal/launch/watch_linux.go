package launch

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// watchMask is what changes a pinned file: its content written, it or its
// directory created, deleted or renamed. Reads and attribute changes are
// not edits.
const watchMask = syscall.IN_MODIFY | syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MOVED_FROM |
	syscall.IN_MOVED_TO | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_ONLYDIR | syscall.IN_EXCL_UNLINK

// A watch sees every write, creation, deletion and rename of the pinned
// files while runs run, through inotify on the directories that hold
// them: an edit made and undone before the end, which the pin recomputed
// at the end cannot find. note says why it does not watch, when it does
// not.
type watch struct {
	root  string
	note  string
	file  *os.File
	fd    int
	dirs  map[int32]string // watch descriptor → directory
	files map[string]bool  // pinned paths, and their directories
	count int              // pinned paths
	done  chan struct{}

	mu   sync.Mutex
	seen []seenChange
	// created are the names created in a watched directory that are not
	// pinned: checked at the end when they are gone (since). tooMany is
	// set when more than maxCreated came.
	created []seenChange
	tooMany bool
}

// maxCreated bounds the new names a watch keeps.
const maxCreated = 10000

type seenChange struct {
	at   time.Time
	path string
	what string
}

// watchLimit bounds the watches one supervisor takes: half of the user's
// inotify allowance (fs.inotify.max_user_watches), at most max.
func watchLimit(max int) int {
	data, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return max
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(data)))
	if err != nil {
		return max
	}
	return min(max, n/2)
}

// watchFiles watches the directories holding paths (absolute), at most
// limit of them; root is what the changes are named relative to.
func watchFiles(root string, paths []string, limit int) *watch {
	w := &watch{root: root, dirs: map[int32]string{}, files: map[string]bool{}, done: make(chan struct{})}
	dirs := map[string]bool{}
	for _, p := range paths {
		p = filepath.Clean(p)
		w.files[p] = true
		dirs[filepath.Dir(p)] = true
	}
	w.count = len(w.files)
	for d := range dirs {
		w.files[d] = true
	}
	if len(dirs) > limit {
		w.note = fmt.Sprintf("not watched: the %d pinned files lie in %d directories, over the bound of %d watches (fs.inotify.max_user_watches)", len(paths), len(dirs), limit)
		close(w.done)
		return w
	}
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		w.note = fmt.Sprintf("not watched: inotify: %v", err)
		close(w.done)
		return w
	}
	w.fd = fd
	for d := range dirs {
		wd, err := syscall.InotifyAddWatch(fd, d, watchMask)
		if err != nil {
			if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) {
				continue // a pinned file's directory that is gone: the pin names it
			}
			syscall.Close(fd)
			w.note = fmt.Sprintf("not watched: watch %s: %v (fs.inotify.max_user_watches)", d, err)
			close(w.done)
			return w
		}
		w.dirs[int32(wd)] = d
	}
	w.file = os.NewFile(uintptr(fd), "inotify")
	rc, err := w.file.SyscallConn()
	if err != nil {
		w.file.Close()
		w.note = fmt.Sprintf("not watched: inotify: %v", err)
		close(w.done)
		return w
	}
	go func() {
		defer close(w.done)
		// Read returns only when the file is closed.
		_ = rc.Read(func(fd uintptr) bool {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.drain(int(fd))
			return false
		})
	}()
	return w
}

// drain reads every event queued; the caller holds mu.
func (w *watch) drain(fd int) {
	var buf [64 * (syscall.SizeofInotifyEvent + syscall.NAME_MAX + 1)]byte
	for {
		n, err := syscall.Read(fd, buf[:])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			return
		}
		now := time.Now()
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			w.note1(now, ev.Wd, ev.Mask, string(bytes.TrimRight(name, "\x00")))
		}
	}
}

// note1 records one event that touches a pinned path.
func (w *watch) note1(at time.Time, wd int32, mask uint32, name string) {
	if mask&syscall.IN_Q_OVERFLOW != 0 {
		w.seen = append(w.seen, seenChange{at, "", "more file events than the watch could hold: an edit of a pinned file while the run ran may be unseen"})
		return
	}
	dir, ok := w.dirs[wd]
	if !ok {
		return
	}
	p := dir
	if name != "" {
		p = filepath.Join(dir, name)
	}
	if !w.files[p] {
		if mask&(syscall.IN_CREATE|syscall.IN_MOVED_TO) != 0 {
			if len(w.created) < maxCreated {
				w.created = append(w.created, seenChange{at, p, "created"})
			} else {
				w.tooMany = true
			}
		}
		return
	}
	var what string
	switch {
	case mask&syscall.IN_MODIFY != 0:
		what = "written"
	case mask&(syscall.IN_DELETE|syscall.IN_DELETE_SELF) != 0:
		what = "deleted"
	case mask&(syscall.IN_MOVED_FROM|syscall.IN_MOVE_SELF) != 0:
		what = "renamed away"
	case mask&syscall.IN_MOVED_TO != 0:
		what = "replaced by a rename"
	case mask&syscall.IN_CREATE != 0:
		what = "created"
	default:
		return
	}
	w.seen = append(w.seen, seenChange{at, p, what})
}

// sync takes in the events queued so far.
func (w *watch) sync() {
	if w.file == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-w.done:
	default:
		w.drain(w.fd)
	}
}

// since names each pinned path changed from t0 until now (the events
// queued so far included), once, with the first change seen ("train.py:
// written while the run ran (at …)"), and returns the other names created
// in that time that are gone by now.
func (w *watch) since(t0 time.Time) (changed []string, gone []seenChange) {
	w.sync()
	t1 := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	named := map[string]bool{}
	for _, c := range w.seen {
		if c.at.Before(t0) || c.at.After(t1) || named[c.path] {
			continue
		}
		named[c.path] = true
		if c.path == "" {
			changed = append(changed, fmt.Sprintf("pinned files: %s (at %s)", c.what, stamp(c.at)))
			continue
		}
		changed = append(changed, fmt.Sprintf("%s: %s while the run ran (at %s)", w.name(c.path), c.what, stamp(c.at)))
	}
	sort.Strings(changed)
	for _, c := range w.created {
		if c.at.Before(t0) || c.at.After(t1) || named[c.path] {
			continue
		}
		named[c.path] = true
		if _, err := os.Lstat(c.path); errors.Is(err, os.ErrNotExist) {
			gone = append(gone, c)
		}
	}
	if w.tooMany {
		changed = append(changed, fmt.Sprintf("new files: more than %d were created beside the pinned files while the run ran; those removed again were not checked", maxCreated))
	}
	return changed, gone
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// name is p as the changes name it: relative to the root.
func (w *watch) name(p string) string {
	rel, err := filepath.Rel(w.root, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return p
	}
	return filepath.ToSlash(rel)
}

// close stops the watch.
func (w *watch) close() {
	if w.file != nil {
		w.file.Close()
		<-w.done
	}
}

// watching says what the watch covers, for the record.
func (w *watch) watching() string {
	if w.note != "" {
		return w.note
	}
	return fmt.Sprintf("%d pinned files in %d directories", w.count, len(w.dirs))
}
