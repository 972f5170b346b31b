package metrics

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Shared pieces of the text readers: opening and sniffing a file, the tag
// table, step and value parsing, notes, and the block pipeline that lets the
// line formats (JSONL, CSV) parse on several cores while delivering points
// in file order.

// headSize is how much of a file detection and the binary check look at.
const headSize = 4096

// stepKeys are the keys or columns that may hold the step, most preferred
// first. A file's step key is the first of these present in its first row
// with an integer value.
func stepKeys() []string {
	return []string{
		"step", "_step", "global_step", "total_timesteps", "time/total_timesteps",
		"timesteps", "TimestepsSoFar", "Timesteps", "TotalEnvSteps",
		"iteration", "Iteration", "epoch", "Epoch",
	}
}

// wallKeys may hold the wall time in seconds since the Unix epoch; the first
// present in the first row with a plausible value is used.
func wallKeys() []string { return []string{"_timestamp", "wall_time", "time", "timestamp"} }

// plausibleWall reports whether v reads as seconds since the Unix epoch
// (1973 to 5138): smaller values are durations, larger ones milliseconds.
func plausibleWall(v float64) bool { return v >= 1e8 && v < 1e11 }

// utf8BOM starts files written by Excel and some Windows tools.
const utf8BOM = "\xEF\xBB\xBF"

// binaryAt returns the index of the first byte in b that a text file cannot
// hold (NUL, or invalid UTF-8), or -1. With partial set, a multi-byte
// character cut off by the end of b is not counted against it.
func binaryAt(b []byte, partial bool) int {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == 0 {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			if partial && !utf8.FullRune(b[i:]) {
				return -1
			}
			return i
		}
		i += size
	}
	return -1
}

// lineAt returns the 1-based line of byte i of b.
func lineAt(b []byte, i int) int { return bytes.Count(b[:i], []byte{'\n'}) + 1 }

func binaryError(path string, f Format, line int, off int64) *Error {
	return &Error{Path: path, Line: line, Offset: off,
		Msg: fmt.Sprintf("binary data at byte %d; not a %s file", off, f)}
}

// trimCR drops the carriage return of a CRLF line ending.
func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

// isBlank reports whether a line holds only spaces and tabs.
func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// parseStep reads a step: an integer, or a float with an integer value.
func parseStep(s string) (int64, bool) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != math.Trunc(v) || v < -(1<<63) || v >= 1<<63 {
		return 0, false
	}
	return int64(v), true
}

// stepText is how a step error quotes the offending value.
func stepText(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strconv.Quote(s)
}

// A tagTable names tags by small integers and asks the sink once per tag
// whether it is wanted. Parsers on several goroutines share one; the mutex
// also orders Want calls with the Point calls of the delivering goroutine.
type tagTable struct {
	mu    sync.Mutex
	sink  Sink
	ids   map[string]int32
	names []string
	want  []bool
}

func newTagTable(sink Sink) *tagTable {
	return &tagTable{sink: sink, ids: make(map[string]int32)}
}

// name returns the tag whose id is id.
func (t *tagTable) name(id int32) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.names[id]
}

// intern returns the tag's id and whether the sink wants it.
func (t *tagTable) intern(name string) (int32, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.internLocked(name)
}

func (t *tagTable) internLocked(name string) (int32, bool) {
	if id, ok := t.ids[name]; ok {
		return id, t.want[id]
	}
	id := int32(len(t.names))
	w := t.sink.Want(name)
	t.ids[name] = id
	t.names = append(t.names, name)
	t.want = append(t.want, w)
	return id, w
}

// Kinds of things a reader skips or assumes, each reported in one note.
const (
	noteString      = iota // string values (JSON) or non-numeric cells (CSV)
	noteBool               // true/false
	noteNull               // null
	noteList               // lists
	noteMedia              // W&B media/table objects ({"_type": …})
	noteMissingStep        // rows without the step key
	noteEmptyX             // W&B CSV rows with no x value
	noteBadPair            // verl pairs that are not key:number
	nNotes
)

