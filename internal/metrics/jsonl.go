package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// JSON Lines: one row object per line.
//
// Conventions (shared with JSON):
//   - Nested objects flatten into tags joined with "/": {"a": {"b": 1}} is
//     tag "a/b".
//   - Rows of verl's file logger, {"step": N, "data": {…}}, use the keys
//     inside "data" as tags, without a "data/" prefix. The first row
//     decides: it has a numeric "step" and an object "data".
//   - The step key is the first of stepKeys present in the first row with
//     an integer value; it is not a tag itself. Without one, the step is the
//     row number from 0. A later row without it takes the previous row's
//     step.
//   - The wall-time key is the first of wallKeys in the first row whose
//     value is plausible seconds since the epoch; it is not a tag either.
//   - Numbers (including NaN, Infinity, -Infinity, and those spelled as
//     strings: "NaN", "inf", "-Infinity") are values; other strings,
//     booleans, nulls and lists are skipped, and W&B media objects (those
//     with a "_type" key) are skipped whole. Each kind gets a note.
//
// Most lines are flat objects of numbers, so a byte scanner reads them
// without encoding/json; any line it does not fully understand (escapes,
// lists, media objects, bad syntax) goes to encoding/json, which defines
// the result and the errors.

// Roles a row key can have.
const (
	roleMetric uint8 = iota
	roleStep
	roleWall
)

// A tagRef is a parser's view of one name.
type tagRef struct {
	name string
	id   int32 // -1 until the name is used as a tag
	want bool
	role uint8
	fast bool // the name has no escapes, so raw key bytes can match it
}

// A posEnt is what the fast path saw at one leaf position of a row: the
// name, and the bytes before the value.
type posEnt struct {
	name     []byte
	ref      *tagRef
	gap      []byte // from the end of the last value (or the '{') to the value
	gapFirst bool   // the gap opens the object, so it has no comma
}

type pendNote struct {
	n   int64
	tag string
}

// maxFastDepth bounds nesting in the fast path; deeper rows use the decoder.
const maxFastDepth = 16

// A jsonlParser parses rows for one goroutine.
type jsonlParser struct {
	cfg  *rowConfig
	tt   *tagTable
	refs map[string]*tagRef
	pos  []posEnt // the names seen at each leaf position of the last rows
	leaf int      // leaf position within the current row
	name []byte   // scratch for nested names

	b        *batch
	rowStart int // the current row's first value in b.vals
	step     int64
	hasStep  bool
	// stepTwice: the row gives the step key a second value.
	stepTwice bool
	wall      float64
	pend      [nNotes]pendNote

	scratch []byte
	leaves  []leaf

	// rowGen numbers rows; inRow[id] is the last row that gave tag id a
	// value, so that a tag given twice in one row is found in one look.
	rowGen uint32
	inRow  []uint32

	// direct is set while a summarized block's plain numbers are folded
	// into its summaries as they are read (see parseBlock); queued once a
	// block had to be read again, so that later blocks queue at once.
	direct, queued bool

	// The shape of the last flat row fastObject read (see shapeLine),
	// and the rows of it read since anything else was folded.
	shape rowShape
	run   shapeRun
	// While fastObject reads a row: its top-level numbers, and whether
	// the row held nothing else.
	rec  []shapeRec
	flat bool
}

func newJSONLParser(cfg *rowConfig, tt *tagTable) *jsonlParser {
	return &jsonlParser{cfg: cfg, tt: tt, refs: make(map[string]*tagRef)}
}

func (p *jsonlParser) newRef(name string) *tagRef {
	r := &tagRef{name: name, id: -1, fast: plainName(name)}
	switch {
	case p.cfg.stepKey != "" && name == p.cfg.stepKey:
		r.role = roleStep
	case p.cfg.wallKey != "" && name == p.cfg.wallKey:
		r.role = roleWall
	}
	if r.role == roleMetric {
		r.id, r.want = p.tt.intern(name)
	}
	p.refs[name] = r
	return r
}

// plainName reports whether s reads the same raw and decoded: valid UTF-8
// with no escapes, quotes or control characters.
func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '\\' || c == '"' {
			return false
		}
	}
	return utf8.ValidString(s)
}

func plainBytes(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == '\\' || c == '"' {
			return false
		}
	}
	return utf8.Valid(b)
}

