// Package document reads the YAML state files under .rlxp/: it decodes them
// with goccy/go-yaml, validates them against the embedded JSON Schemas, and
// keeps the syntax tree so that every error can name a file, line and field.
package document

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// An Error locates a problem in a state file. It prints on one line as
// path:line:col: field: message, omitting the parts it does not know.
type Error struct {
	Path  string `json:"file"`
	Line  int    `json:"line,omitempty"`
	Col   int    `json:"column,omitempty"`
	Field string `json:"field,omitempty"`
	Msg   string `json:"message"`
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// A File is one parsed YAML document.
type File struct {
	Path  string // as shown to the user
	Data  []byte
	Value any // generic decoded form: map[string]any, []any, scalars
	root  ast.Node
}

// Parse decodes data, which was read from path. A syntax error is an *Error.
func Parse(path string, data []byte) (_ *File, err error) {
	// go-yaml has panicked on malformed input; no input may crash rlxp.
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Path: path, Msg: fmt.Sprintf("cannot parse YAML: %v", r)}
		}
	}()
	f := &File{Path: path, Data: data}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{Path: path, Msg: "file is empty"}
	}
	tree, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, SyntaxError(path, data, err)
	}
	if len(tree.Docs) > 1 {
		return nil, &Error{Path: path, Line: line(tree.Docs[1]), Msg: "more than one YAML document"}
	}
	if len(tree.Docs) == 1 {
		f.root = tree.Docs[0].Body
	}
	if f.root == nil {
		return nil, &Error{Path: path, Line: 1, Msg: "top level must be a mapping of keys to values"}
	}
	if err := f.refuseAliases(); err != nil {
		return nil, err
	}
	if err := yaml.NodeToValue(f.root, &f.Value); err != nil {
		return nil, f.Wrap(err)
	}
	if _, ok := f.Value.(map[string]any); !ok {
		return nil, &Error{Path: path, Line: 1, Msg: "top level must be a mapping of keys to values"}
	}
	v, err := f.normalize(f.root, f.Value)
	if err != nil {
		return nil, err
	}
	f.Value = v
	return f, nil
}

// refuseAliases rejects anchors, aliases and merge keys before anything
// expands them: a chain of aliases ("billion laughs") grows exponentially
// when decoded, and state files never need them.
func (f *File) refuseAliases() error {
	var found ast.Node
	ast.Walk(aliasFinder(func(n ast.Node) bool {
		if found != nil {
			return false
		}
		switch n.Type() {
		case ast.AnchorType, ast.AliasType, ast.MergeKeyType:
			found = n
			return false
		}
		return true
	}), f.root)
	if found == nil {
		return nil
	}
	l, c := pos(found)
	what := map[ast.NodeType]string{ast.AnchorType: "anchor", ast.AliasType: "alias", ast.MergeKeyType: "merge key"}[found.Type()]
	return &Error{Path: f.Path, Line: l, Col: c, Msg: "YAML " + what + " not allowed in a state file (write the value out)"}
}

// aliasFinder walks until its function returns false.
type aliasFinder func(ast.Node) bool

func (v aliasFinder) Visit(n ast.Node) ast.Visitor {
	if n == nil || !v(n) {
		return nil
	}
	return v
}

// Decode decodes the document into v, a pointer to a struct with json tags.
// It goes through the normalised generic value, so typed code sees exactly
// what the schema validated.
func (f *File) Decode(v any) error {
	b, err := json.Marshal(f.Value)
	if err != nil {
		return &Error{Path: f.Path, Msg: err.Error()}
	}
	if err := json.Unmarshal(b, v); err != nil {
		return &Error{Path: f.Path, Msg: err.Error()}
	}
	return nil
}

// DecodeYAML decodes the syntax tree read once by Parse into v with
// go-yaml's own rules and opts (yaml tags, ordered maps), without reading
// the bytes again. Unlike Decode, it sees the values as written, before
// normalisation.
func (f *File) DecodeYAML(v any, opts ...yaml.DecodeOption) error {
	if err := yaml.NodeToValue(f.root, v, opts...); err != nil {
		return f.Wrap(err)
	}
	return nil
}

