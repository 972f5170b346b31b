package metrics

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"
)

// CSV: progress.csv of Stable-Baselines3, OpenAI baselines and rllab, and
// other header-plus-rows tables.
//
// Conventions:
//   - The first line that is neither blank nor a "#" comment is the
//     header; each column is a tag named by its header cell. Columns with
//     an empty name (an unnamed index) are skipped.
//   - The step column is the first of stepKeys present whose cell in the
//     first data row is an integer; it is not a tag. Without one, the step
//     is the row number from 0. A row with an empty step cell takes the
//     previous row's step. A wall-time column (wallKeys) is used likewise.
//   - An empty cell is no point at that step. A row shorter than the
//     header (SB3 appends columns when new keys appear) has no points in
//     the missing columns. Cells that are not numbers are skipped with a
//     note.
//   - Rejected, with the line: a second header mid-file (a row whose cells
//     are all names), a list cell such as numpy's "[1. 2.]", a row longer
//     than the header, and a quoted cell that does not close on its line
//     (rlxp reads one record per line).
//   - Cells of columns the sink does not want are not parsed.
//
// Lines without quotes are split on commas directly; a line with a quote
// goes to encoding/csv.

// Column roles.
const (
	colSkip = iota
	colMetric
	colStep
	colWall
)

type csvConfig struct {
	header  []string
	role    []uint8
	ids     []int32
	stepCol int // -1 when rows are numbered
	wallCol int
	last    int // the last column in use, -1 for none
	sums    int // tag ids are below it
}

// A csvParser parses rows for one goroutine.
type csvParser struct {
	cfg     *csvConfig
	cells   [][]byte
	cols    []int // 1-based byte column of each cell
	scratch []byte

	// the row being parsed
	start    int // its first value in the batch
	step     int64
	hasStep  bool
	wall     float64
	header   bool // every cell so far reads as a name
	nonEmpty int
	badStep  *Error
	notes    noteCounts
	quick    bool // cells are slices of the block (see batch.addLazy)
	direct   bool // quick rows fold their values at once (see parseBlock)

	nd, cm []uint64 // bitmaps of the line (see lineMasks)

	// Plain rows of a summarized block (see plainRow) are counted, not
	// folded cell by cell: every metric column has a point in each, so
	// the block's first and last of them and their number are enough,
	// and flushPlain adds them to the summaries at the block's end.
	metrics            []int    // the metric columns, once known
	plainCm            []uint64 // the comma bitmap of the last row plainRow read
	plainN             int64
	plainFirst         int32 // in b.rowm
	plainLast          int32
	plainLex, plainLen int32 // where the last plain row lies in the block
	plainMiss          int   // rows plainRow turned down since it last took one
}

func readCSV(path string, sink Sink) (Info, error) {
	f, err := openText(path, CSV, true, sink)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	tt := newTagTable(sink)
	cfg, start, line, notes, err := csvHeader(f, tt)
	if err != nil {
		return Info{}, err
	}
	d := &delivery{tt: tt, line: line}
	err = runBlocks(f, start, f.end, func() blockParser { return &csvParser{cfg: cfg} }, d)
	info := Info{Points: d.points}
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Path = path
		}
		return info, err
	}
	stepName := ""
	if cfg.stepCol >= 0 {
		stepName = cfg.header[cfg.stepCol]
	}
	info.Notes = append(notes, d.notes.notes(stepName)...)
	f.finish(&info)
	return info, nil
}

