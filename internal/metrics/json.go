package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// JSON rows: the token-level decoder shared by the JSON, JSONL (for lines
// its fast path declines) and wandb-summary readers.
//
// Python's json module writes NaN, Infinity and -Infinity, which
// encoding/json rejects. Before decoding, those tokens (outside strings)
// are rewritten in place to number spellings of the same length that no
// serializer produces, and real numbers spelled that way are respelled, so
// byte offsets in errors stay those of the file.

// Same-length stand-ins for the non-finite tokens.
const (
	lexNaN    = "0e0"
	lexInf    = "0e000000"
	lexNegInf = "-0e000000"
	maxRunLen = len("-Infinity") // longest token the rewriter must see whole
)

// nonFinite is the rewriter's state between buffers of one stream.
type nonFinite struct {
	inString, escape bool
	longRun          bool // inside a token run too long to need rewriting
}

func isRunByte(c byte) bool {
	// A bit per byte: bytes 0 to 63 in lo, 64 to 127 in hi.
	const (
		lo = 1<<'+' | 1<<'-' | 1<<'.' | 0x3ff<<'0'
		hi = 0x3ffffff<<('A'-64) | 0x3ffffff<<('a'-64)
	)
	m := uint64(lo)
	if c >= 64 {
		m = hi
	}
	return c < 128 && m>>(c&63)&1 != 0
}

// process rewrites b in place and returns how many leading bytes are
// final. Unless final is set, a token run touching the end of b is held
// back, because the next buffer may continue it.
func (s *nonFinite) process(b []byte, final bool) int {
	i := 0
	for i < len(b) {
		c := b[i]
		if s.inString {
			switch {
			case s.escape:
				s.escape = false
			case c == '\\':
				s.escape = true
			case c == '"':
				s.inString = false
			}
			i++
			continue
		}
		if s.longRun {
			if isRunByte(c) {
				i++
				continue
			}
			s.longRun = false
		}
		if c == '"' {
			s.inString = true
			i++
			continue
		}
		if !isRunByte(c) {
			i++
			continue
		}
		j := i
		for j < len(b) && isRunByte(b[j]) {
			j++
		}
		if j == len(b) && !final {
			if j-i <= maxRunLen {
				return i
			}
			s.longRun = true
			return len(b)
		}
		rewriteRun(b[i:j])
		i = j
	}
	return len(b)
}

func rewriteRun(tok []byte) {
	switch string(tok) {
	case "NaN":
		copy(tok, lexNaN)
	case "Infinity":
		copy(tok, lexInf)
	case "-Infinity":
		copy(tok, lexNegInf)
	case lexNaN, lexInf, lexNegInf:
		tok[bytes.IndexByte(tok, 'e')] = '.'
	}
}

// numberLexeme maps a decoded number back to its spelling in the file.
func numberLexeme(n json.Number) string {
	switch n {
	case lexNaN:
		return "NaN"
	case lexInf:
		return "Infinity"
	case lexNegInf:
		return "-Infinity"
	}
	return string(n)
}

// A nonFiniteReader applies the rewrite to a stream.
type nonFiniteReader struct {
	r               io.Reader
	st              nonFinite
	buf             []byte
	lo, settled, hi int // buf[lo:settled] is ready, buf[settled:hi] held back
	eof             bool
}

func newNonFiniteReader(r io.Reader) *nonFiniteReader {
	return &nonFiniteReader{r: r, buf: make([]byte, 64<<10)}
}

func (n *nonFiniteReader) Read(p []byte) (int, error) {
	for n.lo == n.settled {
		if n.eof {
			return 0, io.EOF
		}
		copy(n.buf, n.buf[n.settled:n.hi])
		n.hi -= n.settled
		n.lo, n.settled = 0, 0
		m, err := n.r.Read(n.buf[n.hi:])
		n.hi += m
		if err == io.EOF {
			n.eof = true
		} else if err != nil {
			return 0, err
		}
		n.settled += n.st.process(n.buf[n.settled:n.hi], n.eof)
	}
	c := copy(p, n.buf[n.lo:n.settled])
	n.lo += c
	return c, nil
}

// Kinds of JSON leaves.
const (
	leafNumber = iota
	leafString
	leafBool
	leafNull
	leafList
	leafMedia
)

// A leaf is one value of a row, named by its path joined with "/".
type leaf struct {
	name   string
	kind   uint8
	num    string // a number's spelling (NaN, Infinity, -Infinity as such)
	top    string // the row key the leaf sits under
	inData bool   // under a verl row's "data" object
}