func (p *jsonlParser) beginRow(b *batch) {
	p.b = b
	p.rowStart = len(b.vals)
	p.hasStep, p.stepTwice, p.step, p.wall = false, false, 0, 0
	p.leaf = 0
	p.pend = [nNotes]pendNote{}
}

// note counts a skipped leaf; name is built only for a block's first.
func (p *jsonlParser) note(k int, name []byte) {
	if p.pend[k].n == 0 && p.b.notes[k].n == 0 {
		p.pend[k].tag = string(name)
	}
	p.pend[k].n++
}

// number applies a numeric leaf. It reports false when the value cannot
// be a step although it sits under the step key.
func (p *jsonlParser) number(r *tagRef, inData bool, lex []byte) bool {
	role := r.role
	if inData {
		role = roleMetric
	}
	switch role {
	case roleStep:
		s, ok := parseStepBytes(lex)
		if !ok {
			return false
		}
		p.stepTwice = p.stepTwice || p.hasStep
		p.step, p.hasStep = s, true
	case roleWall:
		v, _ := parseFloat(lex)
		p.wall = v
	default:
		if r.id < 0 {
			r.id, r.want = p.tt.intern(r.name)
		}
		if r.want {
			v, _ := parseFloat(lex)
			p.b.add(r.id, v)
		}
	}
	return true
}

// endRow queues the row's points in b. A row that gives one tag two
// values is an error: two keys that flatten to one name ({"a": {"b": 1},
// "a/b": 2}) or a key repeated. Which value is the tag's cannot be told,
// and taking either would be a guess.
func (p *jsonlParser) endRow(b *batch, line int) *Error {
	if p.stepTwice {
		return &Error{Offset: -1, Msg: fmt.Sprintf("the step key %q has two values in one row (a repeated key): which is the row's step cannot be told", p.cfg.stepKey)}
	}
	if e := p.repeated(b); e != nil {
		return e
	}
	if !p.hasStep && p.cfg.stepKey != "" {
		p.pend[noteMissingStep].n++
	}
	b.endRow(p.rowStart, p.step, p.hasStep, p.cfg.stepKey == "", p.wall)
	for k := range p.pend {
		if n := p.pend[k].n; n > 0 {
			if b.notes[k].n == 0 {
				b.notes[k].tag, b.notes[k].line = p.pend[k].tag, line
			}
			b.notes[k].n += n
		}
	}
	return nil
}

// repeated finds a tag the current row gives a value twice.
func (p *jsonlParser) repeated(b *batch) *Error {
	if len(b.vals)-p.rowStart < 2 {
		return nil
	}
	p.rowGen++
	if p.rowGen == 0 { // wrapped: old marks could match again
		clear(p.inRow)
		p.rowGen = 1
	}
	for _, v := range b.vals[p.rowStart:] {
		if int(v.id) >= len(p.inRow) {
			p.inRow = append(p.inRow, make([]uint32, int(v.id)+1-len(p.inRow))...)
		}
		if p.inRow[v.id] == p.rowGen {
			return &Error{Offset: -1, Msg: fmt.Sprintf("the tag %q has two values in one row (a repeated key, or keys that flatten to the same name): which is the tag's cannot be told", p.tt.name(v.id))}
		}
		p.inRow[v.id] = p.rowGen
	}
	return nil
}

func (p *jsonlParser) parseBlock(data []byte, off int64, b *batch) {
	if b.lazy && !p.queued {
		// Plain numbers are folded into the summaries as they are read,
		// which also finds a tag given twice in a row at no cost. A row
		// the fast path rejects after folding, or one that repeats a tag,
		// cannot be undone: the block is read again with each row's
		// values queued until the row ends, which reports as it always did.
		p.direct = true
		done := p.parseLines(data, off, b)
		p.direct = false
		if done {
			return
		}
		p.queued = true
		b.reset()
		b.clearSums()
		b.lazy, b.data = true, data
	}
	p.parseLines(data, off, b)
}

// parseLines parses the block's lines into b. It reports false when a
// row that folded values at once must be read again (see parseBlock).
func (p *jsonlParser) parseLines(data []byte, off int64, b *batch) bool {
	p.run.n = 0
	done := p.readLines(data, off, b)
	p.foldRun(b)
	return done
}

