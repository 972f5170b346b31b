package plugin

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/rlxp/rlxp/internal/document"
)

// maxFrontMatter bounds the YAML we hand to the parser; real front matter is
// a few hundred bytes.
const maxFrontMatter = 64 << 10

// frontMatter is the YAML block at the top of a SKILL.md or agent file, as
// both hosts find it: the first line must be exactly "---" and a later "---"
// line closes it.
type frontMatter struct {
	// BOM is set when the file starts with a UTF-8 byte-order mark, which
	// hides the opening "---" from both hosts.
	BOM bool
	// Present is set when the first line is "---".
	Present bool
	// Closed is set when a closing "---" line was found.
	Closed bool
	// Err is the YAML parse error, if any.
	Err *fmError
	// NotMapping names the YAML node kind when the front matter is not a mapping.
	NotMapping string
	// Fields are the top-level keys in document order.
	Fields []fmField
	// BodyLine is the 1-based line where the body starts.
	BodyLine int
	// Body is everything after the closing "---" line.
	Body string
}

// fmError is a front-matter error at a 1-based line of the file.
type fmError struct {
	Line int
	Msg  string
}

// fmField is one top-level key of the front matter.
type fmField struct {
	Key  string
	Line int
	// Value is the decoded value (string, number, bool, []any, map, nil).
	Value any
	// Kind is the YAML node kind: string, block, null, number, bool,
	// sequence, mapping, alias or other.
	Kind string
	// Multiline is set when the value continues past the key's line.
	Multiline bool
	// CutAtComment is set when an unquoted value on the key's line contains
	// " #", which YAML reads as the start of a comment.
	CutAtComment bool
}

// field returns the first field named key.
func (fm *frontMatter) field(key string) (fmField, bool) {
	for _, f := range fm.Fields {
		if f.Key == key {
			return f, true
		}
	}
	return fmField{}, false
}

// ok reports whether the front matter was found and parsed as a mapping.
func (fm *frontMatter) ok() bool {
	return fm.Present && fm.Closed && fm.Err == nil && fm.NotMapping == ""
}

// parseFrontMatter splits data into front matter and body and parses the
// front matter. It never panics and is deterministic.
func parseFrontMatter(data []byte) frontMatter {
	var fm frontMatter
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		fm.BOM = true
		fm.Body = string(data)
		fm.BodyLine = 1
		return fm
	}
	lines := strings.Split(string(data), "\n")
	if strings.TrimRight(lines[0], " \t\r") != "---" {
		fm.Body = string(data)
		fm.BodyLine = 1
		return fm
	}
	fm.Present = true
	closing := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t\r") == "---" {
			closing = i
			break
		}
	}
	if closing < 0 {
		return fm
	}
	fm.Closed = true
	fm.BodyLine = closing + 2
	fm.Body = strings.Join(lines[closing+1:], "\n")

	yamlLines := lines[1:closing]
	for i, l := range yamlLines {
		yamlLines[i] = strings.TrimRight(l, "\r")
	}
	src := strings.Join(yamlLines, "\n")
	if len(src) > maxFrontMatter {
		fm.Err = &fmError{Line: 2, Msg: fmt.Sprintf("front matter is %d bytes; keep it under %d", len(src), maxFrontMatter)}
		return fm
	}
	body, perr := parseYAML(src)
	if perr != nil {
		fm.Err = perr
		return fm
	}
	var values []*ast.MappingValueNode
	switch n := body.(type) {
	case nil:
		// Empty front matter: a mapping without keys.
	case *ast.MappingNode:
		values = n.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{n}
	default:
		fm.NotMapping = nodeKind(body)
		return fm
	}
	for _, mv := range values {
		if mv == nil || mv.Key == nil || mv.Key.GetToken() == nil {
			continue
		}
		tk := mv.Key.GetToken()
		f := fmField{Key: tk.Value, Line: tk.Position.Line + 1, Kind: nodeKind(mv.Value)}
		var v any
		if mv.Value != nil {
			if err := decodeNode(mv.Value, &v); err != nil {
				fm.Err = &fmError{Line: f.Line, Msg: fmt.Sprintf("value of %q cannot be decoded: %v", f.Key, err)}
				return fm
			}
		}
		f.Value = v
		fm.Fields = append(fm.Fields, f)
	}
	// Where does each value end? Everything up to the next key's line that
	// is not blank or a comment belongs to the previous key.
	for i := range fm.Fields {
		start := fm.Fields[i].Line - 1 // index into yamlLines is Line-2; next line is Line-1
		end := len(yamlLines)
		if i+1 < len(fm.Fields) {
			end = fm.Fields[i+1].Line - 2
		}
		for j := start; j < end && j < len(yamlLines); j++ {
			t := strings.TrimSpace(yamlLines[j])
			if t != "" && !strings.HasPrefix(t, "#") {
				fm.Fields[i].Multiline = true
				break
			}
		}
		if fm.Fields[i].Kind == "block" {
			fm.Fields[i].Multiline = true
		}
		if fm.Fields[i].Kind == "string" && !fm.Fields[i].Multiline {
			idx := fm.Fields[i].Line - 2
			if idx >= 0 && idx < len(yamlLines) {
				raw := yamlLines[idx]
				if c := strings.Index(raw, ":"); c >= 0 {
					rest := strings.TrimSpace(raw[c+1:])
					quoted := strings.HasPrefix(rest, "\"") || strings.HasPrefix(rest, "'")
					if !quoted && (strings.Contains(rest, " #") || strings.Contains(rest, "\t#")) {
						fm.Fields[i].CutAtComment = true
					}
				}
			}
		}
	}
	return fm
}

// parseYAML parses src and returns the first document's body. Errors carry
// file lines (the YAML starts on line 2, after the opening "---").
func parseYAML(src string) (body ast.Node, ferr *fmError) {
	defer func() {
		if r := recover(); r != nil {
			body = nil
			ferr = &fmError{Line: 2, Msg: fmt.Sprintf("front matter could not be parsed: %v", r)}
		}
	}()
	f, err := parser.ParseBytes([]byte(src), 0)
	if err != nil {
		e := document.SyntaxError("", []byte(src), err)
		line := 2
		if e.Line > 0 {
			line = e.Line + 1
		}
		return nil, &fmError{Line: line, Msg: e.Msg}
	}
	if f == nil || len(f.Docs) == 0 || f.Docs[0] == nil {
		return nil, nil
	}
	return f.Docs[0].Body, nil
}

// decodeNode converts a YAML node into a Go value, turning a parser panic
// into an error.
func decodeNode(n ast.Node, v *any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	if _, alias := n.(*ast.AliasNode); alias {
		return nil
	}
	return yaml.NodeToValue(n, v)
}

// nodeKind names the kind of a YAML node.
func nodeKind(n ast.Node) string {
	switch t := n.(type) {
	case nil, *ast.NullNode:
		return "null"
	case *ast.StringNode:
		return "string"
	case *ast.LiteralNode:
		return "block"
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "number"
	case *ast.BoolNode:
		return "bool"
	case *ast.SequenceNode:
		return "sequence"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "mapping"
	case *ast.AliasNode, *ast.AnchorNode:
		return "alias"
	case *ast.TagNode:
		return nodeKind(t.Value)
	default:
		if tk := n.GetToken(); tk != nil && tk.Type == token.StringType {
			return "string"
		}
		return "other"
	}
}