// A noteCount counts one kind of skip and remembers where it first happened.
type noteCount struct {
	n    int64
	tag  string
	line int
}

func (c *noteCount) add(tag string, line int) {
	if c.n == 0 {
		c.tag, c.line = tag, line
	}
	c.n++
}

type noteCounts [nNotes]noteCount

// merge adds o, whose lines are relative to base, to c.
func (c *noteCounts) merge(o *noteCounts, base int) {
	for k := range o {
		if o[k].n == 0 {
			continue
		}
		if c[k].n == 0 {
			c[k].tag, c[k].line = o[k].tag, o[k].line+base
		}
		c[k].n += o[k].n
	}
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// notes renders the counts as sentences; stepKey names the step key for
// rows that lacked it.
func (c *noteCounts) notes(stepKey string) []string {
	var out []string
	where := func(k int) string {
		s := ""
		if c[k].tag != "" {
			s = fmt.Sprintf(" (first %q", c[k].tag)
			if c[k].line > 0 {
				s += fmt.Sprintf(" on line %d", c[k].line)
			}
			s += ")"
		} else if c[k].line > 0 {
			s = fmt.Sprintf(" (first on line %d)", c[k].line)
		}
		return s
	}
	if n := c[noteString].n; n > 0 {
		out = append(out, "Skipped "+plural(n, "non-numeric value", "non-numeric values")+where(noteString)+".")
	}
	if n := c[noteBool].n; n > 0 {
		out = append(out, "Skipped "+plural(n, "boolean value", "boolean values")+where(noteBool)+".")
	}
	if n := c[noteNull].n; n > 0 {
		out = append(out, "Skipped "+plural(n, "null value", "null values")+where(noteNull)+".")
	}
	if n := c[noteList].n; n > 0 {
		out = append(out, "Skipped "+plural(n, "list value", "list values")+where(noteList)+"; rlxp reads one number per tag and row.")
	}
	if n := c[noteMedia].n; n > 0 {
		out = append(out, "Skipped "+plural(n, "W&B media or table object", "W&B media or table objects")+where(noteMedia)+".")
	}
	if n := c[noteMissingStep].n; n > 0 {
		out = append(out, plural(n, "row has", "rows have")+fmt.Sprintf(" no %q", stepKey)+where(noteMissingStep)+"; each took the step of the row before it.")
	}
	if n := c[noteEmptyX].n; n > 0 {
		out = append(out, "Skipped "+plural(n, "row", "rows")+" with an empty x-axis cell"+where(noteEmptyX)+".")
	}
	if n := c[noteBadPair].n; n > 0 {
		out = append(out, "Skipped "+plural(n, "pair", "pairs")+" that are not key:number"+where(noteBadPair)+".")
	}
	return out
}

// chooseKey picks the first of keys that has reports true for.
func chooseKey(keys []string, has func(string) bool) string {
	for _, k := range keys {
		if has(k) {
			return k
		}
	}
	return ""
}

func keyList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	return strings.Join(q, ", ")
}

// How a row's points get their step at delivery.
const (
	ptStep  uint8 = iota // the row's own step
	ptCarry              // the row had no step: use the last step delivered
	ptRow                // step is a row number within the block
)

// A rowVal is one value of a row.
type rowVal struct {
	id int32
	// lex is where the value's spelling starts in the block of a lazy
	// batch, to be converted only if a summary shows it; -1 when v holds
	// the value.
	lex int32
	v   float64
}

// add queues a value.
func (b *batch) add(id int32, v float64) {
	b.vals = append(b.vals, rowVal{id: id, lex: -1, v: v})
}

