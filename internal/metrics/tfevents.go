package metrics

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"sort"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// TensorBoard event files are TFRecord streams of Event protobufs:
//
//	u64 length (LE) | u32 masked CRC-32C of the length | length bytes | u32 masked CRC-32C of the bytes
//
// readTFEvents reads one such file in two streaming passes through 1 MiB
// windows:
//
//  1. Scan pass: frames every record, checks both CRCs (the payload ones
//     on a second goroutine, a window behind), and looks only at the top
//     level of each Event (step, whether it holds a summary, whether it is
//     a SessionLog START). A corrupt record therefore fails the read
//     before any point reaches the sink.
//  2. Decode pass: decodes summaries and delivers scalar points, dropping
//     the points that a later restart orphans. A malformed Event (with
//     good CRCs) stops the read there, after the points before it.
//
// Restarts follow TensorBoard's purge rule: a SessionLog START at step S
// discards every point written before it whose step is >= S. The scan
// pass keeps only the STARTs that actually discard something, and of those
// only the ones whose step is below that of every later START (a later,
// lower START discards a superset). What remains is a list with rising
// offsets and rising steps, so during the decode pass a point at file
// offset o survives exactly when its step is below the step of the first
// kept START after o. The list holds at most tfMaxRestarts entries; memory
// is the window, the largest summary record, that list, and one entry per
// distinct tag.
//
// Ends of file:
//   - an empty file is an error;
//   - 1..11 bytes after the last complete record (a partial length header
//     that cannot be told apart from junk) is an error;
//   - a length header with a bad CRC is an error, wherever it is;
//   - a length header with a good CRC whose record runs past the end of
//     the file is a truncated tail: the points before it are kept and a
//     Note says where reading stopped, unless it is the first record, in
//     which case the file holds nothing readable and that is an error.
//
// Files with file_version below 2 get the same START rule (TensorBoard
// would instead purge on out-of-order steps); restarts are handled within
// one file only.

const (
	tfWindow      = 1 << 20   // read window; records up to this size are handled in place
	tfMaxRecord   = 256 << 20 // largest summary record decoded (larger non-summary records are streamed past)
	tfMaxRestarts = 1 << 16   // restarts that discard points, per file
	tfHeaderLen   = 12
	tfFooterLen   = 4
	tfMaskDelta   = 0xa282ead8
	sessionStart  = 1 // SessionLog.START
)

// TensorFlow DataType values the scalar decoding understands.
const (
	dtFloat    = 1
	dtDouble   = 2
	dtInt32    = 3
	dtUint8    = 4
	dtInt16    = 5
	dtInt8     = 6
	dtInt64    = 9
	dtBFloat16 = 14
	dtUint16   = 17
	dtHalf     = 19
	dtUint32   = 22
	dtUint64   = 23
)

func tfMask(crc uint32) uint32 { return (crc>>15 | crc<<17) + tfMaskDelta }

// looksLikeTFRecord reports whether head starts with a TFRecord frame: a
// length whose masked CRC-32C follows it.
func looksLikeTFRecord(head []byte) bool {
	if len(head) < tfHeaderLen {
		return false
	}
	tab := crc32.MakeTable(crc32.Castagnoli)
	return tfMask(crc32.Checksum(head[:8], tab)) == binary.LittleEndian.Uint32(head[8:12])
}

func readTFEvents(path string, sink Sink) (Info, error) {
	f, size, err := binOpen(path)
	if err != nil {
		return Info{Format: TFEvents}, err
	}
	defer f.Close()
	return readTFEventsFrom(path, f, size, sink)
}

// binOpen opens one metric file for a binary reader.
func binOpen(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, &Error{Path: path, Offset: -1, Msg: binOSMsg(err)}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, &Error{Path: path, Offset: -1, Msg: binOSMsg(err)}
	}
	if st.IsDir() {
		f.Close()
		return nil, 0, &Error{Path: path, Offset: -1, Msg: "is a directory, not a file"}
	}
	return f, st.Size(), nil
}

