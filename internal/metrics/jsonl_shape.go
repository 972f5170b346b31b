package metrics

import (
	"encoding/binary"
	"math/bits"
)

// Rows of one shape. Most JSONL files repeat one row shape: the same keys
// in the same order, with the same bytes between the values; only the
// numbers change. Once fastObject has read a flat row of numbers, the
// next rows are compared with its bytes between values, and their
// numbers checked, by shapeScan, which reads 16 bytes at a time and looks
// at no key: bytes a valid row of those keys held read the same again.

// A shapeRec is a top-level number of the row fastObject is reading.
type shapeRec struct {
	ref        *tagRef
	start, end int32
}

// What a row shape does with each of its numbers.
const (
	shapeFold  uint8 = iota // a wanted tag's value
	shapeSkip               // a tag nobody wants
	shapeStep               // the step
	shapeOther              // anything else, through jsonlParser.number
)

// A rowShape is the shape of the last flat row of numbers fastObject read.
type rowShape struct {
	refs  []*tagRef
	kinds []uint8
	// gaps holds the bytes before each number, one after another, then
	// 16 zero bytes for shapeScan's loads; gap k is gaps[offs[k]:offs[k+1]].
	gaps []byte
	offs []int32
	// terms holds the byte that ended each number in that row; it is
	// no part of a number, so it ends the numbers of later rows too.
	terms []byte
	// pos holds, while a row is read, where number k starts (pos[2k])
	// and ends (pos[2k+1]); last holds the same of the last row read.
	pos, last []int32
	folds     int32 // numbers of kind shapeFold
	others    bool  // numbers of kind shapeOther
}

// A shapeRun is rows of the shape read one after another while a block's
// plain numbers are folded into its summaries at once (jsonlParser.direct):
// each tag of the shape has a value in each of them, so they are folded
// together when the run ends, as n rows from first to last.
type shapeRun struct {
	n           int64
	first, last int32 // the rows' indexes in the batch
	off         int32 // where the last row starts in the block
}

// foldRun folds the run of rows of one shape into b's summaries, as
// foldLazy would have folded each of their numbers.
func (p *jsonlParser) foldRun(b *batch) {
	r := &p.run
	if r.n == 0 {
		return
	}
	sh := &p.shape
	for k, kind := range sh.kinds {
		if kind != shapeFold {
			continue
		}
		id := sh.refs[k].id
		if int(id) >= len(b.sums) {
			b.sums = append(b.sums, make([]tagSum, int(id)+1-len(b.sums))...)
		}
		t := &b.sums[id]
		if t.n == 0 {
			t.first = r.first
			b.touched = append(b.touched, id)
		}
		t.n += r.n
		t.last, t.lex = r.last, r.off+sh.last[2*k]
	}
	r.n = 0
}

func (s *rowShape) reset() {
	s.refs, s.kinds, s.gaps, s.offs, s.terms = s.refs[:0], s.kinds[:0], s.gaps[:0], s.offs[:0], s.terms[:0]
	s.folds, s.others = 0, false
}

// maxShape bounds the numbers of a row shape.
const maxShape = 4096