func (p *jsonlParser) readLines(data []byte, off int64, b *batch) bool {
	p.b = b
	line := 0
	for len(data) > 0 {
		line++
		p.beginRow(b)
		if n := p.shapeRow(data); n >= 0 {
			if e := p.endRow(b, line); e != nil {
				e.Line = line
				b.err, b.lines = e, line
				return true
			}
			off += int64(n + 1)
			data = data[min(n+1, len(data)):]
			continue
		}
		var l []byte
		n := bytes.IndexByte(data, '\n')
		if n < 0 {
			l, data = data, nil
		} else {
			l, data = data[:n], data[n+1:]
		}
		l = trimCR(l)
		if len(l) == 0 || (l[0] != '{' && isBlank(l)) {
			off += int64(n + 1)
			continue
		}
		if !p.fastLine(l, b) {
			if b.direct > 0 {
				return false
			}
			if err := p.slowLine(l, line, off, b); err != nil {
				b.err = err
				b.lines = line
				return true
			}
		}
		if p.direct && b.direct > 0 && (p.stepTwice || p.foldedAgain(b)) {
			return false
		}
		if e := p.endRow(b, line); e != nil {
			e.Line = line
			b.err, b.lines = e, line
			return true
		}
		off += int64(n + 1)
	}
	b.lines = line
	return true
}

// foldLazy folds a plain finite number of the current row into b.sums at
// once. It reports false when the row already gave the tag a value.
func (p *jsonlParser) foldLazy(id int32, num []byte) bool {
	b := p.b
	if int(id) >= len(b.sums) {
		b.sums = append(b.sums, make([]tagSum, int(id)+1-len(b.sums))...)
	}
	t := &b.sums[id]
	ri := int32(len(b.rowm)) // the row's index once it ends
	if t.n == 0 {
		t.first = ri
		b.touched = append(b.touched, id)
	} else if t.last == ri {
		return false
	}
	t.n++
	t.last, t.lex = ri, int32(cap(b.data)-cap(num))
	b.direct++
	return true
}

// foldedAgain reports whether a value the current row queued is of a tag
// the row already folded at once.
func (p *jsonlParser) foldedAgain(b *batch) bool {
	ri := int32(len(b.rowm))
	for _, v := range b.vals[p.rowStart:] {
		if int(v.id) < len(b.sums) && b.sums[v.id].n > 0 && b.sums[v.id].last == ri {
			return true
		}
	}
	return false
}