// csvHeader reads the header and the first data row. It returns the
// offset where rows start and the number of lines before them.
func csvHeader(f *textFile, tt *tagTable) (*csvConfig, int64, int, []string, error) {
	path := f.path
	lr := f.lines()
	var notes []string
	comments := 0
	var header []string
	var headerLine int
	var start int64
	for header == nil {
		l, err := lr.Next()
		if err == io.EOF {
			return nil, 0, 0, nil, &Error{Path: path, Offset: -1, Msg: "no header: the file holds only blank or comment lines"}
		}
		if err != nil {
			return nil, 0, 0, nil, err
		}
		if isBlank(l) {
			continue
		}
		if l[0] == '#' {
			comments++
			continue
		}
		if i := binaryAt(l, false); i >= 0 {
			return nil, 0, 0, nil, binaryError(path, CSV, lr.line, lr.off+int64(i))
		}
		cells, _, e := splitCSVLine(l, nil, nil, nil)
		if e != nil {
			e.Path, e.Line = path, lr.line
			return nil, 0, 0, nil, e
		}
		header = make([]string, len(cells))
		for i, c := range cells {
			header[i] = string(bytes.TrimSpace(c))
		}
		headerLine, start = lr.line, lr.next
	}
	if comments > 0 {
		notes = append(notes, fmt.Sprintf("Skipped %s before the header.", plural(int64(comments), "comment line", "comment lines")))
	}
	numeric, unnamed := 0, 0
	seen := make(map[string]int, len(header))
	for i, h := range header {
		if h == "" {
			unnamed++
			continue
		}
		if _, ok := parseCell([]byte(h)); ok {
			numeric++
		}
		if j, dup := seen[h]; dup {
			return nil, 0, 0, nil, &Error{Path: path, Line: headerLine, Offset: -1,
				Msg: fmt.Sprintf("column name %q appears twice (columns %d and %d)", h, j+1, i+1)}
		}
		seen[h] = i
	}
	if numeric > 0 && numeric == len(header)-unnamed {
		return nil, 0, 0, nil, &Error{Path: path, Line: headerLine, Offset: -1,
			Msg: "the first line holds numbers, not column names; rlxp needs a header"}
	}
	if unnamed > 0 {
		notes = append(notes, fmt.Sprintf("Skipped %s with no name in the header.", plural(int64(unnamed), "column", "columns")))
	}

	// The first data row decides the step column.
	var first [][]byte
	for {
		l, err := lr.Next()
		if err != nil {
			break
		}
		if isBlank(l) {
			continue
		}
		cells, _, e := splitCSVLine(l, nil, nil, nil)
		if e == nil {
			first = cells
		}
		break
	}
	cell := func(name string) ([]byte, bool) {
		i, ok := seen[name]
		if !ok {
			return nil, false
		}
		if first == nil {
			return nil, true
		}
		if i >= len(first) {
			return nil, false
		}
		return bytes.TrimSpace(first[i]), true
	}
	cfg := &csvConfig{header: header, stepCol: -1, wallCol: -1}
	if k := chooseKey(stepKeys(), func(k string) bool {
		c, ok := cell(k)
		if ok && first != nil {
			_, ok = parseStep(string(c))
		}
		return ok
	}); k != "" {
		cfg.stepCol = seen[k]
		notes = append(notes, fmt.Sprintf("Steps come from column %q.", k))
	} else {
		notes = append(notes, fmt.Sprintf("No step column (%s); the step is the row number, from 0.", keyList(stepKeys())))
	}
	if k := chooseKey(wallKeys(), func(k string) bool {
		c, ok := cell(k)
		if !ok || first == nil {
			return false
		}
		v, ok := parseCell(c)
		return ok && plausibleWall(v)
	}); k != "" {
		cfg.wallCol = seen[k]
		notes = append(notes, fmt.Sprintf("Wall times come from column %q.", k))
	}
	cfg.role = make([]uint8, len(header))
	cfg.ids = make([]int32, len(header))
	cfg.last = -1
	for i, h := range header {
		cfg.ids[i] = -1
		switch {
		case i == cfg.stepCol:
			cfg.role[i] = colStep
		case i == cfg.wallCol:
			cfg.role[i] = colWall
		case h == "":
			cfg.role[i] = colSkip
		default:
			if id, want := tt.intern(h); want {
				cfg.role[i], cfg.ids[i] = colMetric, id
				cfg.sums = max(cfg.sums, int(id)+1)
			}
		}
		if cfg.role[i] != colSkip {
			cfg.last = i
		}
	}
	return cfg, start, headerLine, notes, nil
}

