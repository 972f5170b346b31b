package metrics

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protowire"
)

// TensorBoard event files are TFRecord streams of Event protobufs:
//
//	u64 length (LE) | u32 masked CRC-32C of the length | length bytes | u32 masked CRC-32C of the bytes
//
// readTFEvents reads one such file in two passes:
//
//  1. Scan pass: frames every record and looks only at the top level of
//     each Event (its step, whether it holds a summary, whether it is a
//     SessionLog START), noting the restarts and cutting the file into
//     chunks of about 256 KiB at record boundaries. A large file is
//     scanned in parts, in parallel (see scanPass).
//  2. Decode pass: workers, one per CPU up to 8, each take a chunk, check
//     the CRCs of its records and decode them into a batch of values; the
//     calling goroutine takes the batches in file order and delivers the
//     points, so the sink sees exactly what a sequential read would give
//     it, from one goroutine. Records larger than a window form chunks of
//     their own, read by the calling goroutine.
//
// A record that fails a CRC check, or does not decode, stops the read at
// that record: the points of the records before it have been delivered,
// none after. When the scan pass fails (at an end of file it cannot
// accept, or a length gone wrong), the records before the failure are
// checked again so that the error names the first bad record.
//
// Restarts follow TensorBoard's purge rule: a SessionLog START at step S
// discards every point written before it whose step is >= S. Two passes
// make this exact without holding points back: the scan pass finds the
// STARTs, keeps those that discard something (some summary before has a
// step >= S), and of those only the ones whose step is below that of
// every later START (a later, lower START discards a superset). What
// remains is a list with rising offsets and rising steps, so a point at
// file offset o survives exactly when its step is below the step of the
// first kept START after o. At most tfMaxRestarts STARTs with rising steps
// are held while scanning; a file with more is refused.
//
// Memory: the windows, worker buffers and batches (about 16 MiB with 8
// workers), the largest summary record, the restart list, one entry per
// distinct tag and 24 bytes per chunk; past tfMaxChunks chunks, chunks
// double in size.
//
// Ends of file:
//   - an empty file is an error;
//   - 1..11 bytes after the last complete record are a length header
//     still being written: a truncated tail, as below;
//   - a length header with a bad CRC is an error, wherever it is;
//   - a length header with a good CRC whose record runs past the end of
//     the file is a truncated tail: the points before it are kept and a
//     Note says where reading stopped (at byte 0 when not even the first
//     record is complete).
//
// Files with file_version below 2 get the same START rule (TensorBoard
// would instead purge on out-of-order steps); restarts are handled within
// one file only.

const (
	tfWindow       = 1 << 20   // read window; records up to this size are decoded in place
	tfWindows      = 4         // scan-pass windows: read ahead, being framed
	tfChunkSize    = 256 << 10 // the decode pass hands out records in chunks of about this size
	tfMaxChunks    = 1 << 16   // chunks kept; past this, adjacent chunks merge
	tfMaxWorkers   = 8         // decode workers, and parts scanned in parallel
	tfMinScanPart  = 8 << 20   // smallest part of a file scanned on its own
	tfScanWindow   = 256 << 10 // read window of a part
	tfMaxRecord    = 256 << 20 // largest summary record decoded (larger non-summary records are streamed past)
	tfMaxRestarts  = 1 << 16   // STARTs with rising steps held while scanning
	tfHeaderLen    = 12
	tfFooterLen    = 4
	tfMaskDelta    = 0xa282ead8
	tfSessionStart = 1 // SessionLog.START
)

// TensorFlow DataType values the scalar decoding understands.
const (
	tfDTFloat    = 1
	tfDTDouble   = 2
	tfDTInt32    = 3
	tfDTUint8    = 4
	tfDTInt16    = 5
	tfDTInt8     = 6
	tfDTInt64    = 9
	tfDTBFloat16 = 14
	tfDTUint16   = 17
	tfDTHalf     = 19
	tfDTUint32   = 22
	tfDTUint64   = 23
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
	f, size, err := binOpen(path, sink)
	if err != nil {
		return Info{Format: TFEvents}, err
	}
	defer f.Close()
	return readTFEventsFrom(path, f.r, size, sink)
}

// tfWin is one window of the file.
type tfWin struct {
	buf  []byte
	base int64 // file offset of buf[0]
}

// tfWindowSize picks the window size: 1 MiB, or less for a small file.
func tfWindowSize(size int64) int {
	win := tfWindow
	for win > 4096 && int64(win/2) >= size {
		win /= 2
	}
	return win
}

// tfSource reads [start, end) of a file window by window: ahead of the
// reader on a goroutine of its own, or, inline, when the reader asks.
type tfSource struct {
	path   string
	r      io.ReaderAt
	off    int64 // next byte to read
	end    int64
	win    int
	inline bool
	free   chan *tfWin // windows to read into
	full   chan *tfWin // read ahead: filled windows in file order, closed after the last
	stop   chan struct{}
	done   chan struct{}
	over   bool   // inline: no more windows
	err    *Error // why reading stopped before end; for a goroutine, set before full is closed
}

// tfReadAhead starts a goroutine that reads windows ahead, into the
// windows in free.
func tfReadAhead(path string, r io.ReaderAt, start, end int64, free chan *tfWin) *tfSource {
	src := &tfSource{path: path, r: r, off: start, end: end, free: free,
		full: make(chan *tfWin, cap(free)), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(src.done)
		defer close(src.full)
		for {
			var w *tfWin
			select {
			case w = <-free:
			case <-src.stop:
				return
			}
			if !src.read(w) {
				return
			}
			select {
			case src.full <- w:
			case <-src.stop:
				return
			}
		}
	}()
	return src
}

// tfReadInline is a tfSource that reads when asked, into windows of win
// bytes it makes as needed.
func tfReadInline(path string, r io.ReaderAt, start, end int64, win int) *tfSource {
	return &tfSource{path: path, r: r, off: start, end: end, win: win, inline: true, free: make(chan *tfWin, 8)}
}

// read fills w with the next window; false when there is none.
func (src *tfSource) read(w *tfWin) bool {
	if src.off >= src.end {
		return false
	}
	n := int(min(int64(cap(w.buf)), src.end-src.off))
	m, err := src.r.ReadAt(w.buf[:n], src.off)
	w.buf, w.base = w.buf[:m], src.off
	src.off += int64(m)
	if m < n {
		// A file that shrank since it was measured ends here.
		if err != nil && err != io.EOF {
			src.err = &Error{Path: src.path, Offset: src.off, Msg: "read: " + osMsg(err)}
		}
		src.end = src.off
	}
	return m > 0
}