// addLazy queues the finite number whose spelling starts at num, a
// subslice of b.data (its offset is the difference of their capacities).
func (b *batch) addLazy(id int32, num []byte) {
	b.vals = append(b.vals, rowVal{id: id, lex: int32(cap(b.data) - cap(num))})
}

// A rowMeta ends a row's values in a batch.
type rowMeta struct {
	end  int32 // index in batch.vals after the row's last value (a count of values, when summarized)
	kind uint8
	step int64
	wall float64
}

// A batch is what parsing one block of lines produced.
type batch struct {
	vals     []rowVal
	rowm     []rowMeta
	lines    int   // lines in the block
	rows     int64 // data rows in the block
	hasStep  bool  // a row in the block had a step; lastStep is the last
	lastStep int64
	notes    noteCounts
	err      *Error // Line counts from the block's first line

	// lazy is set when the block is summarized: each row's values are
	// folded into sums as the row ends (see fold), and parsers check the
	// spelling of plain finite numbers, leaving their conversion to
	// summarize, which converts one value per tag. data is the block's
	// text.
	lazy   bool
	data   []byte
	folded int32 // values folded into sums
	direct int32 // values of the current row its parser folded into sums itself

	// For a summarizing sink: what the block holds of each tag, by id,
	// computed by the parsing goroutine.
	sums    []tagSum
	touched []int32 // ids with points, in order of first appearance
}

// A tagSum is what one block holds of one tag: rows are indexes into
// rowm, whose steps are resolved at delivery.
type tagSum struct {
	n, nonFinite int64
	first, last  int32
	lex          int32 // of the last value, as in rowVal
	value        float64
}

// clearSums empties b.sums for a block to be summarized.
func (b *batch) clearSums() {
	for _, id := range b.touched {
		b.sums[id] = tagSum{}
	}
	b.touched = b.touched[:0]
}

// fold adds the values of a row, vals[start:], to b.sums and drops them:
// a summarized block keeps no values, only each tag's summary, built
// while the row is still in the cache.
func (b *batch) fold(start int) {
	ri := int32(len(b.rowm))
	for _, v := range b.vals[start:] {
		if int(v.id) >= len(b.sums) {
			b.sums = append(b.sums, make([]tagSum, int(v.id)+1-len(b.sums))...)
		}
		t := &b.sums[v.id]
		if t.n == 0 {
			t.first = ri
			b.touched = append(b.touched, v.id)
		}
		t.n++
		t.last, t.value, t.lex = ri, v.v, v.lex
		if v.lex < 0 && (math.IsNaN(v.v) || math.IsInf(v.v, 0)) {
			t.nonFinite++
		}
	}
	b.folded += int32(len(b.vals) - start)
	b.vals = b.vals[:start]
}

// summarize converts the last value of each tag of a summarized block
// where only its spelling was checked.
func (b *batch) summarize() {
	for _, id := range b.touched {
		if t := &b.sums[id]; t.lex >= 0 {
			_, t.value = scanJSONNumber(b.data, int(t.lex), true)
		}
	}
}

// A summarizer is a sink that takes a block's summary of a tag instead of
// its points (see summarySink): delivery then costs per tag, not per point.
type summarizer interface {
	merge(tag string, n int64, firstStep, lastStep int64, last float64, nonFinite int64)
}

func (b *batch) reset() {
	b.vals, b.rowm = b.vals[:0], b.rowm[:0]
	b.lines, b.rows, b.hasStep, b.lastStep = 0, 0, false, 0
	b.notes = noteCounts{}
	b.err = nil
	b.lazy, b.data, b.folded, b.direct = false, nil, 0, 0
}