// fastLine parses a line of the common shape, or reports false, having
// queued nothing, when the line needs the decoder.
func (p *jsonlParser) fastLine(l []byte, b *batch) bool {
	p.beginRow(b)
	if p.shapeLine(l) {
		return true
	}
	p.foldRun(b) // before this row folds anything
	p.beginRow(b)
	i := skipSpace(l, 0)
	if i >= len(l) || l[i] != '{' {
		return false
	}
	p.rec, p.flat = p.rec[:0], true
	i, ok := p.fastObject(l, i+1, 0, 0, false)
	if !ok || skipSpace(l, i) != len(l) {
		b.vals = b.vals[:p.rowStart]
		return false
	}
	if p.flat {
		p.learnShape(l)
	}
	return true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// fastObject parses the members of an object after its '{'; the names of
// its leaves start with p.name[:prefix].
func (p *jsonlParser) fastObject(l []byte, i, depth, prefix int, inData bool) (int, bool) {
	n := len(l)
	first := true
	for {
		gapStart := i
		var key []byte
		var hit *tagRef
		// Rows mostly repeat the row before byte for byte between values:
		// the bytes from the last value to this one (", \"key\": ") were
		// checked then and mean the same now.
		if prefix == 0 && p.leaf < len(p.pos) {
			if e := &p.pos[p.leaf]; e.gapFirst == first && len(e.gap) > 0 && n-i >= len(e.gap) && string(l[i:i+len(e.gap)]) == string(e.gap) {
				i += len(e.gap)
				key, hit = e.name, e.ref
			}
		}
		gapHit := hit != nil
		if !gapHit {
			i = skipSpace(l, i)
			if i >= n {
				return 0, false
			}
			if l[i] == '}' {
				return i + 1, true
			}
			if !first {
				if l[i] != ',' {
					return 0, false
				}
				i = skipSpace(l, i+1)
			}
			if i >= n || l[i] != '"' {
				return 0, false
			}
			i++
			// Try the key seen at this leaf position before searching for
			// the closing quote.
			if prefix == 0 && p.leaf < len(p.pos) {
				e := &p.pos[p.leaf]
				if k := i + len(e.name); k < n && l[k] == '"' && bytes.Equal(l[i:k], e.name) {
					key, hit = l[i:k], e.ref
					i = k + 1
				}
			}
			if hit == nil {
				k := bytes.IndexByte(l[i:], '"')
				if k < 0 {
					return 0, false
				}
				key = l[i : i+k]
				i += k + 1
			}
			i = skipSpace(l, i)
			if i >= n || l[i] != ':' {
				return 0, false
			}
			i = skipSpace(l, i+1)
			if i >= n {
				return 0, false
			}
		}
		if i >= n {
			return 0, false
		}
		valueStart := i
		wasFirst := first
		first = false
		var num *tagRef // the ref of a number leaf
		switch c := l[i]; {
		case c == '{':
			p.flat = false
			if depth >= maxFastDepth || !plainBytes(key) || depth > 0 && string(key) == "_type" {
				return 0, false
			}
			np, data := 0, inData
			if depth == 0 && p.cfg.verl && string(key) == "data" {
				data = true
			} else {
				np = p.appendName(prefix, key)
			}
			var ok bool
			if i, ok = p.fastObject(l, i+1, depth+1, np, data); !ok {
				return 0, false
			}
		case c == '"':
			if depth > 0 && string(key) == "_type" {
				return 0, false
			}
			e := bytes.IndexByte(l[i+1:], '"')
			if e < 0 || !plainBytes(l[i+1:i+1+e]) || !plainBytes(key) {
				return 0, false
			}
			if e <= len("-Infinity") {
				if _, ok := nonFiniteWord(string(l[i+1 : i+1+e])); ok {
					return 0, false // a number spelled as text: the decoder's
				}
			}
			p.note(noteString, p.leafName(prefix, key))
			p.flat = false
			i += e + 2
		case c == '[':
			// A list is no metric: skipped with a note, as the decoder
			// would, when its elements need no decoding to be sure of.
			if depth > 0 && string(key) == "_type" || !plainBytes(key) {
				return 0, false
			}
			e := skipList(l, i)
			if e < 0 {
				return 0, false
			}
			p.note(noteList, p.leafName(prefix, key))
			p.flat = false
			i = e
		case c == 't' || c == 'f' || c == 'n':
			var w string
			kind := noteBool
			switch c {
			case 't':
				w = "true"
			case 'f':
				w = "false"
			default:
				w, kind = "null", noteNull
			}
			if !bytes.HasPrefix(l[i:], []byte(w)) || !plainBytes(key) || depth > 0 && string(key) == "_type" {
				return 0, false
			}
			p.note(kind, p.leafName(prefix, key))
			p.flat = false
			i += len(w)
		default:
			if depth > 0 && string(key) == "_type" {
				return 0, false
			}
			r := hit
			if r != nil {
				p.leaf++
			} else if r = p.fastRef(prefix, key); r == nil {
				return 0, false
			}
			num = r
			if prefix == 0 && !gapHit {
				if e := &p.pos[min(p.leaf, len(p.pos))-1]; p.leaf <= len(p.pos) && e.ref == r {
					e.gap = append(e.gap[:0], l[gapStart:valueStart]...)
					e.gapFirst = wasFirst
				}
			}
			role := r.role
			if inData {
				role = roleMetric
			}
			if role == roleMetric && r.id >= 0 {
				// The common case, inlined: a known tag's number.
				if !r.want {
					if i = skipJSONNumber(l, i); i < 0 {
						return 0, false
					}
					break
				}
				if p.b.lazy {
					e := scanPlainNumber(l, i)
					if e < 0 {
						e = scanFiniteNumber(l, i)
					}
					if e > 0 {
						if !p.direct {
							p.b.addLazy(r.id, l[i:])
						} else if !p.foldLazy(r.id, l[i:]) {
							return 0, false
						}
						i = e
						break
					}
				}
				e, v := scanJSONNumber(l, i, true)
				if e < 0 {
					return 0, false
				}
				p.b.add(r.id, v)
				i = e
				break
			}
			e, _ := scanJSONNumber(l, i, false)
			if e < 0 || !p.number(r, inData, l[i:e]) {
				return 0, false
			}
			i = e
		}
		if num != nil && depth == 0 {
			p.rec = append(p.rec, shapeRec{ref: num, start: int32(valueStart), end: int32(i)})
		}
	}
}

// maxListDepth bounds the lists within lists skipList reads.
const maxListDepth = 32

// skipList returns the end of the JSON list that opens at l[i], or -1
// when it is not one of numbers (NaN and the infinities included), plain
// strings (see plainBytes), true, false, null and such lists, which the
// decoder then reads.
func skipList(l []byte, i int) int {
	n, depth := len(l), 0
	for {
		// at a value
		switch c := l[i]; {
		case c == '[':
			if depth++; depth > maxListDepth {
				return -1
			}
			if i = skipSpace(l, i+1); i < n && l[i] == ']' {
				i++
				if depth--; depth == 0 {
					return i
				}
				break
			}
			if i >= n {
				return -1
			}
			continue
		case c == '"':
			e := bytes.IndexByte(l[i+1:], '"')
			if e < 0 || !plainBytes(l[i+1:i+1+e]) {
				return -1
			}
			i += e + 2
		case c == 't' || c == 'f' || c == 'n':
			w := "null"
			if c == 't' {
				w = "true"
			} else if c == 'f' {
				w = "false"
			}
			if !bytes.HasPrefix(l[i:], []byte(w)) {
				return -1
			}
			i += len(w)
		default:
			if i = skipJSONNumber(l, i); i < 0 {
				return -1
			}
		}
		// after a value: a comma and the next, or the ends of lists
		for {
			if i = skipSpace(l, i); i >= n {
				return -1
			}
			if l[i] == ',' {
				if i = skipSpace(l, i+1); i >= n {
					return -1
				}
				break
			}
			if l[i] != ']' {
				return -1
			}
			i++
			if depth--; depth == 0 {
				return i
			}
		}
	}
}

// appendName sets p.name to the name of a nested object and returns its length.
func (p *jsonlParser) appendName(prefix int, key []byte) int {
	p.name = p.name[:prefix]
	if prefix > 0 {
		p.name = append(p.name, '/')
	}
	p.name = append(p.name, key...)
	return len(p.name)
}

func (p *jsonlParser) leafName(prefix int, key []byte) []byte {
	if prefix == 0 {
		return key
	}
	p.appendName(prefix, key)
	return p.name
}

// fastRef finds the ref of a leaf from raw key bytes: first at the same
// leaf position as in earlier rows, then by name. It returns nil for a
// name that needs unescaping.
func (p *jsonlParser) fastRef(prefix int, key []byte) *tagRef {
	name := p.leafName(prefix, key)
	k := p.leaf
	p.leaf++
	if k < len(p.pos) && bytes.Equal(p.pos[k].name, name) {
		return p.pos[k].ref
	}
	r := p.refs[string(name)]
	if r == nil {
		if !plainBytes(name) {
			return nil
		}
		r = p.newRef(string(name))
	} else if !r.fast {
		return nil
	}
	if k < len(p.pos) {
		e := &p.pos[k]
		e.name, e.ref, e.gap = append(e.name[:0], name...), r, e.gap[:0]
	} else if k == len(p.pos) && k < 4096 {
		p.pos = append(p.pos, posEnt{name: append([]byte(nil), name...), ref: r})
	}
	return r
}

// parseFloat reads a number's spelling; out-of-range values become ±Inf
// or 0, as strconv rounds them.
func parseFloat(b []byte) (float64, error) {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return v, nil
		}
	}
	return v, err
}