// get returns the next window, or nil after the last.
func (src *tfSource) get() *tfWin {
	if !src.inline {
		return <-src.full
	}
	if src.over {
		return nil
	}
	var w *tfWin
	select {
	case w = <-src.free:
	default:
		w = &tfWin{buf: make([]byte, src.win)}
	}
	if !src.read(w) {
		src.over = true
		return nil
	}
	return w
}

// put takes back a window the reader is done with.
func (src *tfSource) put(w *tfWin) {
	w.buf = w.buf[:cap(w.buf)]
	select {
	case src.free <- w:
	default:
	}
}

// close stops reading ahead, and waits for the goroutine to end.
func (src *tfSource) close() {
	if !src.inline {
		close(src.stop)
		<-src.done
	}
}

// tfCursor walks the windows of a tfSource as one byte stream.
type tfCursor struct {
	src     *tfSource
	cur     *tfWin   // nil before the first window and after the last
	p       int      // next unread byte in cur.buf
	ahead   []*tfWin // windows fetched by peek, after cur
	scratch []byte   // bytes that span windows, copied together
	started bool
}

func (c *tfCursor) next() *tfWin {
	if len(c.ahead) > 0 {
		w := c.ahead[0]
		c.ahead = append(c.ahead[:0], c.ahead[1:]...)
		return w
	}
	return c.src.get()
}

// settle makes cur the window holding the next unread byte.
func (c *tfCursor) settle() {
	if !c.started {
		c.cur, c.started = c.next(), true
	}
	for c.cur != nil && c.p >= len(c.cur.buf) {
		c.p -= len(c.cur.buf)
		c.src.put(c.cur)
		c.cur = c.next()
	}
}

// pos is the file offset of the next unread byte.
func (c *tfCursor) pos() int64 {
	c.settle()
	if c.cur == nil {
		return c.src.off
	}
	return c.cur.base + int64(c.p)
}

// peek returns the next n unread bytes (n at most a window) without
// consuming them, fewer only at the end. The result is valid until the
// next call.
func (c *tfCursor) peek(n int) []byte {
	c.settle()
	if c.cur == nil {
		return nil
	}
	if c.p+n <= len(c.cur.buf) {
		return c.cur.buf[c.p : c.p+n]
	}
	c.scratch = append(c.scratch[:0], c.cur.buf[c.p:]...)
	for i := 0; len(c.scratch) < n; i++ {
		if i == len(c.ahead) {
			w := c.src.get()
			if w == nil {
				break
			}
			c.ahead = append(c.ahead, w)
		}
		w := c.ahead[i]
		c.scratch = append(c.scratch, w.buf[:min(len(w.buf), n-len(c.scratch))]...)
	}
	return c.scratch
}

// take consumes the next n bytes and returns them: in place when they lie
// in one window, else copied together. It returns fewer only at the end.
// The result is valid until the next call.
func (c *tfCursor) take(n int) (b []byte, inPlace bool) {
	c.settle()
	if c.cur == nil {
		return nil, false
	}
	if c.p+n <= len(c.cur.buf) {
		b = c.cur.buf[c.p : c.p+n]
		c.p += n
		return b, true
	}
	c.scratch = c.scratch[:0]
	for c.cur != nil && len(c.scratch) < n {
		k := min(len(c.cur.buf)-c.p, n-len(c.scratch))
		c.scratch = append(c.scratch, c.cur.buf[c.p:c.p+k]...)
		c.p += k
		if len(c.scratch) < n {
			c.settle()
		}
	}
	return c.scratch, false
}

// stream consumes the next n bytes, handing them to fn (if not nil) piece
// by piece, and returns how many there were.
func (c *tfCursor) stream(n int64, fn func([]byte)) int64 {
	var done int64
	for done < n {
		c.settle()
		if c.cur == nil {
			break
		}
		k := int(min(int64(len(c.cur.buf)-c.p), n-done))
		if fn != nil {
			fn(c.cur.buf[c.p : c.p+k])
		}
		c.p += k
		done += int64(k)
	}
	return done
}

// close stops the cursor's source.
func (c *tfCursor) close() {
	c.cur, c.ahead = nil, nil
	c.src.close()
}

// tfCRC8 holds slicing-by-8 tables for CRC-32C, so that a record's
// 8-byte length is checked inline rather than through a call.
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

// tfRecordCheck checks both CRCs of a whole record, saying what is wrong.
func tfRecordCheck(rec []byte, crc8 *tfCRC8, tab *crc32.Table) string {
	n := len(rec) - tfHeaderLen - tfFooterLen
	if tfMask(crc8.sum8(rec)) != binary.LittleEndian.Uint32(rec[8:]) {
		return tfLengthCRCMsg
	}
	if tfMask(crc32.Checksum(rec[tfHeaderLen:tfHeaderLen+n], tab)) != binary.LittleEndian.Uint32(rec[tfHeaderLen+n:]) {
		return "record data CRC mismatch"
	}
	return ""
}

const tfLengthCRCMsg = "record length CRC mismatch (not a TensorBoard event file, or corrupt)"

// tfRestart is a SessionLog START that may discard earlier points.
type tfRestart struct {
	off  int64
	step int64
	// Of the summaries before it in the part of the file scanned with it:
	seenBefore bool  // whether there was one
	maxBefore  int64 // the largest step
}

// tfEventHead is the top level of an Event.
type tfEventHead struct {
	step    int64
	hasStep bool
	summary bool
	start   bool // a SessionLog with status START
}

