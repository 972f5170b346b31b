package audit

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/schema/validate"
)

// newMerger reads the YAML structure of adapter.yaml's text, keeping its
// lines so that a merge changes only what it fills.
func newMerger(path string, data []byte) (*merger, error) {
	file, err := parser.ParseBytes(data, 0)
	if err != nil || len(file.Docs) != 1 {
		return nil, fmt.Errorf("%s: cannot read the YAML structure", path)
	}
	m := &merger{lines: strings.SplitAfter(string(data), "\n"), top: entries(file.Docs[0].Body)}
	if n := len(m.lines); n > 0 && m.lines[n-1] == "" {
		m.lines = m.lines[:n-1]
	}
	return m, nil
}

// Fill merges a draft into the text of adapter.yaml. It fills only the
// fields that are missing, empty, or still the template's ("", {}, [],
// a commented-out example) and leaves every other byte as a person wrote
// it: values, comments, order and style. It returns the new text and the
// fields it filled; the result is checked to parse as an adapter.
func Fill(path string, data []byte, d Draft) ([]byte, []string, error) {
	// A field the merge fills may be what makes the file invalid (a null
	// where a string belongs); any other fault is reported as the person
	// wrote it, with its own line numbers.
	_, invalid := adapter.Parse(validate.Schemas{}, path, data)
	if _, err := document.Parse(path, data); err != nil {
		return nil, nil, err
	}
	m, err := newMerger(path, data)
	if err != nil {
		return nil, nil, err
	}
	for _, sec := range []struct {
		name   string
		fields []string
		values map[string]string
	}{
		{"commands", []string{"train", "eval", "preflight"}, d.Commands},
		{"config", []string{"system", "default", "override"}, map[string]string{"system": d.Config.System, "default": d.Config.Default, "override": d.Config.Override}},
	} {
		m.scalars(sec.name, sec.fields, sec.values)
	}
	m.sources(d.Sources)
	m.imports(d.Imports)
	out := m.render()
	if _, err := adapter.Parse(validate.Schemas{}, path, []byte(out)); err != nil {
		if invalid != nil {
			return nil, nil, invalid
		}
		return nil, nil, fmt.Errorf("refusing to write %s: the merged file does not read back: %w", path, err)
	}
	return []byte(out), m.filled, nil
}

// merger edits lines of a YAML file: replacements within a line and
// insertions after one, applied from the bottom up.
type merger struct {
	lines  []string
	top    []*ast.MappingValueNode
	after  map[int][]string // line index -> lines to insert after it (-1: at the end)
	filled []string
}

func entries(n ast.Node) []*ast.MappingValueNode {
	switch n := n.(type) {
	case *ast.MappingNode:
		return n.Values
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{n}
	}
	return nil
}

func find(es []*ast.MappingValueNode, key string) *ast.MappingValueNode {
	for _, e := range es {
		if e.Key.String() == key {
			return e
		}
	}
	return nil
}

func keyLine(mv *ast.MappingValueNode) (line, col int) {
	tk := mv.Key.GetToken()
	if tk == nil || tk.Position == nil {
		return 0, 0
	}
	return tk.Position.Line - 1, tk.Position.Column - 1
}

// lastLine is the last line index a node's tokens reach.
func lastLine(n ast.Node) int {
	last := 0
	ast.Walk(visitor(func(x ast.Node) {
		if tk := x.GetToken(); tk != nil && tk.Position != nil && tk.Position.Line-1 > last {
			last = tk.Position.Line - 1
		}
	}), n)
	return last
}

type visitor func(ast.Node)

func (v visitor) Visit(n ast.Node) ast.Visitor {
	v(n)
	return v
}

func isNull(n ast.Node) bool {
	if n == nil {
		return true
	}
	_, ok := n.(*ast.NullNode)
	return ok
}

func isEmptyString(n ast.Node) bool {
	s, ok := n.(*ast.StringNode)
	return ok && s.Value == ""
}

func (m *merger) insert(after int, lines ...string) {
	if m.after == nil {
		m.after = map[int][]string{}
	}
	m.after[after] = append(m.after[after], lines...)
}

