//go:build linux && (amd64 || arm64)

package pin

import (
	"bytes"
	"hash"
	"io/fs"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// A stampWalker stamps trees one after another, reusing its buffers:
// rel is the path below the tree's root of the directory being read, abs
// its absolute path (to compare with skip); levels keeps, per depth, the
// buffer a directory's entries are read into and their sorted index.
// files counts the files stamped by every walker, against stampLimit.
type stampWalker struct {
	files  *atomic.Int64
	h      hash.Hash
	skip   string
	rel    []byte
	abs    []byte
	line   []byte
	chunk  []byte
	levels []level
	modes  map[uint32]string
}

// dir writes to h the stamp of every file below the directory dir (an
// absolute path, not a link) exactly as walkStamps does, but with one
// system call and no allocation per file: the directory is read in large
// batches with getdents, each file is stat'ed with fstatat relative to
// its directory's descriptor under the name the batch holds, and the
// relative path is kept in one buffer. An environment of 50,000 files is
// stamped at every gate, check and launch.
func (w *stampWalker) dir(h hash.Hash, dir, skip string) error {
	if w.modes == nil {
		w.modes, w.chunk = map[uint32]string{}, make([]byte, 32<<10)
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		h.Write([]byte("\x00unreadable\n"))
		return nil
	}
	w.h, w.skip = h, skip
	w.rel, w.abs = w.rel[:0], append(w.abs[:0], dir...)
	return w.walk(fd, 0)
}

type level struct {
	buf     []byte
	entries []dirent
}

// A dirent is a name in its level's buffer (NUL-terminated there) and its
// type as getdents gives it.
type dirent struct {
	off, n int
	typ    uint8
}

// walk stamps what the directory open on fd holds (closing fd), at depth.
func (w *stampWalker) walk(fd, depth int) error {
	if depth == len(w.levels) {
		w.levels = append(w.levels, level{})
	}
	lv := &w.levels[depth]
	err := readNames(fd, lv, w.chunk)
	if err != nil {
		syscall.Close(fd)
		// As filepath.WalkDir reports a directory it cannot list.
		w.line = append(append(append(w.line[:0], '/'), w.rel...), "\x00unreadable\n"...)
		if depth == 0 {
			w.line = w.line[1:]
		}
		w.h.Write(w.line)
		return nil
	}
	defer syscall.Close(fd)
	buf := lv.buf
	for _, e := range lv.entries {
		name := buf[e.off : e.off+e.n]
		relLen, absLen := len(w.rel), len(w.abs)
		if relLen > 0 {
			w.rel = append(w.rel, '/')
		}
		w.rel = append(w.rel, name...)
		w.abs = append(append(w.abs, '/'), name...)
		var st syscall.Stat_t
		typ := e.typ
		statErr := syscall.Errno(0)
		if typ == syscall.DT_UNKNOWN {
			statErr = fstatat(fd, &buf[e.off], &st)
			if statErr == 0 && st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
				typ = syscall.DT_DIR
			}
		}
		if typ == syscall.DT_DIR {
			if !bytes.Equal(name, []byte("__pycache__")) && !bytes.Equal(name, []byte(".git")) && string(w.abs) != w.skip {
				sub, err := openat(fd, &buf[e.off])
				if err != nil {
					w.line = append(append(append(w.line[:0], '/'), w.rel...), "\x00unreadable\n"...)
					w.h.Write(w.line)
				} else if err := w.walk(sub, depth+1); err != nil {
					return err
				}
			}
		} else if err := w.file(fd, &buf[e.off], e.typ, statErr, &st); err != nil {
			return err
		}
		w.rel, w.abs = w.rel[:relLen], w.abs[:absLen]
	}
	return nil
}

// file writes the stamp of the file name (in the directory fd) under w.rel.
func (w *stampWalker) file(fd int, name *byte, typ uint8, statErr syscall.Errno, st *syscall.Stat_t) error {
	if w.files.Add(1) > stampLimit {
		return errStampLimit
	}
	if typ != syscall.DT_UNKNOWN {
		statErr = fstatat(fd, name, st)
	}
	if statErr != 0 {
		w.line = append(append(append(w.line[:0], '/'), w.rel...), "\x00gone\n"...)
		w.h.Write(w.line)
		return nil
	}
	l := append(append(w.line[:0], w.rel...), 0)
	l = append(l, w.mode(st.Mode)...)
	l = append(l, " v1 dev="...)
	l = strconv.AppendUint(l, st.Dev, 10)
	l = append(l, " ino="...)
	l = strconv.AppendUint(l, st.Ino, 10)
	l = append(l, " size="...)
	l = strconv.AppendInt(l, st.Size, 10)
	l = append(l, " mtime="...)
	l = strconv.AppendInt(l, st.Mtim.Nano(), 10)
	l = append(l, " ctime="...)
	l = strconv.AppendInt(l, st.Ctim.Nano(), 10)
	l = append(l, '\n')
	w.line = l
	w.h.Write(l)
	return nil
}

// mode is fs.FileMode's String of a raw st_mode, as os.Lstat would give
// it, kept per walker: a tree holds a handful of distinct modes.
func (w *stampWalker) mode(m uint32) string {
	if s, ok := w.modes[m]; ok {
		return s
	}
	mode := fs.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFBLK:
		mode |= fs.ModeDevice
	case syscall.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&syscall.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&syscall.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	s := mode.String()
	w.modes[m] = s
	return s
}

// readNames reads every entry of the directory open on fd but . and ..
// into lv, sorted by name as os.ReadDir sorts them.
func readNames(fd int, lv *level, chunk []byte) error {
	lv.buf, lv.entries = lv.buf[:0], lv.entries[:0]
	for {
		n, err := syscall.ReadDirent(fd, chunk)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n <= 0 {
			break
		}
		for b := chunk[:n]; len(b) >= 19; {
			reclen := int(uint16(b[16]) | uint16(b[17])<<8)
			if reclen < 19 || reclen > len(b) {
				return syscall.EIO
			}
			rec := b[:reclen]
			b = b[reclen:]
			name := rec[19:]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if len(name) == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			off := len(lv.buf)
			lv.buf = append(append(lv.buf, name...), 0)
			lv.entries = append(lv.entries, dirent{off: off, n: len(name), typ: rec[18]})
		}
	}
	buf := lv.buf
	slices.SortFunc(lv.entries, func(a, b dirent) int {
		return bytes.Compare(buf[a.off:a.off+a.n], buf[b.off:b.off+b.n])
	})
	return nil
}

// fstatat stats, without following a link, the NUL-terminated name in
// the directory fd.
func fstatat(fd int, name *byte, st *syscall.Stat_t) syscall.Errno {
	for {
		_, _, e := syscall.Syscall6(sysFstatat, uintptr(fd), uintptr(unsafe.Pointer(name)), uintptr(unsafe.Pointer(st)), _AT_SYMLINK_NOFOLLOW, 0, 0)
		if e != syscall.EINTR {
			return e
		}
	}
}

// openat opens the directory of the NUL-terminated name in the directory
// fd, without following a link.
func openat(fd int, name *byte) (int, error) {
	for {
		r, _, e := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(fd), uintptr(unsafe.Pointer(name)),
			syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return -1, e
		}
		return int(r), nil
	}
}

const _AT_SYMLINK_NOFOLLOW = 0x100
