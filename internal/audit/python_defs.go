package audit

import (
	"strings"
)

// A pyDef is a function or method of a Python file.
type pyDef struct {
	f           *facts
	name, class string
	params      []string // self and cls left out
	dflt        map[string]string
	body, end   int // offsets of the body in the file
	line        int
}

// lineStarts calls fn with the offset of every line that starts, after
// its indentation, with word (def, class, with), and that indentation.
func lineStarts(s, word string, fn func(at, indent int)) {
	for off := 0; off < len(s); {
		i := strings.Index(s[off:], word)
		if i < 0 {
			return
		}
		at := off + i
		off = at + len(word)
		ls := strings.LastIndexByte(s[:at], '\n') + 1
		if strings.Trim(s[ls:at], " \t") != "" || at+len(word) >= len(s) || (s[at+len(word)] != ' ' && s[at+len(word)] != '\t') {
			continue
		}
		fn(at, at-ls)
	}
}

// pyDefs lists a file's functions and methods.
func pyDefs(f *facts) []*pyDef {
	s := f.src
	type class struct {
		name            string
		at, indent, end int
	}
	var classes []class
	lineStarts(s, "class", func(at, indent int) {
		rest := strings.TrimLeft(s[at+len("class"):], " \t")
		n := 0
		for n < len(rest) && isIdent(rest[n]) {
			n++
		}
		if n > 0 {
			classes = append(classes, class{rest[:n], at, indent, blockEnd(s, nextLine(s, at), indent)})
		}
	})
	var defs []*pyDef
	lineStarts(s, "def", func(at, indent int) {
		rest := s[at+len("def"):]
		name := strings.TrimLeft(rest, " \t")
		n := 0
		for n < len(name) && isIdent(name[n]) {
			n++
		}
		open := at + len("def") + len(rest) - len(name) + n
		if n == 0 || open >= len(s) || s[open] != '(' {
			return
		}
		inside, ok := balanced(s, open, 4096)
		if !ok {
			return
		}
		d := &pyDef{f: f, name: name[:n], dflt: map[string]string{}, line: 1 + strings.Count(s[:at], "\n")}
		for i, p := range splitTop(inside[1:len(inside)-1], ',') {
			pn, def, hasDef := strings.Cut(p, "=")
			pn, _, _ = strings.Cut(pn, ":")
			pn = strings.TrimSpace(pn)
			if i == 0 && (pn == "self" || pn == "cls") || !isName(pn) {
				continue
			}
			d.params = append(d.params, pn)
			if hasDef {
				d.dflt[pn] = strings.TrimSpace(def)
			}
		}
		d.body = nextLine(s, open+len(inside))
		d.end = blockEnd(s, d.body, indent)
		for _, c := range classes {
			if c.at < at && c.indent < indent && c.end > at {
				d.class = c.name
			}
		}
		defs = append(defs, d)
	})
	return defs
}

// nextLine is the offset of the line after the one holding off.
func nextLine(s string, off int) int {
	if i := strings.IndexByte(s[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(s)
}

// blockEnd is where the block that starts at from ends: the first line
// after it indented no deeper than indent.
func blockEnd(s string, from, indent int) int {
	i := from
	for i < len(s) {
		nl := strings.IndexByte(s[i:], '\n')
		line := s[i:]
		if nl >= 0 {
			line = s[i : i+nl]
		}
		t := strings.TrimLeft(strings.TrimRight(line, "\r"), " \t")
		if t != "" && t[0] != '#' && t[0] != ')' && t[0] != ']' && t[0] != '}' && len(strings.TrimRight(line, "\r"))-len(t) <= indent {
			return i
		}
		if nl < 0 {
			return len(s)
		}
		i += nl + 1
	}
	return len(s)
}

// A pyCall is a call found in source: its callee text and arguments.
type pyCall struct {
	off    int
	callee string
	args   []string
}

// callsIn lists the calls between from and to whose callee's last name
// passes want.
func callsIn(s string, from, to int, want func(name string) bool) []pyCall {
	var out []pyCall
	for i := from; i < to; i++ {
		j := strings.IndexByte(s[i:to], '(')
		if j < 0 {
			break
		}
		open := i + j
		i = open
		k := open
		for k > from && (isIdent(s[k-1]) || s[k-1] == '.') {
			k--
		}
		callee := s[k:open]
		if callee == "" || !want(callee[strings.LastIndexByte(callee, '.')+1:]) {
			continue
		}
		if ls := strings.LastIndexByte(s[:k], '\n'); strings.HasPrefix(strings.TrimSpace(s[ls+1:k]), "def") {
			continue
		}
		inside, ok := balanced(s, open, 8192)
		if !ok {
			continue
		}
		var args []string
		for _, a := range splitTop(inside[1:len(inside)-1], ',') {
			if a = strings.TrimSpace(a); a != "" {
				args = append(args, a)
			}
		}
		out = append(out, pyCall{off: k, callee: callee, args: args})
	}
	return out
}

// argFor is the expression a call gives def's parameter, or its default.
func argFor(c pyCall, d *pyDef, param string) (string, bool) {
	if v, ok := kwarg(c.args, param); ok {
		return v, true
	}
	for i, p := range d.params {
		if p == param {
			if i < len(c.args) && !isKwarg(c.args[i]) && !strings.HasPrefix(c.args[i], "*") {
				return c.args[i], true
			}
			break
		}
	}
	v, ok := d.dflt[param]
	return v, ok
}
