package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Opening metric files. Every reader opens its files here, so that the
// rules hold for all formats alike: a metric source is a regular file (a
// FIFO or a device would block or never end), a text file is read up to
// its last line ending (what follows is a line its writer has not
// finished), a leading byte-order mark is skipped, and bare-CR line
// endings read as line ends.

// MaxLine bounds one line of a line-based format, so that a file with a
// huge line fails with its position instead of filling memory.
const MaxLine = 64 << 20

// A ByteCounter is what a Sink may also implement to follow a read's
// progress: BytesRead is called, from any goroutine, with each number of
// bytes the reader has read.
type ByteCounter interface {
	BytesRead(n int64)
}

// A File is an open metric file as the readers use it.
type File interface {
	io.Reader
	io.ReaderAt
	io.Closer
}

// An Opener is what a Sink may also implement to hand the readers the
// files they read, instead of their opening them: a caller that reads a
// file for something else at the same time (its digest) lends them the
// bytes it reads, so the file is read once. OpenSource is called with each
// path a reader opens and returns the open file and its stat, refusing
// what OpenSource refuses.
type Opener interface {
	OpenSource(path string) (File, os.FileInfo, error)
}

// open opens path for a reader whose sink is sink.
func open(path string, sink Sink) (File, os.FileInfo, error) {
	if o, ok := sink.(Opener); ok {
		return o.OpenSource(path)
	}
	f, st, err := OpenSource(path)
	if err != nil {
		return nil, nil, err
	}
	return f, st, nil
}

// OpenSource opens the metric file at path for reading. It refuses
// anything but a regular file (a directory, a FIFO, a socket, a device,
// also through a symlink) without blocking, with an *Error naming path.
// Whoever reads or hashes a metric source opens it here.
func OpenSource(path string) (*os.File, os.FileInfo, error) {
	// O_NONBLOCK keeps open(2) from waiting for a FIFO's writer; on a
	// regular file it changes nothing.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, &Error{Path: path, Offset: -1, Msg: osMsg(err)}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, &Error{Path: path, Offset: -1, Msg: osMsg(err)}
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &Error{Path: path, Offset: -1, Msg: "not a regular file (" + modeName(st.Mode()) + "); a metric source must be a file"}
	}
	return f, st, nil
}

func modeName(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// osMsg drops the path an *os.PathError repeats.
func osMsg(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// A countingFile reports the bytes read from a binary log.
type countingFile struct {
	File
	c ByteCounter
}

func (f countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	if n > 0 {
		f.c.BytesRead(int64(n))
	}
	return n, err
}

func (f countingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	if n > 0 {
		f.c.BytesRead(int64(n))
	}
	return n, err
}

// binOpen opens one metric file for a binary reader: the reader and its
// size.
func binOpen(path string, sink Sink) (binFile, int64, error) {
	f, st, err := open(path, sink)
	if err != nil {
		return binFile{}, 0, err
	}
	bf := binFile{f: f, r: f}
	if c, ok := sink.(ByteCounter); ok {
		bf.r = countingFile{f, c}
	}
	return bf, st.Size(), nil
}

// A binFile is an open binary log.
type binFile struct {
	f File
	r interface {
		io.Reader
		io.ReaderAt
	}
}

func (b binFile) Close() error { return b.f.Close() }

// errNoLine reports a text file that holds no complete line yet; Read
// turns it into an empty result with a note.
var errNoLine = errors.New("no complete line yet")

// A textFile is an open text-format metric file, cut to its complete
// lines when the format is line-based.
type textFile struct {
	f     File
	path  string
	start int64 // after a UTF-8 byte-order mark
	end   int64 // after the last line ending; the bytes after it are a line still being written
	size  int64
	cr    bool // lines end in a bare carriage return
	count ByteCounter
}

// openText opens a text-format file, refusing what is not a regular file,
// an empty file and one whose first bytes are not text. For line formats
// (lines set) it finds the end of the last complete line, and returns
// errNoLine when there is none.
func openText(path string, format Format, lines bool, sink Sink) (*textFile, error) {
	f, st, err := open(path, sink)
	if err != nil {
		return nil, err
	}
	t := &textFile{f: f, path: path, size: st.Size(), end: st.Size()}
	t.count, _ = sink.(ByteCounter)
	head := make([]byte, headSize)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		f.Close()
		return nil, &Error{Path: path, Offset: -1, Msg: osMsg(err)}
	}
	head = head[:n]
	if n == 0 {
		f.Close()
		return nil, &Error{Path: path, Offset: -1, Msg: "empty file"}
	}
	if bytes.HasPrefix(head, []byte(utf8BOM)) {
		t.start = int64(len(utf8BOM))
	}
	if i := binaryAt(head, n == headSize); i >= 0 {
		f.Close()
		e := binaryError(path, format, lineAt(head, i), int64(i))
		if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
			e.Msg += " (it is UTF-16 text: convert it to UTF-8, e.g. with iconv -f UTF-16 -t UTF-8)"
		}
		return nil, e
	}
	if !lines {
		return t, nil
	}
	t.cr = bareCR(head)
	if t.end, err = t.lastLineEnd(); err != nil {
		f.Close()
		return nil, err
	}
	if t.end <= t.start {
		f.Close()
		return nil, errNoLine
	}
	return t, nil
}