// splitCSVLine splits one line into cells: on commas, or with
// encoding/csv when the line has a quote. cols gets each cell's 1-based
// byte column. The error has its column set, not its line.
func splitCSVLine(l []byte, cells [][]byte, cols []int, scratch *[]byte) ([][]byte, []int, *Error) {
	cells, cols = cells[:0], cols[:0]
	if bytes.IndexByte(l, '"') < 0 {
		s := 0
		for {
			j := bytes.IndexByte(l[s:], ',')
			if j < 0 {
				return append(cells, l[s:]), append(cols, s+1), nil
			}
			cells = append(cells, l[s:s+j])
			cols = append(cols, s+1)
			s += j + 1
		}
	}
	r := csv.NewReader(bytes.NewReader(l))
	r.FieldsPerRecord = -1
	rec, err := r.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			msg := pe.Err.Error()
			if errors.Is(pe.Err, csv.ErrQuote) {
				msg = `a quoted cell does not close on its line ("` + pe.Err.Error() + `"); rlxp reads one record per line`
			}
			return cells, cols, &Error{Col: pe.Column, Offset: -1, Msg: msg}
		}
		return cells, cols, &Error{Offset: -1, Msg: err.Error()}
	}
	if _, err := r.Read(); err != io.EOF {
		return cells, cols, &Error{Offset: -1, Msg: "the line holds more than one record"}
	}
	var buf []byte
	if scratch != nil {
		buf = (*scratch)[:0]
	}
	ends := make([]int, len(rec))
	for i, c := range rec {
		buf = append(buf, c...)
		ends[i] = len(buf)
	}
	if scratch != nil {
		*scratch = buf
	}
	s := 0
	for i := range rec {
		cells = append(cells, buf[s:ends[i]:ends[i]])
		_, col := r.FieldPos(i)
		cols = append(cols, col)
		s = ends[i]
	}
	return cells, cols, nil
}

// parseCell reads a number the way strconv.ParseFloat does (so "nan",
// "inf" and "1e-05" are numbers); out-of-range values round to ±Inf or 0.
func parseCell(c []byte) (float64, bool) {
	if len(c) == 0 {
		return 0, false
	}
	if c[0] == '-' || c[0]-'0' < 10 {
		if e, v := scanJSONNumber(c, 0, true); e == len(c) {
			return v, true
		}
	}
	v, err := parseFloat(c)
	return v, err == nil
}

// wordy reports whether a cell reads as a name rather than a value: it
// starts with a letter or '_' and is not a spelling of NaN or infinity.
func wordy(c []byte) bool {
	ch := c[0]
	if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch == '_' || ch >= 0x80) {
		return false
	}
	for _, w := range []string{"nan", "inf", "infinity"} {
		if bytes.EqualFold(c, []byte(w)) {
			return false
		}
	}
	return true
}

func (p *csvParser) parseBlock(data []byte, off int64, b *batch) {
	if b.lazy {
		// Quick rows fold their values into the summaries as they are
		// read; should one be rejected after that, the block is read
		// again with each row's values queued until the row ends.
		p.direct = true
		done := p.parseLines(data, off, b)
		p.direct = false
		if done {
			return
		}
		b.reset()
		b.clearSums()
		b.lazy, b.data = true, data
	}
	p.parseLines(data, off, b)
}

// parseLines parses the block's lines into b. It reports false when it
// stopped at a quick row rejected after folding values (see parseBlock).
func (p *csvParser) parseLines(data []byte, off int64, b *batch) bool {
	line := 0
	p.plainN = 0
	defer p.flushPlain(b)
	for len(data) > 0 {
		line++
		var l []byte
		n := bytes.IndexByte(data, '\n')
		if n < 0 {
			l, data = data, nil
		} else {
			l, data = data[:n], data[n+1:]
		}
		l = trimCR(l)
		if b.lazy && len(l) > 0 && p.plainRowCounted(l, b, line) {
			off += int64(n + 1)
			continue
		}
		if len(l) > 0 && !isBlank(l) {
			var e *Error
			if !p.quickRow(l, b, line, off) {
				if b.direct > 0 {
					return false
				}
				p.cells, p.cols, e = splitCSVLine(l, p.cells, p.cols, &p.scratch)
				if e == nil {
					e = p.row(b, line, off)
				}
			}
			if e != nil {
				e.Line = line
				b.err, b.lines = e, line
				return true
			}
		}
		off += int64(n + 1)
	}
	b.lines = line
	return true
}