// binOSMsg drops the path an *os.PathError repeats.
func binOSMsg(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// tfWindowReader hands out the bytes of r[0:size] through a grow-only
// buffer, in place.
type tfWindowReader struct {
	path   string
	r      io.ReaderAt
	size   int64
	buf    []byte
	lo, hi int   // unread bytes are buf[lo:hi]
	base   int64 // file offset of buf[0]
	crc8   *tfCRC8

	// While check is set, a buffer is not reused in place: once consumed
	// it goes to the CRC checker with the records framed in it, and a
	// fresh one comes from pool.
	cur   *tfBatch
	check chan<- *tfBatch
	pool  <-chan *tfBatch
}

// tfBatch is one window's worth of framed records.
type tfBatch struct {
	buf  []byte
	base int64    // file offset of buf[0]
	recs []tfSpan // records wholly in buf
}

// tfSpan locates a record in a batch: its header starts at buf[at] and
// its payload is n bytes.
type tfSpan struct{ at, n int }

func (w *tfWindowReader) reset() {
	w.lo, w.hi, w.base = 0, 0, 0
}

// pos is the file offset of the next unread byte.
func (w *tfWindowReader) pos() int64 { return w.base + int64(w.lo) }

// fill makes n bytes available at pos unless the file ends first, and
// returns how many are.
func (w *tfWindowReader) fill(n int) (int, error) {
	if w.hi-w.lo >= n {
		return w.hi - w.lo, nil
	}
	switch {
	case n > len(w.buf):
		nb := make([]byte, max(n, 2*len(w.buf)))
		copy(nb, w.buf[w.lo:w.hi])
		w.buf = nb
	case w.check != nil && w.lo > 0:
		next := <-w.pool
		copy(next.buf, w.buf[w.lo:w.hi])
		next.base, next.recs = w.base+int64(w.lo), next.recs[:0]
		w.check <- w.cur
		w.cur, w.buf = next, next.buf
	case w.lo > 0:
		copy(w.buf, w.buf[w.lo:w.hi])
	}
	w.base += int64(w.lo)
	w.hi -= w.lo
	w.lo = 0
	for w.hi < n {
		off := w.base + int64(w.hi)
		if off >= w.size {
			break
		}
		want := int(min(int64(len(w.buf)-w.hi), w.size-off))
		m, err := w.r.ReadAt(w.buf[w.hi:w.hi+want], off)
		w.hi += m
		if m < want {
			if err == nil || err == io.EOF {
				// The file shrank since it was measured.
				w.size = off + int64(m)
				break
			}
			return w.hi, &Error{Path: w.path, Offset: off, Msg: "read: " + binOSMsg(err)}
		}
	}
	return w.hi - w.lo, nil
}

// tfCRC8 holds slicing-by-8 tables for CRC-32C: record lengths, 8 bytes
// each, are checked inline rather than through a call per record.
type tfCRC8 [8][256]uint32

func newTFCRC8() *tfCRC8 {
	t := new(tfCRC8)
	t[0] = *crc32.MakeTable(crc32.Castagnoli)
	for i := range 256 {
		c := t[0][i]
		for k := 1; k < 8; k++ {
			c = t[0][c&0xff] ^ c>>8
			t[k][i] = c
		}
	}
	return t
}

// sum8 is the CRC-32C of b[:8].
func (t *tfCRC8) sum8(b []byte) uint32 {
	lo := ^binary.LittleEndian.Uint32(b)
	hi := binary.LittleEndian.Uint32(b[4:])
	return ^(t[7][lo&0xff] ^ t[6][lo>>8&0xff] ^ t[5][lo>>16&0xff] ^ t[4][lo>>24] ^
		t[3][hi&0xff] ^ t[2][hi>>8&0xff] ^ t[1][hi>>16&0xff] ^ t[0][hi>>24])
}

func (w *tfWindowReader) errorf(off int64, format string, args ...any) *Error {
	return &Error{Path: w.path, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// tfFrame is the header of one record.
type tfFrame struct {
	off int64 // file offset of the length field
	n   int   // payload length
}

// frameStatus says what header found.
type frameStatus int

const (
	frameOK frameStatus = iota
	frameEnd
	frameTruncated // a good header whose record runs past the end of the file
)

// header reads and checks the 12-byte header at pos, leaving pos on it.
func (w *tfWindowReader) header() (tfFrame, frameStatus, error) {
	start := w.pos()
	avail, err := w.fill(tfHeaderLen)
	if err != nil {
		return tfFrame{}, frameEnd, err
	}
	if avail == 0 {
		if start == 0 {
			return tfFrame{}, frameEnd, w.errorf(0, "empty file")
		}
		return tfFrame{}, frameEnd, nil
	}
	if avail < tfHeaderLen {
		return tfFrame{}, frameEnd, w.errorf(start, "truncated record header (%d of %d bytes)", avail, tfHeaderLen)
	}
	h := w.buf[w.lo : w.lo+tfHeaderLen]
	if tfMask(w.crc8.sum8(h)) != binary.LittleEndian.Uint32(h[8:]) {
		return tfFrame{}, frameEnd, w.errorf(start, "record length CRC mismatch (not a TensorBoard event file, or corrupt)")
	}
	length := binary.LittleEndian.Uint64(h)
	left := w.size - start - tfHeaderLen - tfFooterLen
	if left < 0 || length > uint64(left) {
		if start == 0 {
			return tfFrame{}, frameEnd, w.errorf(0, "truncated first record (a %d-byte record in a %d-byte file)", length, w.size)
		}
		return tfFrame{off: start}, frameTruncated, nil
	}
	return tfFrame{off: start, n: int(length)}, frameOK, nil
}

// tfRestart is a SessionLog START that discards earlier points.
type tfRestart struct {
	off  int64
	step int64
}

// tfScan is what the scan pass learns.
type tfScan struct {
	end      int64 // where the decode pass stops
	trunc    bool
	restarts []tfRestart
}

// tfEventHead is the top level of an Event.
type tfEventHead struct {
	step    int64
	hasStep bool
	summary bool
	start   bool // a SessionLog with status START
}

// quickEventHead reads the top level of an Event, fast when it is laid out
// as writers lay it out: wall_time, step, then the member of the oneof.
func quickEventHead(b []byte) tfEventHead {
	var h tfEventHead
	p := b
	if len(p) >= 9 && p[0] == 0x09 { // wall_time
		p = p[9:]
	}
	if len(p) > 0 && p[0] == 0x10 { // step
		v, n := pbVarint(p[1:])
		if n < 0 {
			h, _ = scanEventHead(b, true)
			return h
		}
		h.step, h.hasStep = int64(v), true
		p = p[1+n:]
	}
	if len(p) > 0 {
		switch p[0] {
		case 0x2a: // summary
			h.summary = true
			return h
		case 0x1a: // file_version
			return h
		}
	}
	h, _ = scanEventHead(b, true)
	return h
}

// scanEventHead reads the top level of an Event. When complete is false, b
// is a prefix of it and a field running past its end ends the scan.
func scanEventHead(b []byte, complete bool) (tfEventHead, error) {
	var h tfEventHead
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			if !complete {
				return h, nil
			}
			return h, protowire.ParseError(n)
		}
		b = b[n:]
		switch {
		case num == 2 && typ == protowire.VarintType:
			var v uint64
			v, n = protowire.ConsumeVarint(b)
			h.step, h.hasStep = int64(v), true
		case num == 5 && typ == protowire.BytesType:
			h.summary = true
			n = protowire.ConsumeFieldValue(num, typ, b)
		case num == 7 && typ == protowire.BytesType:
			var v []byte
			v, n = protowire.ConsumeBytes(b)
			if n < 0 && !complete {
				// Only the session log's first bytes are here; its
				// status comes first.
				_, ln := protowire.ConsumeVarint(b)
				if ln > 0 {
					v = b[ln:]
				}
			}
			h.start = sessionLogIsStart(v)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			if !complete {
				return h, nil
			}
			return h, protowire.ParseError(n)
		}
		b = b[n:]
	}
	return h, nil
}

// sessionLogIsStart reports whether a SessionLog's status is START. A
// malformed session log is not a restart.
func sessionLogIsStart(b []byte) bool {
	start := false
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return start
		}
		b = b[n:]
		if num == 1 && typ == protowire.VarintType {
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return start
			}
			start = v == sessionStart
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return start
		}
		b = b[m:]
	}
	return start
}