// endRow closes a row whose values start at vals[start]. A row without
// a step of its own takes the last one, or is numbered when the file has
// no step key.
func (b *batch) endRow(start int, step int64, hasStep, numbered bool, wall float64) {
	kind := ptStep
	switch {
	case hasStep:
		b.hasStep, b.lastStep = true, step
	case numbered:
		kind, step = ptRow, b.rows
	case b.hasStep:
		step = b.lastStep
	default:
		kind = ptCarry
	}
	if len(b.vals) > start || b.direct > 0 {
		end := int32(len(b.vals))
		if b.lazy {
			b.fold(start)
			b.folded += b.direct
			b.direct = 0
			end = b.folded
		}
		b.rowm = append(b.rowm, rowMeta{end: end, kind: kind, step: step, wall: wall})
	}
	b.rows++
}

// A blockParser turns whole lines into a batch. data starts at file offset
// off; the parser counts lines and rows and stops at its first error.
type blockParser interface {
	parseBlock(data []byte, off int64, b *batch)
}

// A delivery hands batches to the sink in file order.
type delivery struct {
	tt        *tagTable
	summarize bool  // the sink is a summarizer: blocks come summarized
	line      int   // lines before the next batch
	rows      int64 // rows before the next batch
	lastStep  int64
	points    int64
	notes     noteCounts
}

func (d *delivery) deliver(b *batch) error {
	d.tt.mu.Lock()
	defer d.tt.mu.Unlock()
	names, sink := d.tt.names, d.tt.sink
	if sm, ok := sink.(summarizer); ok && d.summarize {
		step := func(r rowMeta) int64 {
			switch r.kind {
			case ptCarry:
				return d.lastStep
			case ptRow:
				return r.step + d.rows
			}
			return r.step
		}
		for _, id := range b.touched {
			t := &b.sums[id]
			sm.merge(names[id], t.n, step(b.rowm[t.first]), step(b.rowm[t.last]), t.value, t.nonFinite)
		}
		if n := len(b.rowm); n > 0 {
			d.points += int64(b.rowm[n-1].end)
		}
		b.rowm = b.rowm[:0] // delivered
	}
	start := int32(0)
	for _, r := range b.rowm {
		p := Point{Step: r.step, WallTime: r.wall}
		switch r.kind {
		case ptCarry:
			p.Step = d.lastStep
		case ptRow:
			p.Step += d.rows
		}
		for _, v := range b.vals[start:r.end] {
			p.Value = v.v
			if err := sink.Point(names[v.id], p); err != nil {
				return err
			}
		}
		d.points += int64(r.end - start)
		start = r.end
	}
	if b.hasStep {
		d.lastStep = b.lastStep
	}
	d.notes.merge(&b.notes, d.line)
	if b.err != nil {
		e := *b.err
		e.Line += d.line
		return &e
	}
	d.line += b.lines
	d.rows += b.rows
	return nil
}

// Chunks for the line pipeline. A chunk holds the lines that start in
// its byte range, so chunks are parsed independently.
const (
	chunkSize     = 1 << 20
	parallelBytes = 8 << 20 // smaller files are parsed on the calling goroutine
	maxWorkers    = 4
)

// A chunking is how runBlocks cuts its input: the chunk size, the input
// size from which chunks are parsed by several goroutines, and how many.
type chunking struct {
	size, parallelFrom int64
	workers            int
}

// A chunkedSink is a sink that chooses the chunking itself, so that tests
// put chunk boundaries everywhere and compare with a sequential read.
type chunkedSink interface {
	chunking() chunking
}