// learnShape keeps the shape of the flat row l whose numbers fastObject
// just read into p.rec. A row that gives one wanted tag two numbers is
// not kept (it is refused as it ends).
func (p *jsonlParser) learnShape(l []byte) {
	sh := &p.shape
	sh.reset()
	if len(p.rec) == 0 || len(p.rec) > maxShape {
		return
	}
	if p.rowGen++; p.rowGen == 0 {
		clear(p.inRow)
		p.rowGen = 1
	}
	prev := int32(0)
	for _, r := range p.rec {
		if isRunByte(l[r.end]) { // never after a number fastObject took
			sh.reset()
			return
		}
		kind := shapeOther
		switch ref := r.ref; {
		case ref.role == roleStep:
			kind = shapeStep
		case ref.role != roleMetric || ref.id < 0:
		case !ref.want:
			kind = shapeSkip
		default:
			kind = shapeFold
			sh.folds++
			if int(ref.id) >= len(p.inRow) {
				p.inRow = append(p.inRow, make([]uint32, int(ref.id)+1-len(p.inRow))...)
			}
			if p.inRow[ref.id] == p.rowGen {
				sh.reset()
				return
			}
			p.inRow[ref.id] = p.rowGen
		}
		sh.others = sh.others || kind == shapeOther
		sh.refs = append(sh.refs, r.ref)
		sh.kinds = append(sh.kinds, kind)
		sh.offs = append(sh.offs, int32(len(sh.gaps)))
		sh.gaps = append(sh.gaps, l[prev:r.start]...)
		sh.terms = append(sh.terms, l[r.end])
		prev = r.end
	}
	sh.offs = append(sh.offs, int32(len(sh.gaps)))
	sh.gaps = append(sh.gaps, make([]byte, 16)...)
	if n := 2 * len(sh.refs); cap(sh.pos) < n || cap(sh.last) < n {
		sh.pos, sh.last = make([]int32, n), make([]int32, n)
	}
	sh.pos, sh.last = sh.pos[:2*len(sh.refs)], sh.last[:2*len(sh.refs)]
}

// shapeLine reads a row of the shape of the last flat row of numbers: the
// same bytes between its numbers, numbers of the plainest spellings (see
// scanPlainNumber), and the object's end. Such a row reads as fastObject
// would read it. It reports false, having queued nothing, for any other
// row.
func (p *jsonlParser) shapeLine(l []byte) bool { return p.shapeRow(l) == len(l) }

// shapeRow is shapeLine for the row at the start of data, which may hold
// the lines after it: it returns the index of the newline that ends the
// row (len(data) when none does), or -1. Neither a gap nor a number the
// kernel takes holds a newline, so the row's end is found past its last
// number, without a search for it.
func (p *jsonlParser) shapeRow(l []byte) int {
	sh := &p.shape
	n := len(sh.refs)
	if n == 0 {
		return -1
	}
	i, k := 0, 0
	for {
		var ok bool
		i, k, ok = shapeScan(l, i, sh.gaps, sh.offs, sh.terms, sh.pos, k)
		if k == n {
			break
		}
		if !ok {
			return -1
		}
		// Number k starts at i, in a spelling the kernel leaves to the
		// full check.
		e := byteNear(l, i, sh.terms[k])
		if e < 0 || scanPlainNumber(l, i) != e {
			return -1
		}
		sh.pos[2*k], sh.pos[2*k+1] = int32(i), int32(e)
		i, k = e, k+1
	}
	if i = rowSpace(l, i); i >= len(l) || l[i] != '}' {
		return -1
	}
	end := rowSpace(l, i+1)
	if end < len(l) && l[end] != '\n' {
		return -1
	}
	pos := sh.pos
	// The step is checked before anything is queued.
	steps := 0
	for k, kind := range sh.kinds {
		if kind == shapeStep {
			v, ok := parseStepBytes(l[pos[2*k]:pos[2*k+1]])
			if steps++; !ok || steps > 1 {
				return -1 // the slower path says why
			}
			p.step, p.hasStep = v, true
		}
	}
	b := p.b
	if p.direct && sh.folds > 0 {
		// The row joins the run; its numbers are folded with the run's.
		ri := int32(len(b.rowm))
		if p.run.n == 0 {
			p.run.first = ri
		}
		p.run.n++
		p.run.last = ri
		p.run.off = int32(cap(b.data) - cap(l))
		sh.pos, sh.last = sh.last, sh.pos
		b.direct += sh.folds
		if !sh.others {
			return end
		}
	}
	for k, kind := range sh.kinds {
		start := pos[2*k]
		switch kind {
		case shapeFold:
			r := sh.refs[k]
			switch {
			case p.direct:
			case !b.lazy:
				_, v := scanJSONNumber(l, int(start), true)
				b.add(r.id, v)
			default:
				b.addLazy(r.id, l[start:])
			}
		case shapeOther:
			p.number(sh.refs[k], false, l[start:pos[2*k+1]])
		}
	}
	return end
}

// rowSpace skips the spaces, tabs and carriage returns from l[i] on: the
// blanks skipSpace skips within a line.
func rowSpace(l []byte, i int) int {
	for i < len(l) && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r') {
		i++
	}
	return i
}