// tfScanPass frames and checks every record and finds the restarts that
// discard points. Payload CRCs are checked by a second goroutine, a window
// behind the framing.
func tfScanPass(w *tfWindowReader) (tfScan, error) {
	const windows = 3
	pool := make(chan *tfBatch, windows)
	check := make(chan *tfBatch, windows)
	bad := make(chan int64, 1)
	for range windows {
		pool <- &tfBatch{buf: make([]byte, tfWindow)}
	}
	w.cur = <-pool
	w.buf, w.check, w.pool = w.cur.buf, check, pool
	go tfCheckCRCs(check, pool, bad)

	c, err := tfFrameAll(w)
	check <- w.cur
	close(check)
	firstBad := <-bad
	w.check, w.pool, w.cur = nil, nil, nil
	if firstBad >= 0 {
		return c, w.errorf(firstBad, "record data CRC mismatch")
	}
	return c, err
}

// tfCheckCRCs checks the payload CRCs of batches, sending the offset of
// the first bad record (or -1) once check is closed.
func tfCheckCRCs(check <-chan *tfBatch, pool chan<- *tfBatch, bad chan<- int64) {
	tab := crc32.MakeTable(crc32.Castagnoli)
	first := int64(-1)
	for b := range check {
		for _, r := range b.recs {
			if first >= 0 {
				break
			}
			data := b.buf[r.at+tfHeaderLen : r.at+tfHeaderLen+r.n]
			if tfMask(crc32.Checksum(data, tab)) != binary.LittleEndian.Uint32(b.buf[r.at+tfHeaderLen+r.n:]) {
				first = b.base + int64(r.at)
			}
		}
		pool <- b
	}
	bad <- first
}