// quickRow handles a plain row that cannot be rejected: no quotes, no
// list cells, no more cells than the header, and a first cell that is a
// value, so the row cannot be a second header. Only the cells up to the
// last column in use are looked at. It reports false, having queued
// nothing, for any other row.
func (p *csvParser) quickRow(l []byte, b *batch, line int, off int64) bool {
	cfg := p.cfg
	if bytes.IndexByte(l, '"') >= 0 || bytes.IndexByte(l, '[') >= 0 {
		return false
	}
	if commas := bytes.Count(l, []byte{','}); commas != len(cfg.header)-1 {
		return false
	}
	end := bytes.IndexByte(l, ',')
	if end < 0 {
		end = len(l)
	}
	if first := trimSpace(l[:end]); len(first) == 0 || wordy(first) {
		return false
	}
	p.begin(b)
	p.quick = true
	defer func() { p.quick = false }()
	if p.direct {
		if !p.lazyCells(l, b, off) || p.badStep != nil {
			b.vals = b.vals[:p.start]
			return false
		}
		p.finish(b, line)
		return true
	}
	s := 0
	for c := 0; c <= cfg.last; c++ {
		if cfg.role[c] == colMetric {
			// Most cells are a plain number up to the comma: the scan
			// finds the cell's end, with no search for the comma first.
			e, v := scanJSONNumber(l, s, true)
			if e > s && (e == len(l) || l[e] == ',') {
				b.add(cfg.ids[c], v)
				p.nonEmpty++
				p.header = false // a number is not a name
				if e == len(l) {
					break
				}
				s = e + 1
				continue
			}
		}
		j := bytes.IndexByte(l[s:], ',')
		cell := l[s:]
		if j >= 0 {
			cell = l[s : s+j]
		}
		if e := p.cell(b, c, cell, s+1, off); e != nil {
			b.vals = b.vals[:p.start]
			return false
		}
		if j < 0 {
			break
		}
		s += j + 1
	}
	if p.badStep != nil {
		b.vals = b.vals[:p.start]
		return false
	}
	p.finish(b, line)
	return true
}

// lazyCells folds the cells of a quick row of a summarized block into
// its summaries (see parseBlock). Bitmaps of the line's commas and digits
// give each cell's end and whether it is a plain number at once, so no
// cell waits for the scan of the one before it; other cells are p.cell's.
// It reports false, as p.cell does, for a row to be read again by row.
func (p *csvParser) lazyCells(l []byte, b *batch, off int64) bool {
	cfg := p.cfg
	if len(b.sums) < cfg.sums {
		b.sums = append(b.sums, make([]tagSum, cfg.sums-len(b.sums))...)
	}
	p.nd, p.cm = lineMasks(l, p.nd, p.cm)
	nd, cm := p.nd, p.cm
	role, ids := cfg.role[:cfg.last+1], cfg.ids[:cfg.last+1]
	sums, ri := b.sums, int32(len(b.rowm))
	lex := int32(cap(b.data) - cap(l)) // of l[0]
	q, cur := 0, cm[0]
	s, folded := 0, int32(0)
	for c, r := range role {
		for cur == 0 && q+1 < len(cm) {
			q++
			cur = cm[q]
		}
		e := len(l)
		if cur != 0 {
			e = q<<6 + bits.TrailingZeros64(cur)
			cur &= cur - 1
		}
		if r == colMetric && plainCell(l, s, e, nd) {
			t := &sums[ids[c]]
			if t.n == 0 {
				t.first = ri
				b.touched = append(b.touched, ids[c])
			}
			t.n++
			t.last, t.lex = ri, lex+int32(s)
			folded++
		} else if err := p.cell(b, c, l[s:e], s+1, off); err != nil {
			b.direct += folded
			return false
		}
		s = e + 1
	}
	if folded > 0 {
		b.direct += folded
		p.nonEmpty += int(folded)
		p.header = false // a number is not a name
	}
	return true
}

