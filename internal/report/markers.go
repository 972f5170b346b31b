package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// Marker lines delimit the generated blocks of report.md. A begin marker may
// name the one part its block holds; an unnamed block holds the whole
// report. An end marker may repeat the name of the block it closes.
const (
	markerPrefix = "<!-- rlxp:generated:"
	BeginMarker  = markerPrefix + "begin -->"
	EndMarker    = markerPrefix + "end -->"
)

// A MarkerError is a broken marker structure, at a line of the file.
type MarkerError struct {
	Path string
	Line int // 1-based; 0 when the problem is the file as a whole
	Msg  string
}

func (e *MarkerError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
}

// A Block is one generated block of a report file.
type Block struct {
	Name    string // "" for the whole report, else one of Parts()
	Line    int    // line of its begin marker
	Content []byte // the lines between its markers, as read
}

// A Doc is a report file split into the text people own and the generated
// blocks. Outside[i] comes before Blocks[i], and the last Outside after the
// last block; the marker lines belong to the outside text, so that joining
// everything back gives the file byte for byte.
type Doc struct {
	Outside [][]byte
	Blocks  []Block
}

// ParseMarkers splits a report file at its markers. Markers are whole lines
// (surrounding blanks allowed); a line that starts like a marker but is not
// one, a begin without an end, an end without a begin, a block inside a
// block, a name used twice and a file without any block are all errors
// naming path and line.
func ParseMarkers(path string, data []byte) (*Doc, error) {
	doc := &Doc{}
	fail := func(line int, format string, args ...any) (*Doc, error) {
		return nil, &MarkerError{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	var (
		open      = false
		openLine  int
		openName  string
		textStart int // offset where the current outside text starts
		bodyStart int // offset where the open block's content starts
		seen      = map[string]int{}
	)
	off, line := 0, 0
	for off < len(data) {
		line++
		end := len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		text := data[off:end]
		next := end
		kind, name, isMarker, err := parseMarker(text)
		if err != "" {
			return fail(line, "%s", err)
		}
		if !isMarker {
			off = next
			continue
		}
		switch kind {
		case "begin":
			if open {
				return fail(line, "begin marker inside the block that begins at line %d (its end marker is missing)", openLine)
			}
			if first, dup := seen[name]; dup {
				return fail(line, "a second %s (the first begins at line %d); each block may appear once", describe(name), first)
			}
			seen[name] = line
			open, openLine, openName = true, line, name
			doc.Outside = append(doc.Outside, data[textStart:next])
			bodyStart = next
		case "end":
			if !open {
				return fail(line, "end marker without a begin marker before it")
			}
			if name != "" && name != openName {
				return fail(line, "end marker for %q closes the %s that begins at line %d", name, describe(openName), openLine)
			}
			doc.Blocks = append(doc.Blocks, Block{Name: openName, Line: openLine, Content: data[bodyStart:off]})
			open = false
			textStart = off
		}
		off = next
	}
	if open {
		return fail(openLine, "begin marker has no end marker after it")
	}
	if len(doc.Blocks) == 0 {
		return fail(0, "no generated block: add the lines %s and %s where the report goes", BeginMarker, EndMarker)
	}
	doc.Outside = append(doc.Outside, data[textStart:])
	return doc, nil
}

// parseMarker reads one line. A line that does not start like a marker is
// text; one that does must be a well-formed marker with a known name.
func parseMarker(line []byte) (kind, name string, ok bool, problem string) {
	s := strings.TrimSpace(string(line))
	if !strings.HasPrefix(s, markerPrefix) {
		return "", "", false, ""
	}
	bad := func(why string) (string, string, bool, string) {
		return "", "", false, fmt.Sprintf("malformed marker %q: %s; want %s or %s, optionally naming a part after begin", s, why, BeginMarker, EndMarker)
	}
	if !strings.HasSuffix(s, "-->") {
		return bad("it does not end with -->")
	}
	words := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(s, "<!--"), "-->"))
	kind = strings.TrimPrefix(words[0], "rlxp:generated:")
	if kind != "begin" && kind != "end" {
		return bad(fmt.Sprintf("unknown kind %q", kind))
	}
	switch len(words) {
	case 1:
	case 2:
		name = words[1]
		if !slices.Contains(Parts(), name) {
			return "", "", false, fmt.Sprintf("unknown part %q in marker; the parts are %s", name, strings.Join(Parts(), ", "))
		}
	default:
		return bad("too many words")
	}
	return kind, name, true, ""
}

func describe(name string) string {
	if name == "" {
		return "unnamed block"
	}
	return fmt.Sprintf("block %q", name)
}

// Render joins the document back with each block's content replaced by
// content(name). Content that does not end in a newline gets one, so the
// end marker stays on a line of its own.
func (d *Doc) Render(content func(name string) []byte) []byte {
	var b bytes.Buffer
	for i, blk := range d.Blocks {
		b.Write(d.Outside[i])
		c := content(blk.Name)
		b.Write(c)
		if len(c) > 0 && c[len(c)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	b.Write(d.Outside[len(d.Outside)-1])
	return b.Bytes()
}