// tfFrameAll is the framing loop of the scan pass.
func tfFrameAll(w *tfWindowReader) (tfScan, error) {
	var c tfScan
	maxStep, seen := int64(math.MinInt64), false
	for {
		fr, st, err := w.header()
		if err != nil {
			return c, err
		}
		if st == frameEnd {
			c.end = w.pos()
			return c, nil
		}
		if st == frameTruncated {
			c.end, c.trunc = fr.off, true
			return c, nil
		}
		var head tfEventHead
		total := tfHeaderLen + fr.n + tfFooterLen
		if total <= len(w.buf) {
			if _, err := w.fill(total); err != nil {
				return c, err
			}
			head = quickEventHead(w.buf[w.lo+tfHeaderLen : w.lo+tfHeaderLen+fr.n])
			w.cur.recs = append(w.cur.recs, tfSpan{at: w.lo, n: fr.n})
			w.lo += total
		} else {
			// Too large for the window: look at a prefix, checksum the
			// rest as it streams by.
			avail, err := w.fill(len(w.buf))
			if err != nil {
				return c, err
			}
			head, _ = scanEventHead(w.buf[w.lo+tfHeaderLen:w.lo+avail], false)
			if head.summary && !head.hasStep {
				// The step lies beyond the prefix; assume the worst.
				head.step, head.hasStep = math.MaxInt64, true
			}
			crc, stored := uint32(0), uint32(0)
			if err := w.skip(int64(total), &crc, &stored); err != nil {
				return c, err
			}
			if tfMask(crc) != stored {
				return c, w.errorf(fr.off, "record data CRC mismatch")
			}
		}
		switch {
		case head.summary:
			if !seen || head.step > maxStep {
				maxStep = head.step
			}
			seen = true
		case head.start && seen && head.step <= maxStep:
			// A START discards earlier points with step >= its step; a
			// kept START with a step >= this one's is now redundant.
			for len(c.restarts) > 0 && c.restarts[len(c.restarts)-1].step >= head.step {
				c.restarts = c.restarts[:len(c.restarts)-1]
			}
			if len(c.restarts) == tfMaxRestarts {
				return c, w.errorf(fr.off, "more than %d restarts (SessionLog START) that discard points", tfMaxRestarts)
			}
			c.restarts = append(c.restarts, tfRestart{off: fr.off, step: head.step})
		}
	}
}

// tfTag is what a read knows about one tag.
type tfTag struct {
	name   string
	plugin string // from the latest metadata; metadata may come only with a tag's first value
	asked  bool   // Want has been called
	want   bool
	next   *tfTag // the tag that followed this one last time
}

// tfDecoder delivers the points of one file.
type tfDecoder struct {
	path    string
	sink    Sink
	tags    map[string]*tfTag
	last    *tfTag           // the tag of the previous value
	skipped map[string]int64 // non-scalar values by kind
	points  int64
	dropped int64

	off       int64 // record being decoded
	wall      float64
	step      int64
	threshold int64 // points with step >= threshold are orphaned by a later restart
	purge     bool
}

func (d *tfDecoder) errorf(format string, args ...any) *Error {
	return &Error{Path: d.path, Offset: d.off, Msg: fmt.Sprintf(format, args...)}
}

func (d *tfDecoder) malformed(what string, n int) *Error {
	return d.errorf("malformed %s (%v)", what, protowire.ParseError(n))
}

const tfMaxSkipKinds = 16

func (d *tfDecoder) skip(kind string) {
	if _, ok := d.skipped[kind]; !ok && len(d.skipped) >= tfMaxSkipKinds {
		kind = "other"
	}
	d.skipped[kind]++
}

// pbVarint is protowire.ConsumeVarint with the one-byte case first.
func pbVarint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return protowire.ConsumeVarint(b)
}

// pbShortBytes reads a length-delimited field whose length fits one byte,
// the common case; ok is false otherwise, and protowire takes over.
func pbShortBytes(b []byte) (v []byte, n int, ok bool) {
	if len(b) > 0 && b[0] < 0x80 && int(b[0]) < len(b) {
		return b[1 : 1+b[0]], 1 + int(b[0]), true
	}
	return nil, 0, false
}

// The keys of the fields decoded on every record, as they appear on the
// wire: field number << 3 | wire type.
const (
	keyEventWall    = 1<<3 | 1 // Event.wall_time, fixed64
	keyEventStep    = 2<<3 | 0 // Event.step, varint
	keyEventSummary = 5<<3 | 2 // Event.summary
	keySummaryValue = 1<<3 | 2 // Summary.value
	keyValueTag     = 1<<3 | 2 // Summary.Value.tag
	keyValueSimple  = 2<<3 | 5 // Summary.Value.simple_value, fixed32
)