// readChunk reads the lines that start in chunk i, of chunk bytes each, of
// the bytes [off, size) of r into buf. It returns them, the file offset of their first byte, and
// the buffer, which grows to hold a line longer than a chunk, up to
// MaxLine: a longer line ends the data before it, with errLongLine.
func readChunk(r io.ReaderAt, off, size, chunk, i int64, buf []byte) ([]byte, int64, []byte, error) {
	lo := off + i*chunk
	hi := min(lo+chunk, size)
	from := lo
	if lo > off {
		from = lo - 1 // to see whether a line starts at lo
	}
	to := min(hi+64<<10, size)
	n := int(to - from)
	if cap(buf) < n {
		buf = make([]byte, n, n+n/4)
	}
	buf = buf[:n]
	if _, err := r.ReadAt(buf, from); err != nil && err != io.EOF {
		return nil, 0, buf, err
	}
	start := 0
	if lo > off {
		k := bytes.IndexByte(buf[:hi-from], '\n')
		if k < 0 || from+int64(k)+1 >= hi {
			return nil, hi, buf, nil // no line starts in the chunk
		}
		start = k + 1
	}
	if hi == size {
		return buf[start:], from + int64(start), buf, nil
	}
	if k := bytes.IndexByte(buf[hi-1-from:], '\n'); k >= 0 {
		end := int(hi-1-from) + k + 1
		return buf[start:end], from + int64(start), buf, nil
	}
	// The last line runs past the window: find its end before reading it.
	end, err := lineEnd(r, to, size, hi+MaxLine)
	if err == errLongLine {
		k := bytes.LastIndexByte(buf[start:hi-from], '\n')
		return buf[start : start+k+1], from + int64(start), buf, errLongLine
	}
	if err != nil {
		return nil, 0, buf, err
	}
	old := len(buf)
	n = int(end - from)
	if cap(buf) < n {
		nb := make([]byte, n, n+n/4)
		copy(nb, buf)
		buf = nb
	}
	buf = buf[:n]
	if _, err := r.ReadAt(buf[old:], to); err != nil && err != io.EOF {
		return nil, 0, buf, err
	}
	return buf[start:], from + int64(start), buf, nil
}

// errLongLine reports a line longer than MaxLine.
var errLongLine = errors.New("line too long")

// lineEnd returns the offset after the first newline at or after from, or
// size when there is none; errLongLine when it lies past limit. It reads
// in small pieces, so a huge line costs no memory.
func lineEnd(r io.ReaderAt, from, size, limit int64) (int64, error) {
	piece := make([]byte, 64<<10)
	for from < size {
		if from > limit {
			return 0, errLongLine
		}
		b := piece[:min(int64(len(piece)), size-from)]
		if _, err := r.ReadAt(b, from); err != nil && err != io.EOF {
			return 0, err
		}
		if k := bytes.IndexByte(b, '\n'); k >= 0 {
			if from+int64(k) > limit {
				return 0, errLongLine
			}
			return from + int64(k) + 1, nil
		}
		from += int64(len(b))
	}
	return size, nil
}

// parseChunk parses one chunk's lines into b; a line over MaxLine after
// them is b's error.
func parseChunk(p blockParser, data []byte, doff int64, long, summarize bool, b *batch) {
	if summarize {
		b.clearSums()
		b.lazy, b.data = true, data
	}
	p.parseBlock(data, doff, b)
	if long && b.err == nil {
		b.err = lineTooLong("", b.lines+1, doff+int64(len(data)))
	}
	if summarize {
		b.summarize()
	}
}

// runBlocks parses the lines of r from offset off to size and delivers
// them in order. Large inputs are parsed by several goroutines, each
// reading its own chunks; the sink is still called from one goroutine at
// a time and in file order.
func runBlocks(r io.ReaderAt, off, size int64, newParser func() blockParser, d *delivery) error {
	_, d.summarize = d.tt.sink.(summarizer)
	ch := chunking{size: chunkSize, parallelFrom: parallelBytes, workers: min(runtime.GOMAXPROCS(0), maxWorkers)}
	if cs, ok := d.tt.sink.(chunkedSink); ok {
		ch = cs.chunking()
	}
	chunks := (size - off + ch.size - 1) / ch.size
	if ch.workers < 2 || size-off < ch.parallelFrom {
		p := newParser()
		var buf []byte
		b := new(batch)
		for i := int64(0); i < chunks; i++ {
			data, doff, nb, err := readChunk(r, off, size, ch.size, i, buf)
			buf = nb
			if err != nil && err != errLongLine {
				return err
			}
			b.reset()
			parseChunk(p, data, doff, err == errLongLine, d.summarize, b)
			if err := d.deliver(b); err != nil {
				return err
			}
		}
		return nil
	}
	return runParallel(r, off, size, ch, chunks, newParser, d)
}

