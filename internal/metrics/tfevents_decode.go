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
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/encoding/protowire"
)

// The decode pass of the tfevents reader: workers decode the chunks
// found by the scan into batches, delivered to the sink in file order.

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
	// forms says how the tag's delivered values came: as simple_values,
	// as scalar tensors, or both (tfFormSimple, tfFormTensor); only the
	// delivering goroutine touches it.
	forms uint8
}

// How a tag's values are written.
const (
	tfFormSimple = 1 << iota
	tfFormTensor
)

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

// forgetPlugins forgets what was delivered of the tags' plugins, for a
// read that starts over.
func (r *tfRegistry) forgetPlugins() {
	for _, t := range r.tags {
		t.plugin, t.forms = "", 0
	}
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

	// For a summarizer, the simple values of a chunk up to its first
	// other entry are summed per tag by its worker (sums, in order of
	// first appearance) instead of kept as entries, so that delivery costs
	// per tag, not per point. They come before the entries.
	sums []tfSum

	// Non-scalar values the worker skipped, by kind; most chunks have none.
	skips map[string]int64

	// The one-pass read (see onePass) also notes where the chunk's
	// records lie and what the restart rule needs of them.
	start, end int64       // the first record decoded (-1: none), and the record boundary after the last
	trunc      bool        // end is a truncated record
	starts     []tfRestart // every SessionLog START, with the summaries before it in the chunk
	seen       bool        // whether the chunk holds a summary
	maxStep    int64       // the largest step of its summaries
}

// A tfSum is what one chunk holds of one tag's simple values.
type tfSum struct {
	t                     *tfTag
	n, orphans, nonFinite int64
	first, last           int64 // steps of the first and last points that are not orphans
	value                 float64
}

func (b *tfBatch) reset() {
	b.entries, b.flags, b.extras, b.err = b.entries[:0], b.flags[:0], b.extras[:0], nil
	b.sums = b.sums[:0]
	clear(b.skips)
	b.start, b.end, b.trunc, b.starts, b.seen, b.maxStep = -1, -1, false, b.starts[:0], false, 0
}

func (b *tfBatch) skip(kind string) {
	if b.skips == nil {
		b.skips = make(map[string]int64)
	}
	b.skips[kind]++
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
	decoded map[string]int64 // skipped by the workers, merged into skipped at the end
}

func newTFDelivery(sink Sink, path string) *tfDelivery {
	return &tfDelivery{sink: sink, path: path, skipped: make(map[string]int64), decoded: make(map[string]int64)}
}