// event decodes one Event.
func (d *tfDecoder) event(b []byte) error {
	d.wall, d.step = 0, 0
	var summary []byte
	summaries := 0
	for p := b; len(p) > 0; {
		switch p[0] {
		case keyEventWall:
			if len(p) < 9 {
				return d.malformed("event", -1)
			}
			d.wall = math.Float64frombits(binary.LittleEndian.Uint64(p[1:]))
			p = p[9:]
			continue
		case keyEventStep:
			v, n := pbVarint(p[1:])
			if n < 0 {
				return d.malformed("event", n)
			}
			d.step = int64(v)
			p = p[1+n:]
			continue
		case keyEventSummary:
			s, n, ok := pbShortBytes(p[1:])
			if !ok {
				if s, n = protowire.ConsumeBytes(p[1:]); n < 0 {
					return d.malformed("event", n)
				}
			}
			if summaries == 0 {
				summary = s
			}
			summaries++
			p = p[1+n:]
			continue
		}
		num, typ, n := protowire.ConsumeTag(p)
		if n < 0 {
			return d.malformed("event", n)
		}
		p = p[n:]
		switch {
		case num == 1 && typ == protowire.Fixed64Type:
			var v uint64
			v, n = protowire.ConsumeFixed64(p)
			d.wall = math.Float64frombits(v)
		case num == 2 && typ == protowire.VarintType:
			var v uint64
			v, n = protowire.ConsumeVarint(p)
			d.step = int64(v)
		case num == 5 && typ == protowire.BytesType:
			var s []byte
			if s, n = protowire.ConsumeBytes(p); summaries == 0 {
				summary = s
			}
			summaries++
		default:
			n = protowire.ConsumeFieldValue(num, typ, p)
		}
		if n < 0 {
			return d.malformed("event", n)
		}
		p = p[n:]
	}
	if summaries <= 1 {
		return d.summary(summary)
	}
	// Repeated summary fields merge: their values concatenate.
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		b = b[n:]
		if num == 5 && typ == protowire.BytesType {
			s, m := protowire.ConsumeBytes(b)
			if err := d.summary(s); err != nil {
				return err
			}
			b = b[m:]
			continue
		}
		b = b[protowire.ConsumeFieldValue(num, typ, b):]
	}
	return nil
}

// summary decodes the values of one Summary.
func (d *tfDecoder) summary(b []byte) error {
	for len(b) > 0 {
		if b[0] == keySummaryValue {
			v, m, ok := pbShortBytes(b[1:])
			if !ok {
				if v, m = protowire.ConsumeBytes(b[1:]); m < 0 {
					return d.malformed("summary", m)
				}
			}
			if err := d.value(v); err != nil {
				return err
			}
			b = b[1+m:]
			continue
		}
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return d.malformed("summary", n)
		}
		b = b[n:]
		if num == 1 && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return d.malformed("summary", m)
			}
			if err := d.value(v); err != nil {
				return err
			}
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return d.malformed("summary", m)
		}
		b = b[m:]
	}
	return nil
}

// Which member of Summary.Value's oneof a value holds.
const (
	tfKindNoValue = iota
	tfKindSimple
	tfKindTensor
	tfKindImage
	tfKindHisto
	tfKindAudio
)

// lookup finds a tag's entry. Writers log tags in the same order step
// after step, so the tag that followed the previous one last time is
// tried before the map.
func (d *tfDecoder) lookup(tag []byte) *tfTag {
	var t *tfTag
	if d.last != nil && d.last.next != nil && d.last.next.name == string(tag) {
		t = d.last.next
	} else {
		if t = d.tags[string(tag)]; t == nil {
			t = &tfTag{name: string(tag)}
			d.tags[t.name] = t
		}
		if d.last != nil {
			d.last.next = t
		}
	}
	d.last = t
	return t
}

// value decodes one Summary.Value and delivers it if it is a wanted scalar.
func (d *tfDecoder) value(b []byte) error {
	var tag, tensor, plugin []byte
	var simple uint32
	kind, hasPlugin := tfKindNoValue, false
	for len(b) > 0 {
		switch b[0] {
		case keyValueTag:
			t, n, ok := pbShortBytes(b[1:])
			if ok {
				tag, b = t, b[1+n:]
				continue
			}
		case keyValueSimple:
			if len(b) < 5 {
				return d.malformed("summary value", -1)
			}
			simple, kind = binary.LittleEndian.Uint32(b[1:]), tfKindSimple
			b = b[5:]
			continue
		}
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return d.malformed("summary value", n)
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.BytesType:
			tag, n = protowire.ConsumeBytes(b)
		case num == 2 && typ == protowire.Fixed32Type:
			simple, n = protowire.ConsumeFixed32(b)
			kind = tfKindSimple
		case num == 8 && typ == protowire.BytesType:
			tensor, n = protowire.ConsumeBytes(b)
			kind = tfKindTensor
		case num == 9 && typ == protowire.BytesType:
			var md []byte
			if md, n = protowire.ConsumeBytes(b); n >= 0 {
				if p, ok := pluginName(md); ok {
					plugin, hasPlugin = p, true
				}
			}
		case (num == 3 || num == 5) && typ == protowire.BytesType:
			n = protowire.ConsumeFieldValue(num, typ, b)
			kind = tfKindHisto
		case num == 4 && typ == protowire.BytesType:
			n = protowire.ConsumeFieldValue(num, typ, b)
			kind = tfKindImage
		case num == 6 && typ == protowire.BytesType:
			n = protowire.ConsumeFieldValue(num, typ, b)
			kind = tfKindAudio
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return d.malformed("summary value", n)
		}
		b = b[n:]
	}

	if len(tag) == 0 {
		d.skip("values without a tag")
		return nil
	}
	t := d.lookup(tag)
	if hasPlugin && t.plugin != string(plugin) {
		t.plugin = string(plugin)
	}
	switch kind {
	case tfKindSimple:
	case tfKindTensor:
		if t.plugin != "scalars" {
			if t.plugin == "" {
				d.skip("tensors without a plugin")
			} else {
				d.skip(t.plugin)
			}
			return nil
		}
	case tfKindImage:
		d.skip("images")
		return nil
	case tfKindHisto:
		d.skip("histograms")
		return nil
	case tfKindAudio:
		d.skip("audio")
		return nil
	default:
		d.skip("values without data")
		return nil
	}
	if !t.asked {
		t.want, t.asked = d.sink.Want(t.name), true
	}
	if !t.want {
		return nil
	}
	var v float64
	if kind == tfKindSimple {
		v = float64(math.Float32frombits(simple))
	} else {
		var why string
		var err error
		if v, why, err = d.scalarTensor(tensor); err != nil {
			return err
		}
		if why != "" {
			d.skip(why)
			return nil
		}
	}
	if d.purge && d.step >= d.threshold {
		d.dropped++
		return nil
	}
	if err := d.sink.Point(t.name, Point{Step: d.step, WallTime: d.wall, Value: v}); err != nil {
		return err
	}
	d.points++
	return nil
}