// shapeScanGeneric reads numbers k, k+1, … of a row of a shape, from l[i:]
// on: for each, the bytes of gap k (gaps[offs[k]:offs[k+1]]) and then a
// number of the spelling simpleNumber takes, ended by terms[k] within l.
// It records where each number starts and ends in pos, and returns where
// it stopped: past the last number (k == len(terms)), at a number of
// another spelling (ok set, i at its start), or before a gap that
// differs or that, with 16 bytes after it, runs past l's capacity (ok
// unset). shapeScan is the same, in vector instructions where there are
// some.
func shapeScanGeneric(l []byte, i int, gaps []byte, offs []int32, terms []byte, pos []int32, k int) (int, int, bool) {
	n, lim := len(l), cap(l)
	l = l[:lim]
	for ; k < len(terms); k++ {
		g0, g1 := int(offs[k]), int(offs[k+1])
		j := i + g1 - g0
		if j+16 > lim || j > n || string(l[i:j]) != string(gaps[g0:g1]) {
			return i, k, false
		}
		e := j + simpleNumber((*[16]byte)(l[j:j+16]), terms[k])
		if e == j || e >= n {
			return j, k, true
		}
		pos[2*k], pos[2*k+1] = int32(j), int32(e)
		i = e
	}
	return i, k, true
}

// simpleNumber returns the length of the number at the start of w ended
// by the first byte term, when it is spelled -?(0|[1-9][0-9]*)(\.[0-9]+)?
// in under 16 bytes, or 0. It decides on bitmaps of the 16 bytes, as
// shapeScan's vector instructions do.
func simpleNumber(w *[16]byte, term byte) int {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	lo, hi := binary.LittleEndian.Uint64(w[:8]), binary.LittleEndian.Uint64(w[8:])
	pat := uint64(term) * lsb
	// The first term: the lowest byte that is zero after the xor (a
	// borrow can mark higher ones wrongly, never a lower one).
	n := 16
	if x := lo ^ pat; (x-lsb)&^x&msb != 0 {
		n = bits.TrailingZeros64((x-lsb)&^x&msb) >> 3
	} else if x := hi ^ pat; (x-lsb)&^x&msb != 0 {
		n = 8 + bits.TrailingZeros64((x-lsb)&^x&msb)>>3
	}
	if n == 0 || n == 16 {
		return 0
	}
	v := uint32(1)<<n - 1 // the number's bytes
	nd := (nonDigits(lo) | nonDigits(hi)<<8) & v
	s := uint32(0) // a minus sign first
	if w[0] == '-' {
		s = 1
	}
	pt := nd &^ s // the one point, if any: no other byte is no digit
	if pt&(pt-1) != 0 || pt != 0 && w[bits.TrailingZeros32(pt)] != '.' {
		return 0
	}
	first := s + 1 // the first digit's bit
	switch {
	case (v&^nd)&first == 0: // a digit first, after the sign
	case pt != 0 && (pt+pt)&v == 0: // and one after the point
	case w[s] == '0' && (first+first)&v != 0 && (first+first)&pt == 0: // 0 only before a point
	default:
		return n
	}
	return 0
}

// byteNear returns the index of the first c in l at or after i and within
// 24 bytes of it, or -1. It reads those 24 bytes of l's backing array,
// never past its capacity (-1 when they are not all there); a c past
// len(l) is not counted.
func byteNear(l []byte, i int, c byte) int {
	if i < 0 || cap(l)-i < 24 {
		return -1
	}
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	w := l[i : i+24 : i+24]
	pat := uint64(c) * lsb
	for k := 0; k < 24; k += 8 {
		x := binary.LittleEndian.Uint64(w[k:]) ^ pat
		// The lowest byte of x that is zero has its top bit set here
		// (higher ones may be set wrongly by a borrow, and are not used).
		if z := (x - lsb) &^ x & msb; z != 0 {
			if e := i + k + bits.TrailingZeros64(z)>>3; e < len(l) {
				return e
			}
			return -1
		}
	}
	return -1
}