// lineMasks sets bit k of nd when l[k] is not an ASCII digit and bit k of
// cm when it is a comma, in slices it reuses; each ends with a spare zero
// word, so that the bits from any k < len(l) on can be read as two words.
func lineMasks(l []byte, nd, cm []uint64) ([]uint64, []uint64) {
	n := len(l)>>6 + 2
	if cap(nd) < n {
		nd, cm = make([]uint64, n, 2*n), make([]uint64, n, 2*n)
	}
	nd, cm = nd[:n], cm[:n]
	q := 0
	for ; len(l) >= 64; q++ {
		nd[q], cm[q] = masks64((*[64]byte)(l))
		l = l[64:]
	}
	var tail [64]byte
	copy(tail[:], l)
	nd[q], cm[q] = masks64(&tail)
	nd[q+1], cm[q+1] = 0, 0
	return nd, cm
}

// masks64 is lineMasks for 64 bytes.
func masks64(c *[64]byte) (nd, cm uint64) {
	for k := 0; k < 64; k += 8 {
		w := binary.LittleEndian.Uint64(c[k : k+8])
		nd |= uint64(nonDigits(w)) << k
		cm |= uint64(commas(w)) << k
	}
	return nd, cm
}

// plainCell reports whether the cell l[s:e] is a number that
// scanFiniteNumber reads to its end, of the plainest spelling: an
// optional '-', digits without a leading zero, and an optional point
// with digits after it. nd has a bit set for each byte of l that is not
// a digit (see lineMasks). Other spellings get false and are read as
// before.
func plainCell(l []byte, s, e int, nd []uint64) bool {
	n := e - s
	if n <= 0 || n >= 64 || e > len(l) {
		return false
	}
	q, r := s>>6, uint(s&63)
	m := (nd[q]>>r | nd[q+1]<<(64-r)) & (1<<uint(n) - 1)
	// A leading '-' (whose bit is set) becomes d = 1: the digits start there.
	neg := (uint32(l[s]^'-') - 1) >> 31
	m &^= uint64(neg)
	d := s + int(neg)
	if m == 0 { // digits alone
		return e > d && (l[d] != '0' || e == d+1)
	}
	// One point, with digits on both sides and no leading zero.
	k := s + bits.TrailingZeros64(m)
	return m&(m-1) == 0 && l[k] == '.' && k > d && k < e-1 && (l[d] != '0' || k == d+1)
}

// row queues one row's values. It returns an error, having queued
// nothing, for a row the reader rejects.
func (p *csvParser) row(b *batch, line int, off int64) *Error {
	cfg := p.cfg
	ncols := len(cfg.header)
	if len(p.cells) > ncols {
		for i := ncols; i < len(p.cells); i++ {
			if !isBlank(p.cells[i]) {
				return &Error{Col: p.cols[i], Offset: -1,
					Msg: fmt.Sprintf("%d cells, but the header has %d columns", len(p.cells), ncols)}
			}
		}
	}
	p.begin(b)
	for c, cell := range p.cells[:min(len(p.cells), ncols)] {
		if e := p.cell(b, c, cell, p.cols[c], off); e != nil {
			b.vals = b.vals[:p.start]
			return e
		}
	}
	if p.header && p.nonEmpty > 0 {
		b.vals = b.vals[:p.start]
		names := make([]string, 0, 4)
		for _, c := range p.cells {
			if len(names) == 3 {
				names = append(names, "…")
				break
			}
			names = append(names, printable(string(trimSpace(c))))
		}
		return &Error{Offset: -1, Msg: fmt.Sprintf("a second header (%s) appears mid-file; rlxp rejects the file rather than guess which rows belong to which header",
			strings.Join(names, ","))}
	}
	if len(p.cells) < ncols {
		// A short row is a writer's mistake, or a file cut mid-row by
		// something other than an unfinished append (that tail is never
		// read).
		b.vals = b.vals[:p.start]
		return &Error{Col: p.cols[len(p.cols)-1], Offset: -1, Msg: fmt.Sprintf("%d cells, but the header has %d columns", len(p.cells), ncols)}
	}
	if p.badStep != nil {
		b.vals = b.vals[:p.start]
		return p.badStep
	}
	p.finish(b, line)
	return nil
}

