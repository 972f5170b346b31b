package metrics

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/bits"
	"runtime"
)

// The one-pass read of the tfevents reader: workers take the file in
// chunks of bytes and each frames, checks and decodes the records that
// start in its chunk, so that every byte is read once.
//
// A chunk after the first starts at an arbitrary byte: its worker starts
// at the first place where a length is followed by its CRC and fits in
// the file. The delivering goroutine knows where the previous chunk's
// last record ends; where the worker started elsewhere (at something that
// only looked like a header, or past a record whose length is corrupt),
// the chunk is decoded again from there. A chunk that lies inside a
// record begun in an earlier chunk holds nothing.
//
// Restarts must be known before points are delivered, and a START may
// come anywhere after the points it discards. The one pass assumes that
// no START discards anything, as in nearly every file, and checks it
// chunk by chunk before delivering: each chunk notes its STARTs and the
// largest step of its summaries. When a START would discard something,
// the sink forgets what it was given and the file is read in two passes
// (scan, then decode); so it is, too, when a record fails, so that an
// error and what was delivered before it are exactly what the two passes
// give. Sinks that cannot forget (see Rewinder) are read in two passes.

// A Rewinder is a sink that can forget every point it was given, so that
// a read may start over (a tfevents file is then read in one pass).
type Rewinder interface{ Rewind() }

// tfSlack is how far past its chunk's end a worker reads at first, for
// the chunk's last record.
const tfSlack = 1 << 10

// tfPassJob is a chunk of bytes given to a worker: the records that start
// in [a, b).
type tfPassJob struct {
	a, b int64
	out  chan *tfBatch
}

// onePass reads the file in one pass. fallBack reports that it stopped
// before the end and that the sink must be rewound and the file read in
// two passes; then err is nil. Otherwise end and trunc say where the
// records ended, and err is what the sink returned, if anything.
func (st *tfReadState) onePass(reg *tfRegistry, dv *tfDelivery) (end int64, trunc, fallBack bool, err error) {
	chunks := (st.size + st.chunk - 1) / st.chunk
	workers := int(max(1, min(int64(runtime.GOMAXPROCS(0)), tfMaxWorkers, chunks)))
	ahead := 2 * workers
	p := startPool(st, reg, nil, dv, workers, ahead, func(wk *tfWorker, j *tfPassJob) chan<- *tfBatch { wk.pass(j.a, j.b, -1); return j.out })
	defer p.shutdown()
	_, summarize := dv.sink.(summarizer)
	inline := st.newWorker(reg, nil) // decodes again the chunks whose worker started elsewhere
	inline.summarize = summarize
	inline.batch = new(tfBatch)

	var spec tfSpeculation
	var queue []*tfPassJob
	sent := int64(0)
	for k := int64(0); k < chunks && end < st.size && !trunc; k++ {
		for sent < chunks && len(queue) < ahead {
			j := &tfPassJob{a: sent * st.chunk, b: min((sent+1)*st.chunk, st.size), out: make(chan *tfBatch, 1)}
			p.jobs <- j
			queue = append(queue, j)
			sent++
		}
		j := queue[0]
		queue = queue[1:]
		b := <-j.out
		if end >= j.b {
			b.reset()
			p.batches <- b
			continue
		}
		use := b
		if b.start != end {
			b.reset()
			p.batches <- b
			inline.batch.reset()
			inline.pass(j.a, j.b, end)
			use = inline.batch
		}
		if use.err != nil || !spec.take(use) {
			return 0, false, true, nil
		}
		err = dv.deliver(use)
		end, trunc = use.end, use.trunc
		if use != inline.batch {
			use.reset()
			p.batches <- use
		}
		if err != nil {
			return end, trunc, false, err
		}
	}
	close(p.jobs)
	dv.done()
	return end, trunc, false, nil
}

// tfSpeculation follows the STARTs of a one-pass read in file order.
type tfSpeculation struct {
	seen    bool  // whether there was a summary
	maxStep int64 // the largest step of a summary
	starts  int
}

// take checks a chunk before its points are delivered: false when one of
// its STARTs discards something (as tfEffectiveRestarts decides), or when
// there are as many STARTs as the two passes refuse.
func (sp *tfSpeculation) take(b *tfBatch) bool {
	for _, r := range b.starts {
		m := sp.maxStep
		if !sp.seen || r.seenBefore && r.maxBefore > m {
			m = r.maxBefore
		}
		if (sp.seen || r.seenBefore) && r.step <= m {
			return false
		}
		if sp.starts++; sp.starts >= tfMaxRestarts {
			return false
		}
	}
	if b.seen && (!sp.seen || b.maxStep > sp.maxStep) {
		sp.maxStep = b.maxStep
	}
	sp.seen = sp.seen || b.seen
	return true
}