// setValue puts value after the colon of the key on line i, replacing
// "", ”, ~ or null, or filling an empty value (a comment stays).
func (m *merger) setValue(i, col int, value string) bool {
	line := m.lines[i]
	colon := strings.IndexByte(line[min(col, len(line)):], ':')
	if colon < 0 {
		return false
	}
	at := col + colon + 1
	rest := line[at:]
	trimmed := strings.TrimLeft(rest, " \t")
	pad := len(rest) - len(trimmed)
	for _, empty := range []string{`""`, `''`, "~", "null"} {
		if strings.HasPrefix(trimmed, empty) {
			m.lines[i] = line[:at+pad] + value + trimmed[len(empty):]
			return true
		}
	}
	body := strings.TrimRight(trimmed, "\r\n")
	if body == "" || strings.HasPrefix(body, "#") {
		sep := ""
		if body != "" {
			sep = " "
		}
		m.lines[i] = line[:at] + " " + value + sep + trimmed
		return true
	}
	return false
}

// childEnd is the line after which new children of a mapping entry go:
// its last line, or for an empty one the last indented comment under it.
func (m *merger) childEnd(mv *ast.MappingValueNode) int {
	end, _ := keyLine(mv)
	if !isNull(mv.Value) {
		end = max(end, lastLine(mv.Value))
	}
	for j := end + 1; j < len(m.lines); j++ {
		l := m.lines[j]
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "#") || !(strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")) {
			break
		}
		end = j
	}
	return end
}

// scalars fills string fields of a top-level section.
func (m *merger) scalars(section string, fields []string, values map[string]string) {
	var todo []string
	for _, f := range fields {
		if values[f] != "" {
			todo = append(todo, f)
		}
	}
	if len(todo) == 0 {
		return
	}
	mv := find(m.top, section)
	if mv == nil {
		block := []string{section + ":"}
		for _, f := range todo {
			block = append(block, "  "+f+": "+yamlScalar(values[f]))
			m.filled = append(m.filled, section+"."+f)
		}
		m.insert(-1, append([]string{""}, block...)...)
		return
	}
	var kids []*ast.MappingValueNode
	switch v := mv.Value.(type) {
	case nil, *ast.NullNode:
	case *ast.MappingNode:
		if v.IsFlowStyle {
			if len(v.Values) > 0 {
				return // a person's flow mapping: left alone
			}
			i, col := keyLine(mv)
			if !m.clearEmpty(i, col, "{}") {
				return
			}
		} else {
			kids = v.Values
		}
	case *ast.MappingValueNode:
		kids = []*ast.MappingValueNode{v}
	default:
		return
	}
	indent := "  "
	if len(kids) > 0 {
		_, c := keyLine(kids[0])
		indent = strings.Repeat(" ", c)
	}
	end := m.childEnd(mv)
	for _, f := range todo {
		k := find(kids, f)
		switch {
		case k == nil:
			m.insert(end, indent+f+": "+yamlScalar(values[f]))
		case isNull(k.Value) || isEmptyString(k.Value):
			i, col := keyLine(k)
			if !m.setValue(i, col, yamlScalar(values[f])) {
				continue
			}
		default:
			continue
		}
		m.filled = append(m.filled, section+"."+f)
	}
}

// clearEmpty removes an empty flow collection ({} or []) after the key on
// line i, so that block entries can follow.
func (m *merger) clearEmpty(i, col int, empty string) bool {
	line := m.lines[i]
	j := strings.Index(line[min(col, len(line)):], empty)
	if j < 0 {
		return false
	}
	j += col
	m.lines[i] = strings.TrimRight(line[:j], " ") + line[j+len(empty):]
	return true
}