func (p *csvParser) begin(b *batch) {
	p.start = len(b.vals)
	p.step, p.hasStep, p.wall = 0, false, 0
	p.header, p.nonEmpty, p.badStep = true, 0, nil
	p.notes = noteCounts{}
}

// cell applies the cell of column c, which starts at byte column col of a
// line at file offset off. Errors that end the read come back at once; a
// bad step is kept until the row is known not to be a second header.
func (p *csvParser) cell(b *batch, c int, cell []byte, col int, off int64) *Error {
	cfg := p.cfg
	cell = trimSpace(cell)
	if len(cell) == 0 {
		return nil
	}
	p.nonEmpty++
	if cell[0] == '[' {
		return &Error{Col: col, Offset: -1,
			Msg: fmt.Sprintf("the cell %s in column %q is a list (a numpy array?), not a number; rlxp rejects the file rather than skip such rows", quoteCell(cell), cfg.header[c])}
	}
	if p.header && !wordy(cell) {
		p.header = false
	}
	switch cfg.role[c] {
	case colMetric:
		if b.lazy && p.quick && scanFiniteNumber(cell, 0) == len(cell) {
			b.addLazy(cfg.ids[c], cell)
		} else if v, ok := parseCell(cell); ok {
			b.add(cfg.ids[c], v)
		} else if i := binaryAt(cell, false); i >= 0 {
			at := off + int64(col-1+i)
			return &Error{Offset: at, Msg: fmt.Sprintf("binary data at byte %d; not a csv file", at)}
		} else {
			p.notes[noteString].add(cfg.header[c], 0)
		}
	case colStep:
		s, ok := parseStep(string(cell))
		if !ok && p.badStep == nil {
			p.badStep = &Error{Col: col, Offset: -1,
				Msg: fmt.Sprintf("the step %s in column %q is not an integer", quoteCell(cell), cfg.header[c])}
		}
		p.step, p.hasStep = s, true
	case colWall:
		if v, ok := parseCell(cell); ok {
			p.wall = v
		}
	}
	return nil
}

func (p *csvParser) finish(b *batch, line int) {
	if !p.hasStep && p.cfg.stepCol >= 0 {
		p.notes[noteMissingStep].add("", 0)
	}
	b.endRow(p.start, p.step, p.hasStep, p.cfg.stepCol < 0, p.wall)
	for k := range p.notes {
		if p.notes[k].n > 0 {
			if b.notes[k].n == 0 {
				b.notes[k].tag, b.notes[k].line = p.notes[k].tag, line
			}
			b.notes[k].n += p.notes[k].n
		}
	}
}

func trimSpace(c []byte) []byte {
	for len(c) > 0 && (c[0] == ' ' || c[0] == '\t') {
		c = c[1:]
	}
	for len(c) > 0 && (c[len(c)-1] == ' ' || c[len(c)-1] == '\t') {
		c = c[:len(c)-1]
	}
	return c
}

func quoteCell(c []byte) string {
	s := string(c)
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strconv.Quote(s)
}