// done merges the workers' skip counts, once every batch is delivered.
func (dv *tfDelivery) done() {
	for k, n := range dv.decoded {
		tfCount(dv.skipped, k, n)
	}
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

// want asks the sink, once per tag, whether it wants the tag's points.
func (dv *tfDelivery) want(t *tfTag) bool {
	want := t.want.Load()
	if want == tfWantUnknown {
		want = tfWantNo
		if dv.sink.Want(t.name) {
			want = tfWantYes
		}
		t.want.Store(want)
	}
	return want == tfWantYes
}

// deliver hands a batch's points to the sink.
func (dv *tfDelivery) deliver(b *tfBatch) error {
	for k, n := range b.skips {
		dv.decoded[k] += n
	}
	if len(b.sums) > 0 {
		sm := dv.sink.(summarizer) // workers sum only for a summarizer
		for _, s := range b.sums {
			if !dv.want(s.t) {
				continue
			}
			dv.dropped += s.orphans
			if err := dv.form(s.t, tfFormSimple, -1); s.n > 0 && err != nil {
				return err
			}
			if s.n > 0 {
				sm.merge(s.t.name, s.n, s.first, s.last, s.value, s.nonFinite)
				dv.points += s.n
			}
		}
	}
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
		if !dv.want(t) {
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
		form, off := uint8(tfFormSimple), int64(-1)
		if kind == tfeTensor {
			form, off = tfFormTensor, extra.off
		}
		if err := dv.form(t, form, off); err != nil {
			return err
		}
		if err := dv.sink.Point(t.name, Point{Step: e.step, WallTime: e.wall, Value: e.value}); err != nil {
			return err
		}
		dv.points++
	}
	return b.err
}

// form notes that a value of t came in form, from the record at off (-1
// when not known). A tag whose values come both as simple_values and as
// scalar tensors (a trainer's add_scalar beside a TF2 summary, or two
// writers in one file) holds two series under one name: which is the
// tag's cannot be told, so the read fails.
func (dv *tfDelivery) form(t *tfTag, form uint8, off int64) error {
	t.forms |= form
	if t.forms != tfFormSimple|tfFormTensor {
		return nil
	}
	return &Error{Path: dv.path, Offset: off, Msg: fmt.Sprintf("the tag %q is logged both as a simple_value and as a scalar tensor: two series under one name, and which is the tag's cannot be told", t.name)}
}

// decodePass decodes the chunks on workers and delivers their points in order.
func (st *tfReadState) decodePass(scan tfScan, reg *tfRegistry, dv *tfDelivery) error {
	workers := max(1, min(runtime.GOMAXPROCS(0), tfMaxWorkers, len(scan.chunks)))
	ahead := 2 * workers // chunks handed out before their turn
	p := startPool(st, reg, scan.restarts, dv, workers, ahead, func(wk *tfWorker, j *tfJob) chan<- *tfBatch { wk.chunk(j); return j.out })
	defer p.shutdown()
	inline := st.newWorker(reg, scan.restarts) // for the large records
	inline.batch = new(tfBatch)

	var queue []*tfJob
	sent := 0
	for range scan.chunks {
		for sent < len(scan.chunks) && len(queue) < ahead {
			j := &tfJob{chunk: scan.chunks[sent], out: make(chan *tfBatch, 1)}
			if !j.chunk.large {
				p.jobs <- j
			}
			queue = append(queue, j)
			sent++
		}
		j := queue[0]
		queue = queue[1:]
		if j.chunk.large {
			b, _ := inline.large(j.chunk)
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
		p.batches <- b
		if err != nil {
			return err
		}
	}
	close(p.jobs)
	p.shutdown()
	dv.done()
	return nil
}

// tfWorker decodes records into batches.
type tfWorker struct {
	st       *tfReadState
	reg      *tfRegistry
	local    map[string]*tfLocalTag
	last     *tfLocalTag // the tag of the previous value
	restarts []tfRestart
	batch    *tfBatch // of the chunk being decoded
	buf      []byte
	ends     [tfFrameBatch]uint32 // where the records frame checked end
	// summarize: the sink takes summaries, so batches come summarized
	// when they can be.
	summarize bool

	gen int // chunks taken, counting from 1
	// The 8 bytes after the last Event.step key events decoded, and the
	// step and length of the varint they start with: records of one step
	// repeat them.
	stepBytes uint64
	stepVal   int64
	stepLen   int
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
	words  [2]uint64   // for a name of 8 to 16 bytes, its first and last 8 (see tfTagWords)
	next   *tfLocalTag // the tag that followed this one last time
	plugin string      // the plugin last passed on for it in chunk gen
	gen    int
	sumGen int // the chunk of its sum, b.sums[sum]
	sum    int
}

func (st *tfReadState) newWorker(reg *tfRegistry, restarts []tfRestart) *tfWorker {
	wk := &tfWorker{st: st, reg: reg, local: make(map[string]*tfLocalTag), restarts: restarts}
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

func (wk *tfWorker) skip(kind string) { wk.batch.skip(kind) }

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

// A tfPool is the workers of a read: each takes jobs and fills a batch
// for each, which the delivering goroutine hands back once delivered.
type tfPool[J any] struct {
	jobs    chan *J
	batches chan *tfBatch
	stop    chan struct{}
	stopped bool
	wg      sync.WaitGroup
}

// startPool starts workers that decode a job with do into wk.batch and
// return the channel it goes to. There are enough batches that the chunk
// whose turn it is always gets one: the others are held by at most
// ahead-1 decoded chunks waiting their turn and workers-1 being decoded.
func startPool[J any](st *tfReadState, reg *tfRegistry, restarts []tfRestart, dv *tfDelivery, workers, ahead int, do func(wk *tfWorker, j *J) chan<- *tfBatch) *tfPool[J] {
	p := &tfPool[J]{jobs: make(chan *J, ahead), batches: make(chan *tfBatch, ahead+workers+1), stop: make(chan struct{})}
	for range cap(p.batches) {
		p.batches <- new(tfBatch)
	}
	_, summarize := dv.sink.(summarizer)
	for range workers {
		wk := st.newWorker(reg, restarts)
		wk.summarize = summarize
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.run(wk, do)
		}()
	}
	return p
}

// run takes jobs until there are none or the read stops.
func (p *tfPool[J]) run(wk *tfWorker, do func(wk *tfWorker, j *J) chan<- *tfBatch) {
	for {
		var j *J
		select {
		case j = <-p.jobs:
		case <-p.stop:
			return
		}
		if j == nil {
			return
		}
		select {
		case wk.batch = <-p.batches:
		case <-p.stop:
			return
		}
		do(wk, j) <- wk.batch // buffered: never blocks
	}
}

// shutdown stops the workers and waits for them; called again, it only
// waits. Only the delivering goroutine calls it.
func (p *tfPool[J]) shutdown() {
	if !p.stopped {
		p.stopped = true
		close(p.stop)
	}
	p.wg.Wait()
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
		if n := st.crc8.frame(buf[lo:hi], int(j.chunk.end-off), st.win-tfHeaderLen-tfFooterLen, &wk.ends); n > 0 {
			p := lo
			for _, e := range wk.ends[:n] {
				end := lo + int(e)
				wk.off = base + int64(p)
				wk.seek(wk.off)
				if _, err := wk.event(buf[p+tfHeaderLen : end-tfFooterLen]); err != nil {
					fail(err)
					return
				}
				p = end
			}
			lo = p
			continue
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
		if _, err := wk.event(rec[tfHeaderLen : tfHeaderLen+n]); err != nil {
			fail(err)
			return
		}
		lo += len(rec)
	}
}

// large decodes a chunk of one record larger than a window into wk.batch,
// and returns the top level of its event as read from its first window.
func (wk *tfWorker) large(c tfChunk) (*tfBatch, tfEventHead) {
	st := wk.st
	b := wk.batch
	wk.gen++
	wk.off = c.off
	total := c.end - c.off
	n := total - tfHeaderLen - tfFooterLen
	var head tfEventHead
	prefix := make([]byte, min(total, int64(st.win)))
	if m, _ := st.r.ReadAt(prefix, c.off); m < len(prefix) {
		b.err = st.errorf(c.off, "the file changed while being read")
		return b, head
	}
	if tfMask(st.crc8.sum8(prefix)) != binary.LittleEndian.Uint32(prefix[8:]) || int64(binary.LittleEndian.Uint64(prefix)) != n {
		b.err = st.errorf(c.off, "%s", tfLengthCRCMsg)
		return b, head
	}
	head, _ = tfScanEventHead(prefix[tfHeaderLen:], false)
	if !head.summary || n > tfMaxRecord {
		// Stream it through the checksum; it is not decoded.
		var crc uint32
		for at := c.off + tfHeaderLen; at < c.off+tfHeaderLen+n; {
			k := min(int64(len(prefix)), c.off+tfHeaderLen+n-at)
			if m, _ := st.r.ReadAt(prefix[:k], at); int64(m) < k {
				b.err = st.errorf(c.off, "the file changed while being read")
				return b, head
			}
			crc = crc32.Update(crc, st.tab, prefix[:k])
			at += k
		}
		foot := prefix[:tfFooterLen]
		if m, _ := st.r.ReadAt(foot, c.end-tfFooterLen); m < tfFooterLen {
			b.err = st.errorf(c.off, "the file changed while being read")
			return b, head
		}
		switch {
		case tfMask(crc) != binary.LittleEndian.Uint32(foot):
			b.err = st.errorf(c.off, "record data CRC mismatch")
		case head.summary:
			b.err = st.errorf(c.off, "summary record of %d bytes is larger than the %d-byte limit", n, tfMaxRecord)
		}
		return b, head
	}
	rec := make([]byte, total)
	if m, _ := st.r.ReadAt(rec, c.off); int64(m) < total {
		b.err = st.errorf(c.off, "the file changed while being read")
		return b, head
	}
	if msg := tfRecordCheck(rec, st.crc8, st.tab); msg != "" {
		b.err = st.errorf(c.off, "%s", msg)
		return b, head
	}
	wk.seek(c.off)
	if _, err := wk.event(rec[tfHeaderLen : tfHeaderLen+n]); err != nil {
		b.err = err
	}
	return b, head
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
	tfKeyEventWall     = 1<<3 | 1 // Event.wall_time, fixed64
	tfKeyEventStep     = 2<<3 | 0 // Event.step, varint
	tfKeyEventSummary  = 5<<3 | 2 // Event.summary
	tfKeySummaryValue  = 1<<3 | 2 // Summary.value
	tfKeyValueTag      = 1<<3 | 2 // Summary.Value.tag
	tfKeyValueSimple   = 2<<3 | 5 // Summary.Value.simple_value, fixed32
	tfKeyValueTensor   = 8<<3 | 2 // Summary.Value.tensor
	tfKeyValueMetadata = 9<<3 | 2 // Summary.Value.metadata
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

// event decodes one Event; quick reports that it had the common shape,
// a summary at step wk.step.
func (wk *tfWorker) event(b []byte) (quick bool, err error) {
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
				return true, nil
			}
		}
	}
	return false, wk.eventSlow(b)
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
	l := wk.lookup(tag)
	if l.t.want.Load() == tfWantNo {
		return
	}
	wk.addSimple(l, float64(math.Float32frombits(bits)))
}