// A slot holds one chunk between its worker and delivery. Chunk i uses
// slot i mod len(slots), so at most that many chunks are in memory.
type slot struct {
	done chan struct{} // a token once the chunk is parsed
	buf  []byte
	b    batch
	err  error
}

func runParallel(r io.ReaderAt, off, size int64, ch chunking, chunks int64, newParser func() blockParser, d *delivery) error {
	slots := make([]*slot, 2*ch.workers)
	// A worker takes a token before it takes the next chunk, and delivery
	// returns one per chunk delivered: at most len(slots) chunks are taken
	// and not delivered, so chunk i's slot no longer holds chunk
	// i-len(slots). (A token per slot, taken after the chunk, let a
	// stalled worker's slot be filled with a later chunk, delivered in its
	// place.)
	free := make(chan struct{}, len(slots))
	for i := range slots {
		slots[i] = &slot{done: make(chan struct{}, 1)}
		free <- struct{}{}
	}
	var next atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range ch.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := newParser()
			for {
				select {
				case <-free:
				case <-stop:
					return
				}
				i := next.Add(1) - 1
				if i >= chunks {
					return
				}
				s := slots[i%int64(len(slots))]
				s.b.reset()
				var data []byte
				var doff int64
				data, doff, s.buf, s.err = readChunk(r, off, size, ch.size, i, s.buf)
				long := s.err == errLongLine
				if long {
					s.err = nil
				}
				if s.err == nil {
					parseChunk(p, data, doff, long, d.summarize, &s.b)
				}
				s.done <- struct{}{}
			}
		}()
	}
	var err error
	for i := int64(0); i < chunks; i++ {
		s := slots[i%int64(len(slots))]
		<-s.done
		if err = s.err; err != nil {
			break
		}
		if err = d.deliver(&s.b); err != nil {
			break
		}
		free <- struct{}{}
	}
	close(stop)
	wg.Wait()
	return err
}

// A lineReader reads a text file line by line, for the formats whose
// files are small or whose lines need no parallel parsing.
type lineReader struct {
	r    *bufio.Reader
	ra   io.ReaderAt // the file, at absolute offsets, to measure long lines
	size int64
	path string
	long []byte
	line int   // number of the line last returned
	off  int64 // offset of the line last returned
	next int64
}

func newLineReader(r io.Reader, off int64) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), next: off}
}

// Next returns the next line without its line ending, or io.EOF.
func (lr *lineReader) Next() ([]byte, error) {
	lr.long = lr.long[:0]
	for {
		b, err := lr.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(lr.long) == 0 && lr.ra != nil {
				// Find the line's end before holding it: a line past
				// MaxLine fails without being read into memory.
				end, err := lineEnd(lr.ra, lr.next+int64(len(b)), lr.size, lr.next+MaxLine)
				if err == errLongLine {
					return nil, lineTooLong(lr.path, lr.line+1, lr.next)
				}
				if err != nil {
					return nil, err
				}
				lr.long = make([]byte, 0, end-lr.next)
			}
			if len(lr.long)+len(b) > MaxLine {
				return nil, lineTooLong(lr.path, lr.line+1, lr.next)
			}
			lr.long = append(lr.long, b...)
			continue
		}
		if len(lr.long) > 0 {
			lr.long = append(lr.long, b...)
			b = lr.long
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		if len(b) == 0 && err == io.EOF {
			return nil, io.EOF
		}
		lr.line++
		lr.off = lr.next
		lr.next += int64(len(b))
		if n := len(b); n > 0 && b[n-1] == '\n' {
			b = b[:n-1]
		}
		return trimCR(b), nil
	}
}