// tfQuickEventHead reads the top level of an Event, fast when it is laid out
// as writers lay it out: wall_time, step, then the member of the oneof.
func tfQuickEventHead(b []byte) tfEventHead {
	var h tfEventHead
	p := b
	if len(p) >= 9 && p[0] == 0x09 { // wall_time
		p = p[9:]
	}
	if len(p) > 0 && p[0] == 0x10 { // step
		v, n := tfVarint(p[1:])
		if n <= 0 {
			h, _ = tfScanEventHead(b, true)
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
	h, _ = tfScanEventHead(b, true)
	return h
}

// tfScanEventHead reads the top level of an Event. When complete is false, b
// is a prefix of it and a field running past its end ends the scan.
func tfScanEventHead(b []byte, complete bool) (tfEventHead, error) {
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
			h.start = tfSessionLogIsStart(v)
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

// tfSessionLogIsStart reports whether a SessionLog's status is START. A
// malformed session log is not a restart.
func tfSessionLogIsStart(b []byte) bool {
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
			start = v == tfSessionStart
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

// tfChunk is a run of whole records that the decode pass handles as one.
type tfChunk struct {
	off, end int64
	large    bool // one record larger than a window
}

// tfScan is what the scan pass learns.
type tfScan struct {
	end      int64 // where the decode pass stops
	trunc    bool
	restarts []tfRestart
	maxStep  int64 // the largest step of a summary so far
	seen     bool  // whether there was a summary
	chunks   []tfChunk
	cut      int64 // where the open chunk starts
	target   int64 // chunk size aimed at
}

// note takes in the top level of the event at off.
func (scan *tfScan) note(head tfEventHead, off int64) error {
	switch {
	case head.summary:
		if !scan.seen || head.step > scan.maxStep {
			scan.maxStep = head.step
		}
		scan.seen = true
	case head.start:
		// A START discards earlier points with step >= its step; a START
		// before it with a step >= its step is redundant.
		for len(scan.restarts) > 0 && scan.restarts[len(scan.restarts)-1].step >= head.step {
			scan.restarts = scan.restarts[:len(scan.restarts)-1]
		}
		if len(scan.restarts) == tfMaxRestarts {
			return fmt.Errorf("more than %d restarts (SessionLog START) with rising steps", tfMaxRestarts)
		}
		scan.restarts = append(scan.restarts, tfRestart{off: off, step: head.step, seenBefore: scan.seen, maxBefore: scan.maxStep})
	}
	return nil
}

// tfEffectiveRestarts merges the restarts of the parts of a file, in
// order, keeping those that discard something: a START discards nothing
// when no summary before it has a step at or past its own.
func tfEffectiveRestarts(parts []tfScan) []tfRestart {
	var out []tfRestart
	seen, maxStep := false, int64(0)
	for _, part := range parts {
		for _, r := range part.restarts {
			before, m := seen || r.seenBefore, maxStep
			if !seen || r.seenBefore && r.maxBefore > m {
				m = r.maxBefore
			}
			if !before || r.step > m {
				continue
			}
			for len(out) > 0 && out[len(out)-1].step >= r.step {
				out = out[:len(out)-1]
			}
			out = append(out, r)
		}
		if part.seen && (!seen || part.maxStep > maxStep) {
			maxStep = part.maxStep
		}
		seen = seen || part.seen
	}
	return out
}

// closeChunk ends the open chunk at end, if it holds anything.
func (scan *tfScan) closeChunk(end int64) {
	if end <= scan.cut {
		return
	}
	scan.addChunk(tfChunk{off: scan.cut, end: end})
	scan.cut = end
}

func (scan *tfScan) addChunk(c tfChunk) {
	scan.chunks = append(scan.chunks, c)
	if len(scan.chunks) < tfMaxChunks {
		return
	}
	// Too many: merge neighbours, and aim at chunks twice the size.
	out := scan.chunks[:0]
	for _, c := range scan.chunks {
		if n := len(out); n > 0 && !out[n-1].large && !c.large && out[n-1].end-out[n-1].off < scan.target {
			out[n-1].end = c.end
			continue
		}
		out = append(out, c)
	}
	scan.chunks = out
	scan.target *= 2
}

// tfReadState is what both passes of one read share.
type tfReadState struct {
	path string
	r    io.ReaderAt
	size int64
	win  int
	crc8 *tfCRC8
	tab  *crc32.Table
}

func (st *tfReadState) errorf(off int64, format string, args ...any) *Error {
	return &Error{Path: st.path, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// scanPass frames every record. It trusts the lengths and leaves the CRCs
// to the decode pass, checking only the record it stops at; if it fails,
// the records before are checked so that the first bad one is named.
//
// A large file is scanned in parallel parts: each part after the first
// starts at the first place where a length is followed by its CRC, and
// scans up to the first record boundary at or past the next part's start.
// Where the parts meet at the same boundary, they framed the same records
// a sequential scan would; otherwise (a false start, a failure, too many
// restarts) the file is scanned again from the start, sequentially.
func (st *tfReadState) scanPass() (tfScan, error) {
	parts := int(min(int64(runtime.GOMAXPROCS(0)), tfMaxWorkers, st.size/tfMinScanPart))
	if parts > 1 {
		if scan, ok := st.scanParts(parts); ok {
			return scan, nil
		}
	}
	src := tfReadAhead(st.path, st.r, 0, st.size, st.windows(tfWindows))
	c := &tfCursor{src: src}
	scan, err := st.frameAll(c, 0, math.MaxInt64)
	c.close()
	if err == nil && src.err != nil {
		err = src.err
	}
	if err == nil {
		scan.restarts = tfEffectiveRestarts([]tfScan{scan})
		return scan, nil
	}
	var e *Error
	if errors.As(err, &e) && e.Offset > 0 {
		if first := st.firstBadRecord(e.Offset); first != nil {
			return scan, first
		}
	}
	return scan, err
}

// windows makes n windows.
func (st *tfReadState) windows(n int) chan *tfWin {
	free := make(chan *tfWin, n)
	for range n {
		free <- &tfWin{buf: make([]byte, st.win)}
	}
	return free
}

// scanParts scans the file in parts, in parallel; false when the parts do
// not join up or one fails.
func (st *tfReadState) scanParts(parts int) (tfScan, bool) {
	type result struct {
		start int64 // where its first record is
		scan  tfScan
		ok    bool
	}
	results := make([]result, parts)
	var wg sync.WaitGroup
	for i := range parts {
		from := st.size / int64(parts) * int64(i)
		limit := st.size / int64(parts) * int64(i+1)
		if i == parts-1 {
			limit = math.MaxInt64
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &tfCursor{src: tfReadInline(st.path, st.r, from, st.size, tfScanWindow)}
			defer c.close()
			if i > 0 && !st.syncTo(c, tfWindow) {
				return
			}
			start := c.pos()
			scan, err := st.frameAll(c, start, limit)
			results[i] = result{start: start, scan: scan, ok: err == nil && c.src.err == nil}
		}()
	}
	wg.Wait()
	all := tfScan{target: tfChunkSize}
	scans := make([]tfScan, 0, parts)
	for i, r := range results {
		if !r.ok || i > 0 && r.start != results[i-1].scan.end {
			return tfScan{}, false
		}
		scans = append(scans, r.scan)
		all.target = max(all.target, r.scan.target)
		for _, c := range r.scan.chunks {
			all.addChunk(c)
		}
	}
	last := results[parts-1].scan
	all.end, all.trunc = last.end, last.trunc
	all.restarts = tfEffectiveRestarts(scans)
	return all, true
}

// syncTo moves c to the first place, within the next n bytes, where a
// record's length is followed by its CRC; false when there is none.
func (st *tfReadState) syncTo(c *tfCursor, n int) bool {
	for range n {
		h := c.peek(tfHeaderLen)
		if len(h) < tfHeaderLen {
			return false
		}
		if tfMask(st.crc8.sum8(h)) == binary.LittleEndian.Uint32(h[8:]) {
			if left := st.size - c.pos() - tfHeaderLen - tfFooterLen; left >= 0 && binary.LittleEndian.Uint64(h) <= uint64(left) {
				return true
			}
		}
		c.stream(1, nil)
	}
	return false
}

// frameAll is the framing loop of the scan pass: from the record at
// start to the first record boundary at or past limit, or the end.
func (st *tfReadState) frameAll(c *tfCursor, start, limit int64) (tfScan, error) {
	scan := tfScan{target: tfChunkSize, cut: start}
	for {
		// The common case: the whole record lies in the current window.
		if w := c.cur; w != nil && c.p+tfHeaderLen+tfFooterLen <= len(w.buf) && w.base+int64(c.p) < limit {
			p := c.p
			if length := binary.LittleEndian.Uint64(w.buf[p:]); length <= uint64(len(w.buf)-p-tfHeaderLen-tfFooterLen) {
				n := int(length)
				off := w.base + int64(p)
				c.p = p + tfHeaderLen + n + tfFooterLen
				if err := scan.note(tfQuickEventHead(w.buf[p+tfHeaderLen:p+tfHeaderLen+n]), off); err != nil {
					return scan, st.errorf(off, "%s", err)
				}
				if end := w.base + int64(c.p); end-scan.cut >= scan.target {
					scan.closeChunk(end)
				}
				continue
			}
		}

		off := c.pos()
		if off >= limit {
			scan.end = off
			scan.closeChunk(off)
			return scan, nil
		}
		h := c.peek(tfHeaderLen)
		switch {
		case len(h) == 0 && off == 0:
			return scan, st.errorf(0, "empty file")
		case len(h) == 0:
			scan.end = off
			scan.closeChunk(off)
			return scan, nil
		case len(h) < tfHeaderLen:
			// A header still being written: its writer's unfinished work.
			scan.end, scan.trunc = off, true
			scan.closeChunk(off)
			return scan, nil
		}
		length := binary.LittleEndian.Uint64(h)
		lengthOK := tfMask(st.crc8.sum8(h)) == binary.LittleEndian.Uint32(h[8:])
		if left := st.size - off - tfHeaderLen - tfFooterLen; left < 0 || length > uint64(left) {
			if !lengthOK {
				return scan, st.errorf(off, "%s", tfLengthCRCMsg)
			}
			scan.end, scan.trunc = off, true
			scan.closeChunk(off)
			return scan, nil
		}
		n := int(length)
		total := tfHeaderLen + n + tfFooterLen
		var head tfEventHead
		if total <= st.win {
			rec, _ := c.take(total)
			if len(rec) < total {
				// The file shrank: the record is cut short.
				if !lengthOK {
					return scan, st.errorf(off, "%s", tfLengthCRCMsg)
				}
				scan.end, scan.trunc = off, true
				scan.closeChunk(off)
				return scan, nil
			}
			head = tfQuickEventHead(rec[tfHeaderLen : tfHeaderLen+n])
			if err := scan.note(head, off); err != nil {
				return scan, st.errorf(off, "%s", err)
			}
			if end := off + int64(total); end-scan.cut >= scan.target {
				scan.closeChunk(end)
			}
			continue
		}
		// Larger than a window: a chunk of its own, read by the decode
		// pass as it streams by. Its length must be right before the
		// framing relies on it.
		if !lengthOK {
			return scan, st.errorf(off, "%s", tfLengthCRCMsg)
		}
		head, _ = tfScanEventHead(c.peek(st.win)[tfHeaderLen:], false)
		if head.summary && !head.hasStep {
			// The step lies beyond the prefix; assume the worst.
			head.step, head.hasStep = math.MaxInt64, true
		}
		if c.stream(int64(total), nil) < int64(total) {
			scan.end, scan.trunc = off, true
			scan.closeChunk(off)
			return scan, nil
		}
		if err := scan.note(head, off); err != nil {
			return scan, st.errorf(off, "%s", err)
		}
		scan.closeChunk(off)
		scan.addChunk(tfChunk{off: off, end: off + int64(total), large: true})
		scan.cut = off + int64(total)
	}
}

// firstBadRecord checks the records before limit in order, and returns an
// error for the first that fails a CRC check, if one does.
func (st *tfReadState) firstBadRecord(limit int64) *Error {
	buf := make([]byte, st.win)
	var crc uint32
	for off := int64(0); off < limit; {
		h := buf[:tfHeaderLen]
		if m, _ := st.r.ReadAt(h, off); m < tfHeaderLen {
			return nil
		}
		if tfMask(st.crc8.sum8(h)) != binary.LittleEndian.Uint32(h[8:]) {
			return st.errorf(off, "%s", tfLengthCRCMsg)
		}
		n := int64(binary.LittleEndian.Uint64(h))
		if n > st.size-off-tfHeaderLen-tfFooterLen {
			return nil
		}
		crc = 0
		for at := off + tfHeaderLen; at < off+tfHeaderLen+n; {
			k := min(int64(len(buf)), off+tfHeaderLen+n-at)
			if m, _ := st.r.ReadAt(buf[:k], at); int64(m) < k {
				return nil
			}
			crc = crc32.Update(crc, st.tab, buf[:k])
			at += k
		}
		foot := buf[:tfFooterLen]
		if m, _ := st.r.ReadAt(foot, off+tfHeaderLen+n); m < tfFooterLen {
			return nil
		}
		if tfMask(crc) != binary.LittleEndian.Uint32(foot) {
			return st.errorf(off, "record data CRC mismatch")
		}
		off += tfHeaderLen + n + tfFooterLen
	}
	return nil
}

// tfTag is a tag, shared by the workers and the delivering goroutine.
type tfTag struct {
	name string
	// want is tfWantUnknown until the delivering goroutine has asked the
	// sink; workers read it to stop decoding values nobody wants.
	want atomic.Int32
	// plugin comes from the latest metadata in file order (metadata may
	// come only with a tag's first value); only the delivering goroutine
	// touches it.
	plugin string
}

const (
	tfWantUnknown = iota
	tfWantYes
	tfWantNo
)

// tfRegistry holds the read's tags.
type tfRegistry struct {
	mu   sync.Mutex
	tags map[string]*tfTag
}

func (r *tfRegistry) get(name []byte) *tfTag {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.tags[string(name)]
	if t == nil {
		t = &tfTag{name: string(name)}
		r.tags[t.name] = t
	}
	return t
}

// A tfEntry is one decoded value, or a change to a tag's plugin.
type tfEntry struct {
	t     *tfTag
	step  int64
	wall  float64
	value float64
}

// What an entry is, in its flags byte.
const (
	tfeSimple    = iota // a simple_value
	tfeTensor           // a tensor, a scalar if its tag's plugin is "scalars"
	tfeTensorErr        // a tensor that does not decode: an error if its tag is wanted
	tfePlugin           // metadata naming the tag's plugin
	tfeKind      = 0x0f
	tfeOrphan    = 0x80 // discarded by a later restart
)

// tfExtra is what an entry other than a simple value also carries.
type tfExtra struct {
	off int64  // the record's offset
	aux string // tfeTensor: why it is not a scalar ("" when it is); tfeTensorErr: the error; tfePlugin: the plugin
}

// tfBatch holds the decoded values of one chunk.
type tfBatch struct {
	entries []tfEntry
	flags   []uint8   // one per entry
	extras  []tfExtra // one per entry that is not a simple value, in order
	err     error     // what stopped the chunk after these entries
}

func (b *tfBatch) reset() {
	b.entries, b.flags, b.extras, b.err = b.entries[:0], b.flags[:0], b.extras[:0], nil
}

// tfJob is a chunk given to a worker.
type tfJob struct {
	chunk tfChunk
	out   chan *tfBatch
}

// tfDelivery is the delivering side of the decode pass.
type tfDelivery struct {
	sink    Sink
	path    string
	points  int64
	dropped int64
	skipped map[string]int64
}

func (dv *tfDelivery) skip(kind string) {
	tfCount(dv.skipped, kind, 1)
}

// tfCount adds n to a skip count, folding kinds past tfMaxSkipKinds into "other".
func tfCount(m map[string]int64, kind string, n int64) {
	if _, ok := m[kind]; !ok && len(m) >= tfMaxSkipKinds {
		kind = "other"
	}
	m[kind] += n
}

const tfMaxSkipKinds = 16

// deliver hands a batch's points to the sink.
func (dv *tfDelivery) deliver(b *tfBatch) error {
	x := 0 // next extra
	for i := range b.entries {
		e := &b.entries[i]
		t := e.t
		kind := b.flags[i] & tfeKind
		var extra tfExtra
		if kind != tfeSimple {
			extra = b.extras[x]
			x++
		}
		switch kind {
		case tfePlugin:
			t.plugin = extra.aux
			continue
		case tfeTensor, tfeTensorErr:
			if t.plugin != "scalars" {
				if t.plugin == "" {
					dv.skip("tensors without a plugin")
				} else {
					dv.skip(t.plugin)
				}
				continue
			}
		}
		want := t.want.Load()
		if want == tfWantUnknown {
			want = tfWantNo
			if dv.sink.Want(t.name) {
				want = tfWantYes
			}
			t.want.Store(want)
		}
		if want != tfWantYes {
			continue
		}
		switch {
		case kind == tfeTensorErr:
			return &Error{Path: dv.path, Offset: extra.off, Msg: extra.aux}
		case kind == tfeTensor && extra.aux != "":
			dv.skip(extra.aux)
			continue
		case b.flags[i]&tfeOrphan != 0:
			dv.dropped++
			continue
		}
		if err := dv.sink.Point(t.name, Point{Step: e.step, WallTime: e.wall, Value: e.value}); err != nil {
			return err
		}
		dv.points++
	}
	return b.err
}

// decodePass decodes the chunks on workers and delivers their points in order.
func (st *tfReadState) decodePass(scan tfScan, dv *tfDelivery) error {
	reg := &tfRegistry{tags: make(map[string]*tfTag)}
	workers := max(1, min(runtime.GOMAXPROCS(0), tfMaxWorkers, len(scan.chunks)))
	ahead := 2 * workers // chunks handed out before their turn
	jobs := make(chan *tfJob, ahead)
	// Enough batches that the chunk whose turn it is always gets one: the
	// others are held by at most ahead-1 decoded chunks waiting their turn
	// and workers-1 chunks being decoded.
	batches := make(chan *tfBatch, ahead+workers+1)
	for range cap(batches) {
		batches <- new(tfBatch)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var pool []*tfWorker
	for range workers {
		wk := st.newWorker(reg, scan.restarts)
		pool = append(pool, wk)
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk.run(jobs, batches, stop)
		}()
	}
	stopped := false
	defer func() {
		if !stopped {
			close(stop)
		}
		wg.Wait()
	}()
	inline := st.newWorker(reg, scan.restarts) // for the large records
	inline.batch = new(tfBatch)

	var queue []*tfJob
	sent := 0
	for range scan.chunks {
		for sent < len(scan.chunks) && len(queue) < ahead {
			j := &tfJob{chunk: scan.chunks[sent], out: make(chan *tfBatch, 1)}
			if !j.chunk.large {
				jobs <- j
			}
			queue = append(queue, j)
			sent++
		}
		j := queue[0]
		queue = queue[1:]
		if j.chunk.large {
			b := inline.large(j.chunk)
			err := dv.deliver(b)
			b.reset()
			if err != nil {
				return err
			}
			continue
		}
		b := <-j.out
		err := dv.deliver(b)
		b.reset()
		batches <- b
		if err != nil {
			return err
		}
	}
	close(jobs)
	stopped = true
	wg.Wait()
	for _, wk := range append(pool, inline) {
		for k, n := range wk.skipped {
			tfCount(dv.skipped, k, n)
		}
	}
	return nil
}

// tfWorker decodes records into batches.
type tfWorker struct {
	st       *tfReadState
	reg      *tfRegistry
	local    map[string]*tfLocalTag
	last     *tfLocalTag // the tag of the previous value
	skipped  map[string]int64
	restarts []tfRestart
	batch    *tfBatch // of the chunk being decoded
	buf      []byte

	gen       int   // chunks taken, counting from 1
	off       int64 // the record being decoded
	wall      float64
	step      int64
	next      int   // first restart after the record
	threshold int64 // points with step >= threshold are orphaned by restarts[next]
	purge     bool
}

// tfLocalTag is a worker's view of a tag.
type tfLocalTag struct {
	t      *tfTag
	next   *tfLocalTag // the tag that followed this one last time
	plugin string      // the plugin last passed on for it in chunk gen
	gen    int
}

func (st *tfReadState) newWorker(reg *tfRegistry, restarts []tfRestart) *tfWorker {
	wk := &tfWorker{st: st, reg: reg, local: make(map[string]*tfLocalTag), skipped: make(map[string]int64),
		restarts: restarts}
	if wk.purge = len(restarts) > 0; wk.purge {
		wk.threshold = restarts[0].step
	}
	return wk
}

func (wk *tfWorker) errorf(format string, args ...any) *Error {
	return &Error{Path: wk.st.path, Offset: wk.off, Msg: fmt.Sprintf(format, args...)}
}

func (wk *tfWorker) malformed(what string, n int) *Error {
	return wk.errorf("malformed %s (%v)", what, protowire.ParseError(n))
}

func (wk *tfWorker) skip(kind string) { tfCount(wk.skipped, kind, 1) }

// seek points the restart state at the first restart after off.
func (wk *tfWorker) seek(off int64) {
	r, i := wk.restarts, wk.next
	if len(r) == 0 || (i == len(r) || r[i].off > off) && (i == 0 || r[i-1].off <= off) {
		return
	}
	wk.next = sort.Search(len(r), func(i int) bool { return r[i].off > off })
	wk.purge = wk.next < len(r)
	if wk.purge {
		wk.threshold = r[wk.next].step
	}
}

// run takes jobs until there are none or the pass stops.
func (wk *tfWorker) run(jobs <-chan *tfJob, batches chan *tfBatch, stop <-chan struct{}) {
	for {
		var j *tfJob
		select {
		case j = <-jobs:
		case <-stop:
			return
		}
		if j == nil {
			return
		}
		select {
		case wk.batch = <-batches:
		case <-stop:
			return
		}
		wk.chunk(j)
		j.out <- wk.batch // buffered: never blocks
	}
}

// chunk decodes the records of one chunk into wk.batch.
func (wk *tfWorker) chunk(j *tfJob) {
	st := wk.st
	wk.gen++
	if wk.buf == nil {
		wk.buf = make([]byte, st.win)
	}
	buf := wk.buf
	base, lo, hi := j.chunk.off, 0, 0 // buf[lo:hi] holds the file from base+lo
	fail := func(err error) {
		wk.batch.err = err
	}
	for {
		off := base + int64(lo)
		if off >= j.chunk.end {
			break
		}
		if hi-lo < tfHeaderLen+tfFooterLen || hi-lo < tfHeaderLen+int(min(binary.LittleEndian.Uint64(buf[lo:]), uint64(st.win)))+tfFooterLen {
			copy(buf, buf[lo:hi])
			base, hi, lo = off, hi-lo, 0
			want := int(min(int64(len(buf)-hi), j.chunk.end-(base+int64(hi))))
			m, err := st.r.ReadAt(buf[hi:hi+want], base+int64(hi))
			hi += m
			if m < want {
				if err != nil && err != io.EOF {
					fail(st.errorf(base+int64(hi), "read: %s", osMsg(err)))
					return
				}
				fail(st.errorf(off, "the file changed while being read"))
				return
			}
			if hi < tfHeaderLen+tfFooterLen {
				fail(st.errorf(off, "the file changed while being read"))
				return
			}
		}
		length := binary.LittleEndian.Uint64(buf[lo:])
		if length > uint64(hi-lo-tfHeaderLen-tfFooterLen) {
			// Checked by the scan pass only if this record's length was
			// right: it may be a wrong one that derailed the framing.
			if tfMask(st.crc8.sum8(buf[lo:])) != binary.LittleEndian.Uint32(buf[lo+8:]) {
				fail(st.errorf(off, "%s", tfLengthCRCMsg))
				return
			}
			fail(st.errorf(off, "the file changed while being read"))
			return
		}
		n := int(length)
		rec := buf[lo : lo+tfHeaderLen+n+tfFooterLen]
		if msg := tfRecordCheck(rec, st.crc8, st.tab); msg != "" {
			fail(st.errorf(off, "%s", msg))
			return
		}
		wk.off = off
		wk.seek(off)
		if err := wk.event(rec[tfHeaderLen : tfHeaderLen+n]); err != nil {
			fail(err)
			return
		}
		lo += len(rec)
	}
}

// large decodes a chunk of one record larger than a window, on the
// delivering goroutine; the batch it returns is its own to reuse.
func (wk *tfWorker) large(c tfChunk) *tfBatch {
	st := wk.st
	b := wk.batch
	wk.gen++
	wk.off = c.off
	total := c.end - c.off
	n := total - tfHeaderLen - tfFooterLen
	prefix := make([]byte, min(total, int64(st.win)))
	if m, _ := st.r.ReadAt(prefix, c.off); m < len(prefix) {
		b.err = st.errorf(c.off, "the file changed while being read")
		return b
	}
	if tfMask(st.crc8.sum8(prefix)) != binary.LittleEndian.Uint32(prefix[8:]) || int64(binary.LittleEndian.Uint64(prefix)) != n {
		b.err = st.errorf(c.off, "%s", tfLengthCRCMsg)
		return b
	}
	head, _ := tfScanEventHead(prefix[tfHeaderLen:], false)
	if !head.summary || n > tfMaxRecord {
		// Stream it through the checksum; it is not decoded.
		var crc uint32
		for at := c.off + tfHeaderLen; at < c.off+tfHeaderLen+n; {
			k := min(int64(len(prefix)), c.off+tfHeaderLen+n-at)
			if m, _ := st.r.ReadAt(prefix[:k], at); int64(m) < k {
				b.err = st.errorf(c.off, "the file changed while being read")
				return b
			}
			crc = crc32.Update(crc, st.tab, prefix[:k])
			at += k
		}
		foot := prefix[:tfFooterLen]
		if m, _ := st.r.ReadAt(foot, c.end-tfFooterLen); m < tfFooterLen {
			b.err = st.errorf(c.off, "the file changed while being read")
			return b
		}
		switch {
		case tfMask(crc) != binary.LittleEndian.Uint32(foot):
			b.err = st.errorf(c.off, "record data CRC mismatch")
		case head.summary:
			b.err = st.errorf(c.off, "summary record of %d bytes is larger than the %d-byte limit", n, tfMaxRecord)
		}
		return b
	}
	rec := make([]byte, total)
	if m, _ := st.r.ReadAt(rec, c.off); int64(m) < total {
		b.err = st.errorf(c.off, "the file changed while being read")
		return b
	}
	if msg := tfRecordCheck(rec, st.crc8, st.tab); msg != "" {
		b.err = st.errorf(c.off, "%s", msg)
		return b
	}
	wk.seek(c.off)
	if err := wk.event(rec[tfHeaderLen : tfHeaderLen+n]); err != nil {
		b.err = err
	}
	return b
}

// tfShortBytes reads a length-delimited field whose length fits one byte,
// the common case; ok is false otherwise, and protowire takes over.
func tfShortBytes(b []byte) (v []byte, n int, ok bool) {
	if len(b) > 0 && b[0] < 0x80 && int(b[0]) < len(b) {
		return b[1 : 1+b[0]], 1 + int(b[0]), true
	}
	return nil, 0, false
}

// The keys of the fields decoded on every record, as they appear on the
// wire: field number << 3 | wire type.
const (
	tfKeyEventWall    = 1<<3 | 1 // Event.wall_time, fixed64
	tfKeyEventStep    = 2<<3 | 0 // Event.step, varint
	tfKeyEventSummary = 5<<3 | 2 // Event.summary
	tfKeySummaryValue = 1<<3 | 2 // Summary.value
	tfKeyValueTag     = 1<<3 | 2 // Summary.Value.tag
	tfKeyValueSimple  = 2<<3 | 5 // Summary.Value.simple_value, fixed32
)

// tfVarint decodes a varint, returning n <= 0 when b holds no complete
// one. Varints of up to 8 bytes, when 8 bytes are there to load, are
// decoded without a loop.
func tfVarint(b []byte) (v uint64, n int) {
	if len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		if stop := ^x & 0x8080808080808080; stop != 0 {
			n = bits.TrailingZeros64(stop)/8 + 1
			x &= 0x7f7f7f7f7f7f7f7f >> (64 - 8*n)
			x = x&0x007f007f007f007f | x&0x7f007f007f007f00>>1
			x = x&0x00003fff00003fff | x&0x3fff00003fff0000>>2
			x = x&0x000000000fffffff | x&0x0fffffff00000000>>4
			return x, n
		}
	}
	v, n = protowire.ConsumeVarint(b)
	if n < 0 {
		n = 0
	}
	return v, n
}

// event decodes one Event.
func (wk *tfWorker) event(b []byte) error {
	// Nearly every record of a scalar log has one shape: wall_time, step,
	// and a summary holding one simple_value. Take it in one sweep; any
	// other layout goes the general way.
	if len(b) > 9 && b[0] == tfKeyEventWall {
		p := b[9:]
		var step uint64
		n := 0
		if p[0] == tfKeyEventStep {
			if step, n = tfVarint(p[1:]); n > 0 {
				p = p[1+n:]
			}
		}
		if n >= 0 && len(p) >= 4 && p[0] == tfKeyEventSummary && p[1] < 0x80 && int(p[1]) == len(p)-2 &&
			p[2] == tfKeySummaryValue && p[3] < 0x80 && int(p[3]) == len(p)-4 {
			v := p[4:]
			if len(v) >= 2 && v[0] == tfKeyValueTag && v[1] < 0x80 && int(v[1])+7 == len(v) && v[2+v[1]] == tfKeyValueSimple {
				wk.wall = math.Float64frombits(binary.LittleEndian.Uint64(b[1:]))
				wk.step = int64(step)
				wk.simple(v[2:2+v[1]], binary.LittleEndian.Uint32(v[3+v[1]:]))
				return nil
			}
		}
	}
	return wk.eventSlow(b)
}

// add appends an entry for the current record.
func (wk *tfWorker) add(t *tfTag, kind uint8, value float64, aux string) {
	b := wk.batch
	b.entries = append(b.entries, tfEntry{t: t, step: wk.step, wall: wk.wall, value: value})
	flags := kind
	if wk.purge && wk.step >= wk.threshold {
		flags |= tfeOrphan
	}
	b.flags = append(b.flags, flags)
	if kind != tfeSimple {
		b.extras = append(b.extras, tfExtra{off: wk.off, aux: aux})
	}
}

// simple takes in a simple_value.
func (wk *tfWorker) simple(tag []byte, bits uint32) {
	if len(tag) == 0 {
		wk.skip("values without a tag")
		return
	}
	t := wk.lookup(tag).t
	if t.want.Load() == tfWantNo {
		return
	}
	wk.add(t, tfeSimple, float64(math.Float32frombits(bits)), "")
}

// eventSlow decodes an Event of any layout.
func (wk *tfWorker) eventSlow(b []byte) error {
	wk.wall, wk.step = 0, 0
	var summary []byte
	summaries := 0
	for p := b; len(p) > 0; {
		switch p[0] {
		case tfKeyEventWall:
			if len(p) < 9 {
				return wk.malformed("event", -1)
			}
			wk.wall = math.Float64frombits(binary.LittleEndian.Uint64(p[1:]))
			p = p[9:]
			continue
		case tfKeyEventStep:
			v, n := tfVarint(p[1:])
			if n <= 0 {
				return wk.malformed("event", -1)
			}
			wk.step = int64(v)
			p = p[1+n:]
			continue
		case tfKeyEventSummary:
			s, n, ok := tfShortBytes(p[1:])
			if !ok {
				if s, n = protowire.ConsumeBytes(p[1:]); n < 0 {
					return wk.malformed("event", n)
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
			return wk.malformed("event", n)
		}
		p = p[n:]
		switch {
		case num == 1 && typ == protowire.Fixed64Type:
			var v uint64
			v, n = protowire.ConsumeFixed64(p)
			wk.wall = math.Float64frombits(v)
		case num == 2 && typ == protowire.VarintType:
			var v uint64
			v, n = protowire.ConsumeVarint(p)
			wk.step = int64(v)
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
			return wk.malformed("event", n)
		}
		p = p[n:]
	}
	if summaries <= 1 {
		return wk.summary(summary)
	}
	// Repeated summary fields merge: their values concatenate.
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		b = b[n:]
		if num == 5 && typ == protowire.BytesType {
			s, m := protowire.ConsumeBytes(b)
			if err := wk.summary(s); err != nil {
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
func (wk *tfWorker) summary(b []byte) error {
	for len(b) > 0 {
		if b[0] == tfKeySummaryValue {
			v, m, ok := tfShortBytes(b[1:])
			if !ok {
				if v, m = protowire.ConsumeBytes(b[1:]); m < 0 {
					return wk.malformed("summary", m)
				}
			}
			if err := wk.value(v); err != nil {
				return err
			}
			b = b[1+m:]
			continue
		}
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return wk.malformed("summary", n)
		}
		b = b[n:]
		if num == 1 && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return wk.malformed("summary", m)
			}
			if err := wk.value(v); err != nil {
				return err
			}
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return wk.malformed("summary", m)
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

// lookup finds a tag. Writers log tags in the same order step after step,
// so the tag that followed the previous one last time is tried before the
// map.
func (wk *tfWorker) lookup(tag []byte) *tfLocalTag {
	var l *tfLocalTag
	if wk.last != nil && wk.last.next != nil && wk.last.next.t.name == string(tag) {
		l = wk.last.next
	} else {
		if l = wk.local[string(tag)]; l == nil {
			l = &tfLocalTag{t: wk.reg.get(tag)}
			wk.local[l.t.name] = l
		}
		if wk.last != nil {
			wk.last.next = l
		}
	}
	wk.last = l
	return l
}

// value decodes one Summary.Value.
func (wk *tfWorker) value(b []byte) error {
	var tag, tensor, plugin []byte
	var simple uint32
	kind, hasPlugin := tfKindNoValue, false
	for len(b) > 0 {
		switch b[0] {
		case tfKeyValueTag:
			t, n, ok := tfShortBytes(b[1:])
			if ok {
				tag, b = t, b[1+n:]
				continue
			}
		case tfKeyValueSimple:
			if len(b) < 5 {
				return wk.malformed("summary value", -1)
			}
			simple, kind = binary.LittleEndian.Uint32(b[1:]), tfKindSimple
			b = b[5:]
			continue
		}
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return wk.malformed("summary value", n)
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
				if p, ok := tfPluginName(md); ok {
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
			return wk.malformed("summary value", n)
		}
		b = b[n:]
	}

	if len(tag) == 0 {
		wk.skip("values without a tag")
		return nil
	}
	l := wk.lookup(tag)
	t := l.t
	unwanted := t.want.Load() == tfWantNo
	if hasPlugin && !unwanted && (l.gen != wk.gen || l.plugin != string(plugin)) {
		// Said once per tag and chunk, and again when it changes.
		l.plugin, l.gen = string(plugin), wk.gen
		wk.add(t, tfePlugin, 0, l.plugin)
	}
	switch kind {
	case tfKindSimple:
		if !unwanted {
			wk.add(t, tfeSimple, float64(math.Float32frombits(simple)), "")
		}
	case tfKindTensor:
		if unwanted {
			return nil
		}
		v, why, err := wk.scalarTensor(tensor)
		if err != nil {
			var e *Error
			errors.As(err, &e)
			wk.add(t, tfeTensorErr, 0, e.Msg)
			return nil
		}
		wk.add(t, tfeTensor, v, why)
	case tfKindImage:
		wk.skip("images")
	case tfKindHisto:
		wk.skip("histograms")
	case tfKindAudio:
		wk.skip("audio")
	default:
		wk.skip("values without data")
	}
	return nil
}

// tfPluginName finds SummaryMetadata.plugin_data.plugin_name.
func tfPluginName(md []byte) ([]byte, bool) {
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
	case tfDTFloat:
		return 4, 5, true
	case tfDTDouble:
		return 8, 6, true
	case tfDTInt32:
		return 4, 7, true
	case tfDTInt16, tfDTUint16:
		return 2, 7, true
	case tfDTInt8, tfDTUint8:
		return 1, 7, true
	case tfDTInt64:
		return 8, 10, true
	case tfDTHalf, tfDTBFloat16:
		return 2, 13, true
	case tfDTUint32:
		return 4, 16, true
	case tfDTUint64:
		return 8, 17, true
	}
	return 0, 0, false
}

// scalarTensor reads the value of a one-element numeric TensorProto. A
// tensor that is not one is reported by why, for the skip note.
func (wk *tfWorker) scalarTensor(b []byte) (v float64, why string, err error) {
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
			return 0, "", wk.malformed("tensor", n)
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			dtype, n = protowire.ConsumeVarint(b)
		case num == 2 && typ == protowire.BytesType:
			var shape []byte
			if shape, n = protowire.ConsumeBytes(b); n >= 0 {
				if elems, err = wk.shapeElems(shape); err != nil {
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
				return 0, "", wk.errorf("malformed tensor (bad %s values)", tfValueField(num))
			}
			if count[num] == 0 && c > 0 {
				vals[num], wire[num] = raw, typ
			}
			count[num] += c
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return 0, "", wk.malformed("tensor", n)
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
			return 0, "", wk.errorf("malformed tensor (%d content bytes for %d-byte elements)", len(content), size)
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
		return 0, "", wk.errorf("malformed tensor (a scalar with no value)")
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
	case tfDTFloat:
		return float64(math.Float32frombits(uint32(bits)))
	case tfDTDouble:
		return math.Float64frombits(bits)
	case tfDTInt32:
		return float64(int32(bits))
	case tfDTInt16:
		return float64(int16(bits))
	case tfDTInt8:
		return float64(int8(bits))
	case tfDTUint8:
		return float64(uint8(bits))
	case tfDTUint16:
		return float64(uint16(bits))
	case tfDTInt64:
		return float64(int64(bits))
	case tfDTUint32:
		return float64(uint32(bits))
	case tfDTUint64:
		return float64(bits)
	case tfDTHalf:
		return tfHalfToFloat(uint16(bits))
	case tfDTBFloat16:
		return float64(math.Float32frombits(uint32(uint16(bits)) << 16))
	}
	return math.NaN()
}

// tfHalfToFloat converts IEEE 754 binary16 bits.
func tfHalfToFloat(h uint16) float64 {
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
func (wk *tfWorker) shapeElems(b []byte) (int64, error) {
	elems := int64(1)
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, wk.malformed("tensor shape", n)
		}
		b = b[n:]
		if num == 3 && typ == protowire.VarintType {
			// unknown_rank
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return 0, wk.malformed("tensor shape", m)
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
				return 0, wk.malformed("tensor shape", m)
			}
			b = b[m:]
			continue
		}
		dim, m := protowire.ConsumeBytes(b)
		if m < 0 {
			return 0, wk.malformed("tensor shape", m)
		}
		b = b[m:]
		size := int64(0) // proto3 default
		for len(dim) > 0 {
			dn, dt, k := protowire.ConsumeTag(dim)
			if k < 0 {
				return 0, wk.malformed("tensor shape", k)
			}
			dim = dim[k:]
			if dn == 1 && dt == protowire.VarintType {
				v, j := protowire.ConsumeVarint(dim)
				if j < 0 {
					return 0, wk.malformed("tensor shape", j)
				}
				size = int64(v)
				dim = dim[j:]
				continue
			}
			j := protowire.ConsumeFieldValue(dn, dt, dim)
			if j < 0 {
				return 0, wk.malformed("tensor shape", j)
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
	st := &tfReadState{path: path, r: r, size: size, win: tfWindowSize(size),
		crc8: newTFCRC8(), tab: crc32.MakeTable(crc32.Castagnoli)}
	scan, err := st.scanPass()
	if err != nil {
		return info, err
	}
	dv := &tfDelivery{sink: sink, path: path, skipped: make(map[string]int64)}
	err = st.decodePass(scan, dv)
	info.Points = dv.points
	if err != nil {
		return info, err
	}
	if len(dv.skipped) > 0 {
		info.Notes = append(info.Notes, tfSkipNote(dv.skipped))
	}
	if dv.dropped > 0 {
		info.Notes = append(info.Notes, fmt.Sprintf("dropped %d points written before a restart (SessionLog START) with a step at or after the restart's step, as TensorBoard does", dv.dropped))
	}
	if scan.trunc {
		info.Notes = append(info.Notes, fmt.Sprintf("stopped at a truncated record at byte %d (the writer was still running or crashed)", scan.end))
		info.TruncatedAt = scan.end
	}
	return info, nil
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