// sources adds metric sources under metrics.sources that it does not
// hold yet, by name or by path.
func (m *merger) sources(src map[string]Source) {
	if len(src) == 0 {
		return
	}
	names := make([]string, 0, len(src))
	for n := range src {
		names = append(names, n)
	}
	sort.Strings(names)
	entry := func(indent, name string) string {
		return indent + name + ": " + sourceValue(src[name])
	}
	metrics := find(m.top, "metrics")
	if metrics == nil {
		block := []string{"", "metrics:", "  sources:"}
		for _, n := range names {
			block = append(block, entry("    ", n))
			m.filled = append(m.filled, "metrics.sources."+n)
		}
		m.insert(-1, block...)
		return
	}
	var kids []*ast.MappingValueNode
	switch v := metrics.Value.(type) {
	case nil, *ast.NullNode:
	case *ast.MappingNode:
		if v.IsFlowStyle {
			if i, col := keyLine(metrics); len(v.Values) > 0 || !m.clearEmpty(i, col, "{}") {
				return
			}
		}
		kids = v.Values
	case *ast.MappingValueNode:
		kids = []*ast.MappingValueNode{v}
	default:
		return
	}
	sources := find(kids, "sources")
	if sources == nil {
		indent := "  "
		if len(kids) > 0 {
			_, c := keyLine(kids[0])
			indent = strings.Repeat(" ", c)
		}
		block := []string{indent + "sources:"}
		for _, n := range names {
			block = append(block, entry(indent+"  ", n))
			m.filled = append(m.filled, "metrics.sources."+n)
		}
		m.insert(m.childEnd(metrics), block...)
		return
	}
	i, col := keyLine(sources)
	var have []*ast.MappingValueNode
	cleared := false
	switch v := sources.Value.(type) {
	case nil, *ast.NullNode:
	case *ast.MappingNode:
		if v.IsFlowStyle {
			if len(v.Values) > 0 || !m.clearEmpty(i, col, "{}") {
				return
			}
			cleared = true
		} else {
			have = v.Values
		}
	case *ast.MappingValueNode:
		have = []*ast.MappingValueNode{v}
	default:
		return
	}
	indent := strings.Repeat(" ", col+2)
	if len(have) > 0 {
		_, c := keyLine(have[0])
		indent = strings.Repeat(" ", c)
	}
	paths := map[string]bool{}
	for _, h := range have {
		ast.Walk(visitor(func(x ast.Node) {
			if s, ok := x.(*ast.StringNode); ok {
				paths[s.Value] = true
			}
		}), h.Value)
	}
	end := m.childEnd(sources)
	if cleared {
		end = i // right under the key, above any commented examples
	}
	for _, n := range names {
		if find(have, n) != nil || paths[src[n].Path] {
			continue
		}
		m.insert(end, entry(indent, n))
		m.filled = append(m.filled, "metrics.sources."+n)
	}
}

// sourceValue is a metric source as a flow mapping.
func sourceValue(s Source) string {
	v := "{path: " + yamlScalar(s.Path)
	if s.Format != "" {
		v += ", format: " + yamlScalar(s.Format)
	}
	if len(s.Tags) > 0 {
		quoted := make([]string, len(s.Tags))
		for i, t := range s.Tags {
			quoted[i] = yamlScalar(t)
		}
		v += ", tags: [" + strings.Join(quoted, ", ") + "]"
	}
	if s.Guessed {
		v += ", guessed: true"
	}
	if s.Observed != "" {
		v += ", observed: " + yamlScalar(s.Observed)
	}
	return v + "}"
}

// imports fills runtime.imports when it is missing or empty.
func (m *merger) imports(mods []string) {
	if len(mods) == 0 {
		return
	}
	list := "[" + strings.Join(mods, ", ") + "]"
	runtime := find(m.top, "runtime")
	if runtime == nil {
		m.insert(-1, "", "runtime:", "  imports: "+list)
		m.filled = append(m.filled, "runtime.imports")
		return
	}
	var kids []*ast.MappingValueNode
	switch v := runtime.Value.(type) {
	case nil, *ast.NullNode:
	case *ast.MappingNode:
		if v.IsFlowStyle {
			return
		}
		kids = v.Values
	case *ast.MappingValueNode:
		kids = []*ast.MappingValueNode{v}
	default:
		return
	}
	k := find(kids, "imports")
	switch {
	case k == nil:
		indent := "  "
		if len(kids) > 0 {
			_, c := keyLine(kids[0])
			indent = strings.Repeat(" ", c)
		}
		m.insert(m.childEnd(runtime), indent+"imports: "+list)
	case isNull(k.Value):
		i, col := keyLine(k)
		if !m.setValue(i, col, list) {
			return
		}
	default:
		seq, ok := k.Value.(*ast.SequenceNode)
		if !ok || len(seq.Values) > 0 {
			return
		}
		i, col := keyLine(k)
		if !m.clearEmpty(i, col, "[]") || !m.setValue(i, col, list) {
			return
		}
	}
	m.filled = append(m.filled, "runtime.imports")
}

func (m *merger) render() string {
	var b strings.Builder
	for i, l := range m.lines {
		b.WriteString(l)
		if add := m.after[i]; len(add) > 0 {
			if !strings.HasSuffix(l, "\n") {
				b.WriteByte('\n')
			}
			for _, a := range add {
				b.WriteString(a + "\n")
			}
		}
	}
	if add := m.after[-1]; len(add) > 0 {
		if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
		for _, a := range add {
			b.WriteString(a + "\n")
		}
	}
	return b.String()
}

// yamlScalar writes a string as a YAML scalar: plain when that reads back
// as the same string, else double-quoted.
func yamlScalar(s string) string {
	plain := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '_' || r == '-' || r == '.' || r == '/' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 && !strings.HasPrefix(s, "-") && strings.Trim(s, "0123456789.-") != ""
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "y", "n":
		plain = false
	}
	if plain {
		return s
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