// printable quotes s when it holds characters that would break an error
// message, such as a stray carriage return.
func printable(s string) string {
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// plainRowCounted takes a row of a summarized block whose every cell is a
// plain number (see plainRow) and whose step cell is a step: it counts the
// row for flushPlain instead of folding its cells one by one. It reports
// false, having changed nothing, for any other row. After a run of rows it
// turned down it tries only now and then, so files of other spellings pay
// little for it.
func (p *csvParser) plainRowCounted(l []byte, b *batch, line int) bool {
	if p.plainMiss >= 16 && line&255 != 0 {
		return false
	}
	cfg := p.cfg
	var ok bool
	if p.plainCm, ok = plainRow(l, len(cfg.header)-1, p.plainCm); !ok {
		p.plainMiss++
		return false
	}
	var step int64
	if cfg.stepCol >= 0 {
		if step, ok = cellStep(cellAt(l, p.plainCm, cfg.stepCol)); !ok {
			p.plainMiss++
			return false
		}
	}
	p.plainMiss = 0
	if p.metrics == nil {
		p.metrics = make([]int, 0, len(cfg.role))
		for c, r := range cfg.role {
			if r == colMetric {
				p.metrics = append(p.metrics, c)
			}
		}
	}
	p.begin(b)
	p.step, p.hasStep = step, cfg.stepCol >= 0
	if cfg.wallCol >= 0 {
		p.wall, _ = parseCell(cellAt(l, p.plainCm, cfg.wallCol))
	}
	if n := len(p.metrics); n > 0 {
		ri := int32(len(b.rowm))
		if p.plainN == 0 {
			p.plainFirst = ri
		}
		p.plainN++
		p.plainLast = ri
		p.plainLex, p.plainLen = int32(cap(b.data)-cap(l)), int32(len(l))
		b.direct += int32(n)
	}
	p.finish(b, line)
	return true
}

// cellStep is parseStep for a plain cell: most steps are short integers.
func cellStep(c []byte) (int64, bool) {
	if len(c) > 0 && len(c) < 19 {
		var n int64
		for _, d := range c {
			if d-'0' >= 10 {
				return parseStep(string(c))
			}
			n = n*10 + int64(d-'0')
		}
		return n, true
	}
	return parseStep(string(c))
}

// cellAt returns cell k of a row whose comma bitmap plainRow made.
func cellAt(l []byte, cm []uint64, k int) []byte {
	s, e := 0, len(l)
	seen := 0
	for q, w := range cm {
		n := bits.OnesCount64(w)
		if seen+n < k {
			seen += n
			continue
		}
		for ; w != 0; w &= w - 1 {
			at := q<<6 + bits.TrailingZeros64(w)
			seen++
			if seen == k {
				s = at + 1
			} else if seen == k+1 {
				return l[s:at]
			}
		}
	}
	return l[s:e]
}

// flushPlain adds the plain rows counted in the block to its summaries:
// each metric column has a point in every one of them, the last of which
// holds its last value.
func (p *csvParser) flushPlain(b *batch) {
	if p.plainN == 0 {
		return
	}
	cfg := p.cfg
	if len(b.sums) < cfg.sums {
		b.sums = append(b.sums, make([]tagSum, cfg.sums-len(b.sums))...)
	}
	l := b.data[p.plainLex : p.plainLex+p.plainLen]
	c, s := 0, 0
	for _, m := range p.metrics {
		for ; c < m; c++ {
			s += bytes.IndexByte(l[s:], ',') + 1
		}
		t := &b.sums[cfg.ids[m]]
		if t.n == 0 {
			t.first = p.plainFirst
			b.touched = append(b.touched, cfg.ids[m])
		} else {
			t.first = min(t.first, p.plainFirst)
		}
		if t.n == 0 || p.plainLast > t.last {
			e := bytes.IndexByte(l[s:], ',')
			if e < 0 {
				e = len(l) - s
			}
			// plainRow allows leading zeros, which parseCell reads as
			// strconv does (and as the row's own reading would).
			v, _ := parseCell(l[s : s+e])
			t.last, t.lex, t.value = p.plainLast, -1, v
		}
		t.n += p.plainN
	}
	p.plainN = 0
}

// plainRow reports whether the line l holds commas+1 cells, each a
// plain number: an optional '-', digits, and an optional point with
// digits after it, none of them 128 bytes long or longer (so that every
// one is finite). It fills cm, which it returns, with a bit per comma of
// l.
//
// It reads 64 bytes at a time: their classes as bitmaps first, then the
// rules as operations on whole bitmaps, carrying what the rules need to
// know of the bytes before into the next 64.
func plainRow(l []byte, commas int, cm []uint64) ([]uint64, bool) {
	n := len(l)
	if n == 0 || l[n-1]-'0' >= 10 {
		return cm, false // every plain row ends in a digit
	}
	cm = cm[:0]
	var (
		bad, other, carry      uint64
		cinC, cinM, cinD, cinP uint64 = 1, 0, 0, 0 // the line's start begins a cell
		count                  int
		tail                   [64]byte
	)
	for i := 0; i < n; i += 64 {
		valid := ^uint64(0)
		var blk *[64]byte
		if n-i >= 64 {
			blk = (*[64]byte)(l[i : i+64])
		} else {
			// '0' is no bad byte; valid drops the padding from the bitmaps.
			copy(tail[:], l[i:])
			for k := n - i; k < 64; k++ {
				tail[k] = '0'
			}
			blk, valid = &tail, 1<<uint(n-i)-1
		}
		d, c, m, o := classes64(blk)
		other |= o
		d, c, m = d&valid, c&valid, m&valid
		pt := valid &^ (d | c | m) // points, when no byte is bad
		start := c<<1 | cinC
		bad |= m &^ start // a minus sign only opens a cell
		ds := start&^m | m<<1 | cinM
		bad |= ds & valid &^ d     // a cell's digits start right after its sign
		bad |= pt &^ (d<<1 | cinD) // a digit before a point
		pn := pt<<1 | cinP
		bad |= pn & valid &^ d // and one after it
		// Adding pn to d carries through the digits after each point to
		// the byte that ends them, which must end the cell: one point.
		var sum uint64
		sum, carry = bits.Add64(d, pn, carry)
		bad |= sum &^ d & valid &^ c
		if valid == ^uint64(0) && start == 0 {
			bad = 1 // a cell of 64 bytes or more
		}
		count += bits.OnesCount64(c)
		cm = append(cm, c)
		cinC, cinM, cinD, cinP = c>>63, m>>63, d>>63, pt>>63
	}
	return cm, bad|other == 0 && count == commas
}

// classes64Generic returns a bit per byte of b for digits, commas and
// minus signs, and in other a nonzero value when a byte is none of those
// nor a point. classes64 is the same, in vector instructions where there
// are some.
func classes64Generic(b *[64]byte) (d, c, m, other uint64) {
	const lsb, msb, pack = 0x0101010101010101, 0x8080808080808080, 0x0102040810204080
	for k := 0; k < 64; k += 8 {
		w := binary.LittleEndian.Uint64(b[k : k+8])
		a := (w | msb) - 0x2c*lsb                 // each byte: 0x80 + b - 0x2c for b in [0x2c, 0x80)
		y := a &^ msb                             // b - 0x2c where ok is set
		ok := a &^ w &^ (y + (0x80-14)*lsb) & msb // b in ',' to '9'
		dg := (y + (0x80-4)*lsb) & ok
		nd := ok &^ dg               // ',' '-' '.' '/': y is 0 to 3
		b0, b1 := y<<7, y<<6         // the low bits of y at the top of each byte
		other |= ok ^ msb | nd&b0&b1 // '/' is the one bad byte between
		// The top bits of the bytes, packed into the top byte, enter
		// from the top: after 8 words the first is at the bottom.
		d = d>>8 | (dg>>7)*pack>>56<<56
		c = c>>8 | (nd&^(b0|b1)>>7)*pack>>56<<56
		m = m>>8 | (nd&b0&^b1>>7)*pack>>56<<56
	}
	return d, c, m, other
}