// addSimple takes in a simple value of the current record: summed while
// the batch holds no other entry, else as an entry.
func (wk *tfWorker) addSimple(l *tfLocalTag, v float64) {
	b := wk.batch
	if !wk.summarize || len(b.extras) > 0 {
		wk.add(l.t, tfeSimple, v, "")
		return
	}
	if l.sumGen != wk.gen || l.sum >= len(b.sums) || b.sums[l.sum].t != l.t {
		l.sumGen, l.sum = wk.gen, len(b.sums)
		b.sums = append(b.sums, tfSum{t: l.t})
	}
	s := &b.sums[l.sum]
	if wk.purge && wk.step >= wk.threshold {
		s.orphans++
		return
	}
	if s.n == 0 {
		s.first = wk.step
	}
	s.n++
	s.last, s.value = wk.step, v
	if math.IsNaN(v) || math.IsInf(v, 0) {
		s.nonFinite++
	}
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
			l.words, _ = tfTagWords(tag)
			wk.local[l.t.name] = l
		}
		if wk.last != nil {
			wk.last.next = l
		}
	}
	wk.last = l
	return l
}

// tfTagWords returns the first and the last 8 bytes of a tag of 8 to 16
// bytes, which together hold all of it: two such tags of one length are
// equal when their words are. ok is false for other lengths.
func tfTagWords(tag []byte) (w [2]uint64, ok bool) {
	if len(tag) < 8 || len(tag) > 16 {
		return w, false
	}
	return [2]uint64{binary.LittleEndian.Uint64(tag), binary.LittleEndian.Uint64(tag[len(tag)-8:])}, true
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
		case tfKeyValueTensor:
			t, n, ok := tfShortBytes(b[1:])
			if ok {
				tensor, kind, b = t, tfKindTensor, b[1+n:]
				continue
			}
		case tfKeyValueMetadata:
			if md, n, ok := tfShortBytes(b[1:]); ok {
				if p, ok := tfQuickPluginName(md); ok {
					plugin, hasPlugin, b = p, true, b[1+n:]
					continue
				}
			}
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
			wk.addSimple(l, float64(math.Float32frombits(simple)))
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

// tfQuickPluginName reads SummaryMetadata{plugin_data: {plugin_name}}
// laid out as writers lay it out, with nothing else; ok is false for
// anything else.
func tfQuickPluginName(md []byte) ([]byte, bool) {
	if len(md) >= 4 && md[0] == 0x0a && int(md[1]) == len(md)-2 && md[2] == 0x0a && int(md[3]) == len(md)-4 {
		return md[4:], true
	}
	return nil, false
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