// bareCR reports whether the first line of head ends in a carriage
// return alone, as in files written with classic Mac line endings.
func bareCR(head []byte) bool {
	i := bytes.IndexAny(head, "\r\n")
	return i >= 0 && head[i] == '\r' && i+1 < len(head) && head[i+1] != '\n'
}

// lastLineEnd returns the offset just after the file's last line ending,
// or start when it has none. It reads backwards from the end in small
// blocks, so a long unfinished line costs no memory.
func (t *textFile) lastLineEnd() (int64, error) {
	term := byte('\n')
	if t.cr {
		term = '\r'
	}
	buf := make([]byte, 64<<10)
	for hi := t.size; hi > t.start; {
		lo := max(hi-int64(len(buf)), t.start)
		b := buf[:hi-lo]
		if _, err := t.f.ReadAt(b, lo); err != nil && err != io.EOF {
			return 0, &Error{Path: t.path, Offset: -1, Msg: osMsg(err)}
		}
		if i := bytes.LastIndexByte(b, term); i >= 0 {
			return lo + int64(i) + 1, nil
		}
		hi = lo
	}
	return t.start, nil
}

func (t *textFile) Close() error { return t.f.Close() }

// ReadAt reads the complete lines: nothing past end, and bare carriage
// returns as newlines (same length, so offsets hold).
func (t *textFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= t.end {
		return 0, io.EOF
	}
	short := false
	if rem := t.end - off; int64(len(p)) > rem {
		p, short = p[:rem], true
	}
	n, err := t.f.ReadAt(p, off)
	if t.cr {
		for i, c := range p[:n] {
			if c == '\r' {
				p[i] = '\n'
			}
		}
	}
	if t.count != nil && n > 0 {
		t.count.BytesRead(int64(n))
	}
	if err == nil && short {
		err = io.EOF
	}
	return n, err
}

// body returns a reader of the text after the byte-order mark.
func (t *textFile) body() *io.SectionReader {
	return io.NewSectionReader(t, t.start, t.end-t.start)
}

// lines returns a line reader over the text after the byte-order mark.
func (t *textFile) lines() *lineReader {
	lr := newLineReader(t.body(), t.start)
	lr.path, lr.ra, lr.size = t.path, t, t.end
	return lr
}

// finish records in info a last line that was skipped as unfinished.
func (t *textFile) finish(info *Info) {
	if t.end >= t.size {
		return
	}
	info.TruncatedAt = t.end
	info.Notes = append(info.Notes, fmt.Sprintf("Skipped the last line (%s with no line ending): its writer has not finished it.",
		plural(t.size-t.end, "byte", "bytes")))
}

// noLine is the result of reading a file that holds no complete line.
func noLine(format Format) Info {
	return Info{Format: format, Notes: []string{"No complete line yet: its writer has not finished the first one."}}
}

// lineTooLong is the error for a line over MaxLine.
func lineTooLong(path string, line int, off int64) *Error {
	return &Error{Path: path, Line: line, Offset: off,
		Msg: fmt.Sprintf("a line longer than %d MiB; not a metric file of this format", MaxLine>>20)}
}

// A lineBound fails a read once a line runs past MaxLine, for readers
// (encoding/csv) that would otherwise buffer the whole line.
type lineBound struct {
	r    io.Reader
	path string
	run  int // bytes since the last newline
	line int // newlines seen
}

func (b *lineBound) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	for rest := p[:n]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			b.run += len(rest)
			break
		}
		b.line++
		b.run, rest = 0, rest[i+1:]
	}
	if b.run > MaxLine {
		return n, lineTooLong(b.path, b.line+1, -1)
	}
	return n, err
}