func parseStepBytes(b []byte) (int64, bool) { return parseStep(string(b)) }

// slowLine decodes a line with encoding/json.
func (p *jsonlParser) slowLine(l []byte, line int, off int64, b *batch) *Error {
	p.beginRow(b)
	if i := binaryAt(l, false); i >= 0 {
		return &Error{Line: line, Offset: off + int64(i), Msg: fmt.Sprintf("binary data at byte %d; not a jsonl file", off+int64(i))}
	}
	leaves, err := decodeLine(l, p.cfg.verl, &p.scratch, p.leaves[:0])
	p.leaves = leaves
	if err != nil {
		err.Line, err.Offset = line, -1
		return err
	}
	if e := p.applyLeaves(b); e != nil {
		e.Line = line
		return e
	}
	return nil
}

// decodeLine decodes one line holding one object into leaves. The error
// has its column set, not its line.
func decodeLine(l []byte, verl bool, scratch *[]byte, leaves []leaf) ([]leaf, *Error) {
	buf := append((*scratch)[:0], l...)
	*scratch = buf
	new(nonFinite).process(buf, true)
	if !json.Valid(buf) {
		var raw json.RawMessage
		err := json.Unmarshal(buf, &raw)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			col := int(se.Offset)
			if col >= len(buf) && se.Error() == "unexpected end of JSON input" {
				return leaves, &Error{Col: len(l) + 1, Msg: "unexpected end of line inside the object"}
			}
			return leaves, &Error{Col: max(col, 1), Msg: se.Error()}
		}
		return leaves, &Error{Msg: "invalid JSON"}
	}
	dec := json.NewDecoder(bytes.NewReader(buf))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil {
		return leaves, &Error{Msg: err.Error()}
	}
	if t != json.Delim('{') {
		return leaves, &Error{Col: skipSpace(l, 0) + 1, Msg: "expected a JSON object, found " + tokenText(t)}
	}
	rd := rowDecoder{dec: dec, verl: verl, leaves: leaves}
	if err := rd.object("", 0, false, ""); err != nil {
		return rd.leaves, &Error{Msg: err.Error()}
	}
	return rd.leaves, nil
}