// pluginName finds SummaryMetadata.plugin_data.plugin_name.
func pluginName(md []byte) ([]byte, bool) {
	var name []byte
	found := false
	for len(md) > 0 {
		num, typ, n := protowire.ConsumeTag(md)
		if n < 0 {
			return name, found
		}
		md = md[n:]
		if num == 1 && typ == protowire.BytesType {
			pd, m := protowire.ConsumeBytes(md)
			if m < 0 {
				return name, found
			}
			md = md[m:]
			for len(pd) > 0 {
				pnum, ptyp, k := protowire.ConsumeTag(pd)
				if k < 0 {
					break
				}
				pd = pd[k:]
				if pnum == 1 && ptyp == protowire.BytesType {
					s, j := protowire.ConsumeBytes(pd)
					if j < 0 {
						break
					}
					name, found = s, true
					pd = pd[j:]
					continue
				}
				j := protowire.ConsumeFieldValue(pnum, ptyp, pd)
				if j < 0 {
					break
				}
				pd = pd[j:]
			}
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, md)
		if m < 0 {
			return name, found
		}
		md = md[m:]
	}
	return name, found
}

// tfDTypeSize gives the byte size of a numeric dtype and the TensorProto
// field its values use; ok is false for other dtypes.
func tfDTypeSize(dtype uint64) (size int, field protowire.Number, ok bool) {
	switch dtype {
	case dtFloat:
		return 4, 5, true
	case dtDouble:
		return 8, 6, true
	case dtInt32:
		return 4, 7, true
	case dtInt16, dtUint16:
		return 2, 7, true
	case dtInt8, dtUint8:
		return 1, 7, true
	case dtInt64:
		return 8, 10, true
	case dtHalf, dtBFloat16:
		return 2, 13, true
	case dtUint32:
		return 4, 16, true
	case dtUint64:
		return 8, 17, true
	}
	return 0, 0, false
}

// scalarTensor reads the value of a one-element numeric TensorProto. A
// tensor that is not one is reported by why, for the skip note.
func (d *tfDecoder) scalarTensor(b []byte) (v float64, why string, err error) {
	var dtype uint64
	var content []byte
	hasContent := false
	elems := int64(1)
	// The values field of the dtype, seen before the dtype may be known:
	// remember the first occurrence of each candidate field.
	var vals [18][]byte // raw packed bytes or single encoded value, by field number
	var wire [18]protowire.Type
	var count [18]int
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, "", d.malformed("tensor", n)
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			dtype, n = protowire.ConsumeVarint(b)
		case num == 2 && typ == protowire.BytesType:
			var shape []byte
			if shape, n = protowire.ConsumeBytes(b); n >= 0 {
				if elems, err = d.shapeElems(shape); err != nil {
					return 0, "", err
				}
			}
		case num == 4 && typ == protowire.BytesType:
			content, n = protowire.ConsumeBytes(b)
			hasContent = true
		case num == 5 || num == 6 || num == 7 || num == 10 || num == 13 || num == 16 || num == 17:
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				break
			}
			raw := b[:n]
			c, ok := tfCountValues(num, typ, raw)
			if !ok {
				return 0, "", d.errorf("malformed tensor (bad %s values)", tfValueField(num))
			}
			if count[num] == 0 && c > 0 {
				vals[num], wire[num] = raw, typ
			}
			count[num] += c
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return 0, "", d.malformed("tensor", n)
		}
		b = b[n:]
	}
	size, field, ok := tfDTypeSize(dtype)
	if !ok {
		return 0, "scalars-plugin tensors of a non-numeric type", nil
	}
	if elems != 1 {
		return 0, "scalars-plugin tensors with more than one element", nil
	}
	var bits uint64
	switch {
	case hasContent && len(content) > 0:
		if len(content)%size != 0 {
			return 0, "", d.errorf("malformed tensor (%d content bytes for %d-byte elements)", len(content), size)
		}
		if len(content) > size {
			return 0, "scalars-plugin tensors with more than one element", nil
		}
		switch size {
		case 1:
			bits = uint64(content[0])
		case 2:
			bits = uint64(binary.LittleEndian.Uint16(content))
		case 4:
			bits = uint64(binary.LittleEndian.Uint32(content))
		case 8:
			bits = binary.LittleEndian.Uint64(content)
		}
	case count[field] == 0:
		return 0, "", d.errorf("malformed tensor (a scalar with no value)")
	case count[field] > 1:
		return 0, "scalars-plugin tensors with more than one element", nil
	default:
		raw := vals[field]
		if wire[field] == protowire.BytesType {
			raw, _ = protowire.ConsumeBytes(raw)
		}
		switch field {
		case 5:
			bits = uint64(binary.LittleEndian.Uint32(raw))
		case 6:
			bits = binary.LittleEndian.Uint64(raw)
		default:
			bits, _ = protowire.ConsumeVarint(raw)
		}
	}
	return tfBitsValue(dtype, bits), "", nil
}