// A rowDecoder reads row objects from a token stream into leaves.
type rowDecoder struct {
	dec    *json.Decoder
	verl   bool // a top-level "data" object holds the row's tags
	leaves []leaf
}

// object reads the members of an object whose '{' was consumed, and its '}'.
func (rd *rowDecoder) object(prefix string, depth int, inData bool, top string) error {
	start := len(rd.leaves)
	for rd.dec.More() {
		t, err := rd.dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		name := key
		if prefix != "" {
			name = prefix + "/" + key
		}
		tk := top
		if depth == 0 {
			tk = key
		}
		if depth > 0 && key == "_type" {
			// A W&B media or table object: drop what it produced so far
			// and skip the rest.
			rd.leaves = append(rd.leaves[:start], leaf{name: prefix, kind: leafMedia, top: tk, inData: inData})
			if err := rd.skipValue(); err != nil {
				return err
			}
			for rd.dec.More() {
				if _, err := rd.dec.Token(); err != nil {
					return err
				}
				if err := rd.skipValue(); err != nil {
					return err
				}
			}
			break
		}
		t, err = rd.dec.Token()
		if err != nil {
			return err
		}
		switch v := t.(type) {
		case json.Delim:
			if v == '{' {
				if depth == 0 && rd.verl && key == "data" {
					err = rd.object("", depth+1, true, tk)
				} else {
					err = rd.object(name, depth+1, inData, tk)
				}
			} else {
				err = rd.skipOpen(1)
				rd.leaves = append(rd.leaves, leaf{name: name, kind: leafList, top: tk, inData: inData})
			}
			if err != nil {
				return err
			}
		case json.Number:
			rd.leaves = append(rd.leaves, leaf{name: name, kind: leafNumber, num: numberLexeme(v), top: tk, inData: inData})
		case string:
			if num, ok := nonFiniteWord(v); ok {
				rd.leaves = append(rd.leaves, leaf{name: name, kind: leafNumber, num: num, top: tk, inData: inData})
				break
			}
			rd.leaves = append(rd.leaves, leaf{name: name, kind: leafString, top: tk, inData: inData})
		case bool:
			rd.leaves = append(rd.leaves, leaf{name: name, kind: leafBool, top: tk, inData: inData})
		case nil:
			rd.leaves = append(rd.leaves, leaf{name: name, kind: leafNull, top: tk, inData: inData})
		}
	}
	_, err := rd.dec.Token() // '}'
	return err
}

// skipValue skips one value.
func (rd *rowDecoder) skipValue() error {
	t, err := rd.dec.Token()
	if err != nil {
		return err
	}
	if _, ok := t.(json.Delim); ok {
		return rd.skipOpen(1)
	}
	return nil
}