// applyLeaves queues a decoded row's values, as fastObject would have.
func (p *jsonlParser) applyLeaves(b *batch) *Error {
	p.b = b
	var lex []byte
	for _, l := range p.leaves {
		switch l.kind {
		case leafNumber:
			r := p.refs[l.name]
			if r == nil {
				r = p.newRef(l.name)
			}
			lex = append(lex[:0], l.num...)
			if !p.number(r, l.inData, lex) {
				return &Error{Offset: -1, Msg: fmt.Sprintf("the step %q is %s, not an integer", l.name, stepText(l.num))}
			}
		case leafString:
			p.note(noteString, []byte(l.name))
		case leafBool:
			p.note(noteBool, []byte(l.name))
		case leafNull:
			p.note(noteNull, []byte(l.name))
		case leafList:
			p.note(noteList, []byte(l.name))
		case leafMedia:
			p.note(noteMedia, []byte(l.name))
		}
	}
	return nil
}

// readJSONL reads a JSON Lines file.
func readJSONL(path string, sink Sink) (Info, error) {
	f, err := openText(path, JSONL, true, sink)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	cfg, err := jsonlConfig(f)
	if err != nil {
		return Info{}, err
	}
	tt := newTagTable(sink)
	d := &delivery{tt: tt}
	err = runBlocks(f, f.start, f.end, func() blockParser { return newJSONLParser(&cfg, tt) }, d)
	info := Info{Points: d.points}
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Path = path
		}
		return info, err
	}
	info.Notes = append(cfg.notes(), d.notes.notes(cfg.stepKey)...)
	f.finish(&info)
	return info, nil
}

// jsonlConfig decodes the first row to choose the step and wall-time keys.
func jsonlConfig(f *textFile) (rowConfig, error) {
	path := f.path
	lr := f.lines()
	for {
		l, err := lr.Next()
		if err == io.EOF {
			return rowConfig{}, &Error{Path: path, Offset: -1, Msg: "no rows: the file holds only blank lines"}
		}
		if err != nil {
			return rowConfig{}, err
		}
		if isBlank(l) {
			continue
		}
		if i := binaryAt(l, false); i >= 0 {
			return rowConfig{}, binaryError(path, JSONL, lr.line, lr.off+int64(i))
		}
		var scratch []byte
		leaves, e := decodeLine(l, false, &scratch, nil)
		if e != nil {
			e.Path, e.Line, e.Offset = path, lr.line, -1
			return rowConfig{}, e
		}
		return configFromRow(leaves, func(verl bool) ([]leaf, error) {
			leaves, e := decodeLine(l, verl, &scratch, nil)
			if e != nil {
				return nil, e
			}
			return leaves, nil
		})
	}
}