// refill moves buf[lo:hi], which holds the file from base+lo, to the
// front and reads after it: at least need bytes in all, and on up to
// limit. It returns the new base and hi, and false when the file ends
// before need bytes.
func (st *tfReadState) refill(buf []byte, base int64, lo, hi, need int, limit int64) (int64, int, bool) {
	copy(buf, buf[lo:hi])
	base, hi = base+int64(lo), hi-lo
	want := int(min(max(int64(need), limit-base), int64(len(buf)), st.size-base))
	if want > hi {
		m, _ := st.r.ReadAt(buf[hi:want], base+int64(hi))
		hi += m
	}
	return base, hi, hi >= need
}

// pass frames, checks and decodes into wk.batch the records that start in
// [a, b): from start, or when start < 0 from the first place at or after
// a where a record's length is followed by its CRC (a itself when it is
// 0). It stops at the first record that fails, with the batch's err set.
func (wk *tfWorker) pass(a, b, start int64) {
	st, bt := wk.st, wk.batch
	wk.gen++
	bt.start, bt.end = -1, -1
	if wk.buf == nil {
		wk.buf = make([]byte, min(max(st.chunk, int64(st.win)), st.size)+tfSlack)
	}
	buf := wk.buf
	limit := min(b+tfSlack, st.size) // read on to here
	base := a
	if start >= 0 {
		base = start
	}
	base, hi, _ := st.refill(buf, base, 0, 0, 0, limit)
	lo := 0
	if start < 0 && a > 0 {
		for {
			off := base + int64(lo)
			if off >= b {
				return // no record starts here
			}
			if hi-lo < tfHeaderLen {
				var ok bool
				if base, hi, ok = st.refill(buf, base, lo, hi, tfHeaderLen, limit); !ok {
					return
				}
				lo = 0
			}
			h := buf[lo : lo+tfHeaderLen]
			if tfMask(st.crc8.sum8(h)) == binary.LittleEndian.Uint32(h[8:]) {
				if left := st.size - off - tfHeaderLen - tfFooterLen; left >= 0 && binary.LittleEndian.Uint64(h) <= uint64(left) {
					break
				}
			}
			lo++
		}
	}
	bt.start = base + int64(lo)
	for {
		off := base + int64(lo)
		if off >= b {
			bt.end = off
			return
		}
		// The common case: whole records in the buffer, checked many at
		// a time.
		if n := st.crc8.frame(buf[lo:hi], int(b-off), st.win-tfHeaderLen-tfFooterLen, &wk.ends); n > 0 {
			if lo, bt.err = wk.events(buf, base, lo, wk.ends[:n]); bt.err != nil {
				return
			}
			continue
		}
		if hi-lo < tfHeaderLen {
			if base+int64(hi) >= st.size {
				bt.end, bt.trunc = off, true // a header still being written
				return
			}
			var ok bool
			if base, hi, ok = st.refill(buf, base, lo, hi, tfHeaderLen, limit); !ok {
				bt.err = st.errorf(off, "the file changed while being read")
				return
			}
			lo = 0
		}
		h := buf[lo : lo+tfHeaderLen]
		length := binary.LittleEndian.Uint64(h)
		if tfMask(st.crc8.sum8(h)) != binary.LittleEndian.Uint32(h[8:]) {
			bt.err = st.errorf(off, "%s", tfLengthCRCMsg)
			return
		}
		if left := st.size - off - tfHeaderLen - tfFooterLen; left < 0 || length > uint64(left) {
			bt.end, bt.trunc = off, true
			return
		}
		n := int(length)
		total := tfHeaderLen + n + tfFooterLen
		var head tfEventHead
		if total > st.win {
			_, head = wk.large(tfChunk{off: off, end: off + int64(total), large: true})
			if bt.err != nil {
				return
			}
			if head.summary && !head.hasStep {
				head.step = math.MaxInt64 // as the scan pass assumes
			}
			base, lo, hi = off+int64(total), 0, 0
		} else {
			if hi-lo < total {
				var ok bool
				if base, hi, ok = st.refill(buf, base, lo, hi, total, limit); !ok {
					bt.err = st.errorf(off, "the file changed while being read")
					return
				}
				lo = 0
			}
			rec := buf[lo : lo+total]
			data := rec[tfHeaderLen : tfHeaderLen+n]
			if tfMask(crc32.Checksum(data, st.tab)) != binary.LittleEndian.Uint32(rec[tfHeaderLen+n:]) {
				bt.err = st.errorf(off, "record data CRC mismatch")
				return
			}
			wk.off = off
			quick, err := wk.event(data)
			if err != nil {
				bt.err = err
				return
			}
			if quick {
				head = tfEventHead{step: wk.step, summary: true}
			} else {
				head = tfQuickEventHead(data)
			}
			lo += total
		}
		bt.note(head, off)
	}
}