// skipOpen skips to the end of depth open arrays or objects.
func (rd *rowDecoder) skipOpen(depth int) error {
	for depth > 0 {
		t, err := rd.dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// rowConfig is what the first row of a JSON or JSONL file decides.
type rowConfig struct {
	stepKey string // "" when rows are numbered instead
	wallKey string
	verl    bool
}

// configFromRow picks the step key, the wall-time key and the verl shape
// from a decoded first row. decode decodes the row again with verl set.
func configFromRow(leaves []leaf, redecode func(verl bool) ([]leaf, error)) (rowConfig, error) {
	var cfg rowConfig
	var hasStep, hasData bool
	for _, l := range leaves {
		if l.top == "step" && l.name == "step" && l.kind == leafNumber {
			hasStep = true
		}
		if l.top == "data" && l.name != "data" {
			hasData = true
		}
	}
	if hasStep && hasData {
		cfg.verl = true
		var err error
		if leaves, err = redecode(true); err != nil {
			return cfg, err
		}
	}
	cfg.stepKey = chooseKey(stepKeys(), func(k string) bool {
		for _, l := range leaves {
			if !l.inData && l.name == k && l.kind == leafNumber {
				_, ok := parseStep(l.num)
				return ok
			}
		}
		return false
	})
	cfg.wallKey = chooseKey(wallKeys(), func(k string) bool {
		for _, l := range leaves {
			if !l.inData && l.name == k && l.kind == leafNumber {
				v, err := parseFloat([]byte(l.num))
				return err == nil && plausibleWall(v)
			}
		}
		return false
	})
	return cfg, nil
}

// notes describes the configuration.
func (c rowConfig) notes() []string {
	var out []string
	if c.verl {
		out = append(out, `Rows have verl's {"step": N, "data": {…}} shape; tags are the keys inside "data".`)
	}
	if c.stepKey != "" {
		out = append(out, fmt.Sprintf("Steps come from %q.", c.stepKey))
	} else {
		out = append(out, fmt.Sprintf("The first row has none of the step keys (%s); the step is the row number, from 0.", keyList(stepKeys())))
	}
	if c.wallKey != "" {
		out = append(out, fmt.Sprintf("Wall times come from %q.", c.wallKey))
	}
	return out
}

// openJSON opens a JSON file of format with a decoder over its body that
// reads Python's bare NaN and ±Infinity, and numbers as their text.
func openJSON(path string, format Format, sink Sink) (*jsonReader, error) {
	f, err := openText(path, format, false, sink)
	if err != nil {
		return nil, err
	}
	jr := &jsonReader{path: path, file: f, bom: f.start}
	jr.dec = json.NewDecoder(newNonFiniteReader(f.body()))
	jr.dec.UseNumber()
	return jr, nil
}

// readJSON reads a JSON file: one row object, an array of row objects, or
// a sequence of row objects. Rows are as in JSONL.
func readJSON(path string, sink Sink) (Info, error) {
	jr, err := openJSON(path, JSON, sink)
	if err != nil {
		return Info{}, err
	}
	defer jr.file.Close()
	jr.tt = newTagTable(sink)
	jr.d = &delivery{tt: jr.tt}
	info, err := jr.read()
	info.Points = jr.d.points
	return info, err
}

type jsonReader struct {
	path  string
	file  *textFile
	bom   int64
	dec   *json.Decoder
	tt    *tagTable
	d     *delivery
	p     *jsonlParser
	b     batch
	rowAt int64 // offset of the current row's '{'
}

func (jr *jsonReader) read() (Info, error) {
	t, err := jr.dec.Token()
	if err == io.EOF {
		return Info{}, &Error{Path: jr.path, Offset: -1, Msg: "empty file (only white space)"}
	}
	if err != nil {
		return Info{}, jr.fail(err)
	}
	var info Info
	switch t {
	case json.Delim('{'):
		// One object, or several in a row (JSON Lines written as .json).
		for {
			if err := jr.row(); err != nil {
				return info, err
			}
			jr.rowAt = jr.dec.InputOffset()
			t, err := jr.dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				return info, jr.fail(err)
			}
			if t != json.Delim('{') {
				return info, jr.errAt(jr.rowAt, "expected a row object after the previous one, found "+tokenText(t))
			}
		}
	case json.Delim('['):
		for jr.dec.More() {
			jr.rowAt = jr.dec.InputOffset()
			t, err := jr.dec.Token()
			if err != nil {
				return info, jr.fail(err)
			}
			if t == json.Delim('[') {
				return info, jr.errAt(jr.rowAt, "the array holds arrays, not row objects; a TensorBoard JSON export reads with --format tb-json")
			}
			if t != json.Delim('{') {
				return info, jr.errAt(jr.rowAt, "the array holds "+tokenText(t)+", not row objects")
			}
			if err := jr.row(); err != nil {
				return info, err
			}
		}
		if _, err := jr.dec.Token(); err != nil { // ']'
			return info, jr.fail(err)
		}
		at := jr.dec.InputOffset()
		if _, err := jr.dec.Token(); err != io.EOF {
			if err != nil {
				return info, jr.fail(err)
			}
			return info, jr.errAt(at, "unexpected data after the array")
		}
		if jr.p == nil {
			info.Notes = append(info.Notes, "The array is empty.")
		}
	default:
		return info, jr.errAt(0, "expected an object or an array of row objects, found "+tokenText(t))
	}
	if jr.p != nil {
		if err := jr.flush(); err != nil {
			return info, err
		}
		info.Notes = append(info.Notes, jr.p.cfg.notes()...)
		info.Notes = append(info.Notes, jr.d.notes.notes(jr.p.cfg.stepKey)...)
	}
	return info, nil
}

// row decodes one row object whose '{' was read and queues its points.
func (jr *jsonReader) row() error {
	rd := rowDecoder{dec: jr.dec}
	if jr.p != nil {
		rd.verl = jr.p.cfg.verl
		rd.leaves = jr.p.leaves[:0]
	}
	if err := rd.object("", 0, false, ""); err != nil {
		return jr.fail(err)
	}
	if jr.p == nil {
		// The first row decides the configuration. Rows are decoded once
		// from the stream, so a verl first row is re-read from its leaves.
		first := rd.leaves
		cfg, _ := configFromRow(first, func(bool) ([]leaf, error) { return verlLeaves(first), nil })
		if cfg.verl {
			rd.leaves = verlLeaves(first)
		}
		jr.p = newJSONLParser(&cfg, jr.tt)
	}
	jr.p.leaves = rd.leaves
	jr.p.beginRow(&jr.b)
	if e := jr.p.applyLeaves(&jr.b); e != nil {
		line, col := jr.position(jr.rowAt, true)
		e.Path, e.Line, e.Col = jr.path, line, col
		return e
	}
	if e := jr.p.endRow(&jr.b, 0); e != nil {
		line, col := jr.position(jr.rowAt, true)
		e.Path, e.Line, e.Col = jr.path, line, col
		return e
	}
	if len(jr.b.vals) >= 4096 {
		return jr.flush()
	}
	return nil
}

// verlLeaves renames the leaves of a row decoded without the verl rule:
// those under the top-level "data" object lose the "data/" prefix.
func verlLeaves(leaves []leaf) []leaf {
	out := make([]leaf, len(leaves))
	for i, l := range leaves {
		if l.top == "data" && strings.HasPrefix(l.name, "data/") {
			l.name, l.inData = l.name[len("data/"):], true
		}
		out[i] = l
	}
	return out
}

func (jr *jsonReader) flush() error {
	err := jr.d.deliver(&jr.b)
	jr.b.reset()
	return err
}

func tokenText(t json.Token) string {
	switch v := t.(type) {
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		return fmt.Sprintf("%q", string(v))
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprint(t)
}

// fail turns a decoding error into an *Error at its place in the file.
func (jr *jsonReader) fail(err error) error {
	var se *json.SyntaxError
	var pe *Error
	switch {
	case errors.As(err, &se):
		return jr.syntaxError(se)
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return jr.errAt(jr.dec.InputOffset(), "unexpected end of file inside a value")
	case errors.As(err, &pe):
		return pe
	}
	return &Error{Path: jr.path, Offset: -1, Msg: err.Error()}
}

// syntaxError places a syntax error. The decoder's own offset counts
// from the value it was scanning; its input offset is the bad byte.
func (jr *jsonReader) syntaxError(se *json.SyntaxError) *Error {
	line, col := jr.position(jr.dec.InputOffset(), false)
	return &Error{Path: jr.path, Line: line, Col: col, Offset: -1, Msg: se.Error()}
}

func (jr *jsonReader) errAt(off int64, msg string) *Error {
	line, col := jr.position(off, true)
	return &Error{Path: jr.path, Line: line, Col: col, Offset: -1, Msg: msg}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// position turns an offset (after any byte-order mark) into a 1-based line
// and byte column. With skip set it moves on over white space and commas
// to the next token, since the decoder's offsets sit after the last token.
func (jr *jsonReader) position(off int64, skip bool) (line, col int) {
	r := io.NewSectionReader(jr.file, jr.bom, 1<<62)
	buf := make([]byte, 64<<10)
	line = 1
	var pos, lineStart int64
	for pos < off {
		n, err := r.Read(buf[:min(int64(len(buf)), off-pos)])
		chunk := buf[:n]
		if c := bytes.Count(chunk, []byte{'\n'}); c > 0 {
			line += c
			lineStart = pos + int64(bytes.LastIndexByte(chunk, '\n')) + 1
		}
		pos += int64(n)
		if err != nil {
			break
		}
	}
	col = int(pos-lineStart) + 1
	for skip {
		n, err := r.Read(buf)
		for _, c := range buf[:n] {
			switch {
			case c == '\n':
				line, col = line+1, 1
			case isJSONSpace(c) || c == ',':
				col++
			default:
				return line, col
			}
		}
		if err != nil {
			break
		}
	}
	return line, col
}

// nonFiniteWord reads a string that spells a number JSON cannot hold:
// writers that keep to strict JSON log a diverged value as "NaN" or
// "inf" (Python's str, JavaScript's String). Skipped as text, it would
// leave a series looking finite where its run wrote NaN. It returns the
// number's spelling as the readers take it.
func nonFiniteWord(s string) (string, bool) {
	if len(s) < 3 || len(s) > len("-Infinity") {
		return "", false
	}
	sign, word := "", s
	if s[0] == '+' || s[0] == '-' {
		sign, word = s[:1], s[1:]
	}
	switch {
	case strings.EqualFold(word, "nan") && sign == "":
		return "NaN", true
	case strings.EqualFold(word, "inf"), strings.EqualFold(word, "infinity"):
		if sign == "-" {
			return "-Infinity", true
		}
		return "Infinity", true
	}
	return "", false
}
