package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// jsonDoc is a decoded JSON file that remembers on which line each value
// starts, so findings can point at the key that is wrong.
type jsonDoc struct {
	// Value is the decoded document: map[string]any, []any, string,
	// json.Number, bool or nil.
	Value any
	// Lines maps a path ("plugins.0.source") to the 1-based line of the key
	// (object members) or of the value (array elements). The root is "".
	Lines map[string]int
	// Duplicates lists keys that occur more than once in the same object, in
	// document order.
	Duplicates []jsonDuplicate
}

// jsonDuplicate is a key repeated inside one JSON object.
type jsonDuplicate struct {
	Path string
	Line int
}

// jsonSyntaxError is a JSON syntax error with its 1-based position.
type jsonSyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *jsonSyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// parseJSON decodes data and records the line of every value. A syntax error
// is returned as *jsonSyntaxError.
func parseJSON(data []byte) (*jsonDoc, error) {
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, &jsonSyntaxError{Line: 1, Col: 1, Msg: "file starts with a UTF-8 byte-order mark, which JSON parsers in both hosts reject"}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &jsonSyntaxError{Line: 1, Col: 1, Msg: "file is empty"}
	}
	// Unmarshalling into a RawMessage checks the syntax only, so a valid
	// document with a huge number is not mistaken for a broken one.
	var probe json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off := int(se.Offset) - 1
			if off < 0 {
				off = 0
			}
			line, col := position(data, off)
			return nil, &jsonSyntaxError{Line: line, Col: col, Msg: se.Error()}
		}
		line, col := position(data, len(data))
		return nil, &jsonSyntaxError{Line: line, Col: col, Msg: err.Error()}
	}
	w := &jsonWalker{data: data, dec: json.NewDecoder(bytes.NewReader(data)), lines: map[string]int{}}
	w.dec.UseNumber()
	v, err := w.value("", w.lineAt(w.skipSpace(0)))
	if err != nil {
		// The document was valid for json.Unmarshal, so this is not expected;
		// report it as a syntax error at the current position anyway.
		line, col := position(data, int(w.dec.InputOffset()))
		return nil, &jsonSyntaxError{Line: line, Col: col, Msg: err.Error()}
	}
	return &jsonDoc{Value: v, Lines: w.lines, Duplicates: w.dups}, nil
}

// line returns the line recorded for path, or 0.
func (d *jsonDoc) line(path string) int {
	if d == nil {
		return 0
	}
	return d.Lines[path]
}

type jsonWalker struct {
	data  []byte
	dec   *json.Decoder
	lines map[string]int
	dups  []jsonDuplicate
}

func (w *jsonWalker) skipSpace(off int) int {
	for off < len(w.data) {
		switch w.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
		default:
			return off
		}
	}
	return off
}

func (w *jsonWalker) lineAt(off int) int {
	line, _ := position(w.data, off)
	return line
}

// value reads one value whose first byte is at the decoder's position.
func (w *jsonWalker) value(path string, line int) (any, error) {
	w.lines[path] = line
	tok, err := w.dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := map[string]any{}
			for w.dec.More() {
				ktok, err := w.dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := ktok.(string)
				if !ok {
					return nil, fmt.Errorf("object key is %v, not a string", ktok)
				}
				keyLine := w.lineAt(int(w.dec.InputOffset()) - 1)
				child := joinPath(path, key)
				if _, dup := obj[key]; dup {
					w.dups = append(w.dups, jsonDuplicate{Path: child, Line: keyLine})
				}
				v, err := w.value(child, keyLine)
				if err != nil {
					return nil, err
				}
				obj[key] = v
			}
			if _, err := w.dec.Token(); err != nil {
				return nil, err
			}
			return obj, nil
		case '[':
			arr := []any{}
			for i := 0; w.dec.More(); i++ {
				start := w.skipSpace(int(w.dec.InputOffset()))
				v, err := w.value(joinPath(path, strconv.Itoa(i)), w.lineAt(start))
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := w.dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
		return nil, fmt.Errorf("unexpected delimiter %v", t)
	default:
		return tok, nil
	}
}

// joinPath appends one element to a dotted path.
func joinPath(path, elem string) string {
	if path == "" {
		return elem
	}
	return path + "." + elem
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, off int) (line, col int) {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = off - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// decodeJSONFile is the entry point used by the fuzz test and the checks: it
// returns the document, or a syntax error, and never panics.
func decodeJSONFile(data []byte) (*jsonDoc, *jsonSyntaxError) {
	doc, err := parseJSON(data)
	if err != nil {
		var se *jsonSyntaxError
		if errors.As(err, &se) {
			return nil, se
		}
		return nil, &jsonSyntaxError{Line: 1, Col: 1, Msg: err.Error()}
	}
	return doc, nil
}

// jsonType names the JSON type of a decoded value for messages.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// describeJSONPath renders "plugins.0.source" as "plugins[0].source" for messages.
func describeJSONPath(path string) string {
	if path == "" {
		return "the top level"
	}
	parts := strings.Split(path, ".")
	var b strings.Builder
	for i, p := range parts {
		if _, err := strconv.Atoi(p); err == nil && i > 0 {
			b.WriteString("[" + p + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}