// tfBitsValue converts the little-endian bits of one element (or a varint
// value field) to a float64.
func tfBitsValue(dtype, bits uint64) float64 {
	switch dtype {
	case dtFloat:
		return float64(math.Float32frombits(uint32(bits)))
	case dtDouble:
		return math.Float64frombits(bits)
	case dtInt32:
		return float64(int32(bits))
	case dtInt16:
		return float64(int16(bits))
	case dtInt8:
		return float64(int8(bits))
	case dtUint8:
		return float64(uint8(bits))
	case dtUint16:
		return float64(uint16(bits))
	case dtInt64:
		return float64(int64(bits))
	case dtUint32:
		return float64(uint32(bits))
	case dtUint64:
		return float64(bits)
	case dtHalf:
		return halfToFloat(uint16(bits))
	case dtBFloat16:
		return float64(math.Float32frombits(uint32(uint16(bits)) << 16))
	}
	return math.NaN()
}

// halfToFloat converts IEEE 754 binary16 bits.
func halfToFloat(h uint16) float64 {
	exp, frac := int(h>>10)&0x1f, float64(h&0x3ff)
	var v float64
	switch exp {
	case 0:
		v = math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		v = math.Inf(1)
	default:
		v = math.Ldexp(frac+1024, exp-25)
	}
	if h&0x8000 != 0 {
		v = -v
	}
	return v
}

func tfValueField(num protowire.Number) string {
	switch num {
	case 5:
		return "float_val"
	case 6:
		return "double_val"
	case 7:
		return "int_val"
	case 10:
		return "int64_val"
	case 13:
		return "half_val"
	case 16:
		return "uint32_val"
	}
	return "uint64_val"
}

// tfCountValues counts the values in one occurrence of a repeated numeric
// field, packed or not.
func tfCountValues(num protowire.Number, typ protowire.Type, raw []byte) (int, bool) {
	width := 0 // fixed width, 0 for varints
	switch num {
	case 5:
		width = 4
	case 6:
		width = 8
	}
	switch typ {
	case protowire.BytesType:
		p, _ := protowire.ConsumeBytes(raw)
		if width > 0 {
			return len(p) / width, len(p)%width == 0
		}
		c := 0
		for len(p) > 0 {
			_, n := protowire.ConsumeVarint(p)
			if n < 0 {
				return 0, false
			}
			p = p[n:]
			c++
		}
		return c, true
	case protowire.Fixed32Type:
		return 1, width == 4
	case protowire.Fixed64Type:
		return 1, width == 8
	case protowire.VarintType:
		return 1, width == 0
	}
	return 0, false
}

// shapeElems multiplies the dimensions of a TensorShapeProto, stopping
// early once the tensor is known not to hold exactly one element.
func (d *tfDecoder) shapeElems(b []byte) (int64, error) {
	elems := int64(1)
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, d.malformed("tensor shape", n)
		}
		b = b[n:]
		if num == 3 && typ == protowire.VarintType {
			// unknown_rank
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return 0, d.malformed("tensor shape", m)
			}
			if v != 0 {
				elems = -1
			}
			b = b[m:]
			continue
		}
		if num != 2 || typ != protowire.BytesType {
			m := protowire.ConsumeFieldValue(num, typ, b)
			if m < 0 {
				return 0, d.malformed("tensor shape", m)
			}
			b = b[m:]
			continue
		}
		dim, m := protowire.ConsumeBytes(b)
		if m < 0 {
			return 0, d.malformed("tensor shape", m)
		}
		b = b[m:]
		size := int64(0) // proto3 default
		for len(dim) > 0 {
			dn, dt, k := protowire.ConsumeTag(dim)
			if k < 0 {
				return 0, d.malformed("tensor shape", k)
			}
			dim = dim[k:]
			if dn == 1 && dt == protowire.VarintType {
				v, j := protowire.ConsumeVarint(dim)
				if j < 0 {
					return 0, d.malformed("tensor shape", j)
				}
				size = int64(v)
				dim = dim[j:]
				continue
			}
			j := protowire.ConsumeFieldValue(dn, dt, dim)
			if j < 0 {
				return 0, d.malformed("tensor shape", j)
			}
			dim = dim[j:]
		}
		if size != 1 {
			elems = -1
		}
	}
	return elems, nil
}