// note takes in the top level of the event at off, for the restart rule.
func (bt *tfBatch) note(head tfEventHead, off int64) {
	switch {
	case head.summary:
		if !bt.seen || head.step > bt.maxStep {
			bt.maxStep = head.step
		}
		bt.seen = true
	case head.start:
		bt.starts = append(bt.starts, tfRestart{off: off, step: head.step, seenBefore: bt.seen, maxBefore: bt.maxStep})
	}
}

// events decodes the records that frame checked, which start at buf[lo]
// and end at lo+ends[i], and notes them for the restart rule; it returns
// where the records it decoded end. For a summarizer, the common record
// (wall_time, step, and a summary of one simple_value, as event's quick
// path takes it) is summed here, inline; any other goes through event.
func (wk *tfWorker) events(buf []byte, base int64, lo int, ends []uint32) (int, error) {
	bt := wk.batch
	p := lo
	for _, e := range ends {
		end := lo + int(e)
		b := buf[p+tfHeaderLen : end-tfFooterLen]
		if wk.summarize && len(bt.extras) == 0 && len(b) >= 19 && b[0] == tfKeyEventWall && b[9] == tfKeyEventStep {
			// The step's varint, in the 8 bytes after its key (as
			// tfVarint), decoded again only when they change.
			if x := binary.LittleEndian.Uint64(b[10:]); x != wk.stepBytes || wk.stepLen == 0 {
				wk.stepBytes, wk.stepLen = x, 0
				if stop := ^x & 0x8080808080808080; stop != 0 {
					n := bits.TrailingZeros64(stop)/8 + 1
					x &= 0x7f7f7f7f7f7f7f7f >> (64 - 8*n)
					x = x&0x007f007f007f007f | x&0x7f007f007f007f00>>1
					x = x&0x00003fff00003fff | x&0x3fff00003fff0000>>2
					x = x&0x000000000fffffff | x&0x0fffffff00000000>>4
					wk.stepVal, wk.stepLen = int64(x), n
				}
			}
			if n := wk.stepLen; n > 0 {
				step := wk.stepVal
				q := b[10+n:]
				if len(q) >= 6 && q[0] == tfKeyEventSummary && q[1] < 0x80 && int(q[1]) == len(q)-2 &&
					q[2] == tfKeySummaryValue && q[3] < 0x80 && int(q[3]) == len(q)-4 {
					v := q[4:]
					if k := int(v[1]); v[0] == tfKeyValueTag && v[1] < 0x80 && v[1] > 0 && k+7 == len(v) && v[2+k] == tfKeyValueSimple {
						tag := v[2 : 2+k]
						l := wk.last
						if l != nil && l.next != nil && len(l.next.t.name) == k && tfSameTag(l.next, tag) {
							l = l.next
							wk.last = l
						} else {
							l = wk.lookup(tag)
						}
						if l.t.want.Load() != tfWantNo {
							if l.sumGen != wk.gen || l.sum >= len(bt.sums) || bt.sums[l.sum].t != l.t {
								l.sumGen, l.sum = wk.gen, len(bt.sums)
								bt.sums = append(bt.sums, tfSum{t: l.t})
							}
							s := &bt.sums[l.sum]
							if wk.purge && step >= wk.threshold {
								s.orphans++
							} else {
								raw := binary.LittleEndian.Uint32(v[3+k:])
								if s.n == 0 {
									s.first = step
								}
								s.n++
								s.last, s.value = step, float64(math.Float32frombits(raw))
								if raw&0x7f800000 == 0x7f800000 { // NaN or ±Inf
									s.nonFinite++
								}
							}
						}
						if !bt.seen || step > bt.maxStep {
							bt.maxStep = step
						}
						bt.seen = true
						p = end
						continue
					}
				}
			}
		}
		wk.off = base + int64(p)
		quick, err := wk.event(b)
		if err != nil {
			return p, err
		}
		if quick {
			bt.note(tfEventHead{step: wk.step, summary: true}, wk.off)
		} else {
			bt.note(tfQuickEventHead(b), wk.off)
		}
		p = end
	}
	return p, nil
}

// tfSameTag reports whether l is the tag named tag, as long as its name.
func tfSameTag(l *tfLocalTag, tag []byte) bool {
	if len(tag) >= 8 && len(tag) <= 16 {
		return binary.LittleEndian.Uint64(tag) == l.words[0] && binary.LittleEndian.Uint64(tag[len(tag)-8:]) == l.words[1]
	}
	return l.t.name == string(tag)
}