// plainFloat reports a YAML 1.2 float written without a dot, such as 1e-3
// or 3E5. go-yaml follows YAML 1.1 and reads those as strings; RL configs
// write learning rates that way all the time. (Forms with a dot already
// decode as numbers.)
func plainFloat(s string) (float64, bool) {
	if !strings.ContainsAny(s, "eE") || strings.Trim(s, "0123456789+-eE") != "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// normalize walks the syntax tree beside the decoded value: it turns plain
// (unquoted) YAML 1.2 floats into numbers and rejects NaN and infinities,
// which have no place in a state file and no JSON form.
func (f *File) normalize(n ast.Node, v any) (any, error) {
	switch n := n.(type) {
	case *ast.MappingNode:
		m, ok := v.(map[string]any)
		if !ok {
			return v, nil
		}
		for _, mv := range n.Values {
			k := mv.Key.String()
			if _, ok := m[k]; !ok {
				continue
			}
			nv, err := f.normalize(mv.Value, m[k])
			if err != nil {
				return nil, err
			}
			m[k] = nv
		}
	case *ast.MappingValueNode:
		return f.normalize(&ast.MappingNode{Values: []*ast.MappingValueNode{n}}, v)
	case *ast.SequenceNode:
		s, ok := v.([]any)
		if !ok || len(s) != len(n.Values) {
			return v, nil
		}
		for i, c := range n.Values {
			nv, err := f.normalize(c, s[i])
			if err != nil {
				return nil, err
			}
			s[i] = nv
		}
	case *ast.StringNode:
		if s, ok := v.(string); ok && n.Token.Type == token.StringType {
			if x, ok := plainFloat(s); ok {
				return x, nil
			}
		}
	case *ast.InfinityNode, *ast.NanNode:
		l, c := pos(n)
		return nil, &Error{Path: f.Path, Line: l, Col: c, Msg: "NaN and infinite numbers are not allowed"}
	}
	return v, nil
}

// Wrap turns a go-yaml error, whose own text spans several lines with a
// source excerpt, into a one-line positioned Error in plain words.
func (f *File) Wrap(err error) error { return yamlError(f.Path, err) }

// Pos returns the line and column of a field: of its key when the field
// is a mapping key, else of the value. For a field that does not exist it
// is the position of the deepest parent that does, so that a missing key
// points at where it belongs.
func (f *File) Pos(field []string) (line, col int) {
	n := f.root
	if n == nil {
		return 0, 0
	}
	line, col = pos(n)
	for _, seg := range field {
		key, val := child(n, seg)
		if val == nil {
			return line, col
		}
		n = val
		if key != nil {
			line, col = pos(key)
		} else {
			line, col = pos(val)
		}
	}
	return line, col
}

// KeyLine returns the line of a top-level key, or 0 if it is absent.
func (f *File) KeyLine(key string) int {
	m, ok := f.root.(*ast.MappingNode)
	if !ok {
		return 0
	}
	for _, mv := range m.Values {
		if mv.Key.String() == key {
			return line(mv.Key)
		}
	}
	return 0
}

// TopKeyLines lists the lines where top-level keys start, in order.
func (f *File) TopKeyLines() []int {
	m, ok := f.root.(*ast.MappingNode)
	if !ok {
		return nil
	}
	var ls []int
	for _, mv := range m.Values {
		ls = append(ls, line(mv.Key))
	}
	return ls
}

// child returns the key (nil in a sequence) and value of one step down.
func child(n ast.Node, seg string) (key, val ast.Node) {
	switch n := n.(type) {
	case *ast.MappingNode:
		for _, mv := range n.Values {
			if mv.Key.String() == seg {
				return mv.Key, mv.Value
			}
		}
	case *ast.MappingValueNode:
		if n.Key.String() == seg {
			return n.Key, n.Value
		}
	case *ast.SequenceNode:
		i, err := strconv.Atoi(seg)
		if err == nil && i >= 0 && i < len(n.Values) {
			return nil, n.Values[i]
		}
	}
	return nil, nil
}

func pos(n ast.Node) (int, int) {
	if mv, ok := n.(*ast.MappingValueNode); ok {
		n = mv.Key
	}
	if m, ok := n.(*ast.MappingNode); ok && len(m.Values) > 0 && !m.IsFlowStyle {
		n = m.Values[0].Key
	}
	tk := n.GetToken()
	if tk == nil || tk.Position == nil {
		return 0, 0
	}
	return tk.Position.Line, tk.Position.Column
}

func line(n ast.Node) int {
	l, _ := pos(n)
	return l
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