// readTFEventsFrom reads an event file of size bytes from r.
func readTFEventsFrom(path string, r io.ReaderAt, size int64, sink Sink) (Info, error) {
	info := Info{Format: TFEvents}
	w := &tfWindowReader{path: path, r: r, size: size, crc8: newTFCRC8()}
	scan, err := tfScanPass(w)
	if err != nil {
		return info, err
	}

	w.reset()
	w.size = scan.end
	d := &tfDecoder{path: path, sink: sink, tags: make(map[string]*tfTag), skipped: make(map[string]int64)}
	err = d.decodePass(w, scan.restarts)
	info.Points = d.points
	if err != nil {
		return info, err
	}
	if len(d.skipped) > 0 {
		info.Notes = append(info.Notes, tfSkipNote(d.skipped))
	}
	if d.dropped > 0 {
		info.Notes = append(info.Notes, fmt.Sprintf("dropped %d points written before a restart (SessionLog START) with a step at or after the restart's step, as TensorBoard does", d.dropped))
	}
	if scan.trunc {
		info.Notes = append(info.Notes, fmt.Sprintf("stopped at a truncated record at byte %d (the writer was still running or crashed)", scan.end))
	}
	return info, nil
}

// decodePass delivers the points of the records the scan pass checked,
// up to w.size.
func (d *tfDecoder) decodePass(w *tfWindowReader, restarts []tfRestart) error {
	next := 0 // first restart after the current record
	for w.pos() < w.size {
		off := w.pos()
		avail, err := w.fill(tfHeaderLen)
		if err != nil {
			return err
		}
		if avail < tfHeaderLen {
			return w.errorf(off, "the file changed while being read")
		}
		length := binary.LittleEndian.Uint64(w.buf[w.lo:])
		if length > uint64(w.size-off-tfHeaderLen-tfFooterLen) {
			return w.errorf(off, "the file changed while being read")
		}
		n := int(length)
		total := tfHeaderLen + n + tfFooterLen
		d.off = off
		for next < len(restarts) && restarts[next].off <= off {
			next++
		}
		d.purge = next < len(restarts)
		if d.purge {
			d.threshold = restarts[next].step
		}
		if total > len(w.buf) {
			// Too large for the window: load it only if it holds a summary.
			avail, err := w.fill(len(w.buf))
			if err != nil {
				return err
			}
			if head, _ := scanEventHead(w.buf[w.lo+tfHeaderLen:w.lo+avail], false); !head.summary {
				if err := w.skip(int64(total), nil, nil); err != nil {
					return err
				}
				continue
			}
			if n > tfMaxRecord {
				return w.errorf(off, "summary record of %d bytes is larger than the %d-byte limit", n, tfMaxRecord)
			}
		}
		if avail, err = w.fill(total); err != nil {
			return err
		}
		if avail < total {
			return w.errorf(off, "the file changed while being read")
		}
		data := w.buf[w.lo+tfHeaderLen : w.lo+tfHeaderLen+n]
		w.lo += total
		if err := d.event(data); err != nil {
			return err
		}
	}
	return nil
}

// skip moves pos past a record of total bytes. With crc set, it also
// computes the payload's CRC-32C and returns the stored one.
func (w *tfWindowReader) skip(total int64, crc, stored *uint32) error {
	tab := crc32.MakeTable(crc32.Castagnoli)
	for i := int64(0); i < total; {
		avail, err := w.fill(int(min(total-i, int64(len(w.buf)))))
		if err != nil {
			return err
		}
		if avail == 0 {
			return w.errorf(w.pos(), "the file changed while being read")
		}
		k := int(min(int64(avail), total-i))
		if crc != nil {
			// Payload bytes are those in [12, total-4).
			lo, hi := max(i, tfHeaderLen), min(i+int64(k), total-tfFooterLen)
			if lo < hi {
				*crc = crc32.Update(*crc, tab, w.buf[w.lo+int(lo-i):w.lo+int(hi-i)])
			}
			for j := max(i, total-tfFooterLen); j < i+int64(k); j++ {
				*stored |= uint32(w.buf[w.lo+int(j-i)]) << (8 * (j - (total - tfFooterLen)))
			}
		}
		w.lo += k
		i += int64(k)
	}
	return nil
}

// tfSkipNote says, in one sentence, which values were not scalars.
func tfSkipNote(skipped map[string]int64) string {
	kinds := make([]string, 0, len(skipped))
	var total int64
	for k, n := range skipped {
		kinds = append(kinds, k)
		total += n
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s: %d", k, skipped[k])
	}
	return fmt.Sprintf("skipped %d non-scalar summary values (%s)", total, strings.Join(parts, ", "))
}
