package metrics

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"runtime"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
)

// The scan pass of the tfevents reader: windows over the file, record
// framing and CRCs, and the chunks and restarts the decode pass works on.

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
	return lastVarint(b, 1) == tfSessionStart
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
	path  string
	r     io.ReaderAt
	size  int64
	win   int
	chunk int64 // the one-pass read's chunk size
	crc8  *tfCRC8
	tab   *crc32.Table
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
