package audit

import (
	"sort"
	"strings"

	"github.com/rlxp/rlxp/internal/pylex"
)

// A text is one file's content with a lazily built line table, so that
// finding the line of a match costs nothing until the first match.
type text struct {
	s       string
	starts  []int            // offsets of line starts
	found   map[string][]int // offsets of indexed literals; others are searched
	indexed *literalSet
}

// newText wraps a file's content; ls, when not nil, finds its literals
// up front in one pass.
func newText(s string, ls *literalSet) *text {
	t := &text{s: s}
	if ls != nil {
		t.found = ls.find(s)
		t.indexed = ls
	}
	return t
}

// offsets lists where lit occurs, from the index when it holds lit.
func (t *text) offsets(lit string) []int {
	if t.indexed != nil && t.indexed.has(lit) {
		return t.found[lit]
	}
	var out []int
	for off := 0; off < len(t.s); {
		i := strings.Index(t.s[off:], lit)
		if i < 0 {
			break
		}
		out = append(out, off+i)
		off += i + len(lit)
	}
	return out
}

// lineOf is the 1-based line holding offset off.
func (t *text) lineOf(off int) int {
	if t.starts == nil {
		t.starts = make([]int, 1, strings.Count(t.s, "\n")+1)
		for i := 0; i < len(t.s); i++ {
			if t.s[i] == '\n' {
				t.starts = append(t.starts, i+1)
			}
		}
	}
	return sort.Search(len(t.starts), func(i int) bool { return t.starts[i] > off })
}

// lineAt returns the bounds of the line holding off, without its newline.
// It costs a binary search, however long the line: minified or generated
// files put everything on one.
func (t *text) lineAt(off int) (start, end int) {
	n := t.lineOf(off)
	start = t.starts[n-1]
	if n < len(t.starts) {
		return start, t.starts[n] - 1
	}
	return start, len(t.s)
}

// line is the text of the line holding off.
func (t *text) line(off int) string {
	start, end := t.lineAt(off)
	return t.s[start:end]
}

// each calls fn with the offset of every occurrence of lit, at most once
// per line, until fn returns false.
func (t *text) each(lit string, fn func(off int) bool) {
	last := -1
	for _, at := range t.offsets(lit) {
		if at < last {
			continue
		}
		if !fn(at) {
			return
		}
		_, last = t.lineAt(at)
	}
}

// eachWord is each for a literal that starts a name: matches inside a
// longer name (RayPPOTrainer( for PPOTrainer() are skipped.
func (t *text) eachWord(lit string, fn func(off int) bool) {
	t.each(lit, func(off int) bool {
		if lit != "" && isIdent(lit[0]) && off > 0 && isIdent(t.s[off-1]) {
			return true
		}
		return fn(off)
	})
}

// eachAll calls fn with the offset of every occurrence of lit.
func (t *text) eachAll(lit string, fn func(off int)) {
	for _, at := range t.offsets(lit) {
		fn(at)
	}
}

// snippet is a line shown as evidence: trimmed and shortened.
func snippet(s string) string {
	if len(s) > 1024 {
		s = s[:1024]
	}
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 160 {
		s = string(r[:157]) + "..."
	}
	return s
}

// A strLit is a Python string literal found in source.
type strLit struct {
	val     string // its content; in an f-string each {...} is "*"
	start   int    // offset of the prefix or opening quote
	end     int    // offset just past the closing quote
	fstring bool
}

// pyString reads the Python string literal starting at s[i] (a prefix
// letter or a quote). ok is false when there is none or it is not closed
// within s.
func pyString(s string, i int) (lit strLit, ok bool) {
	t, ok := pylex.StringAt(s, i)
	if !ok || t.Flags&pylex.Unterminated != 0 {
		return strLit{}, false
	}
	val, _ := pylex.Marked(s, t, "*")
	return strLit{val: val, start: i, end: t.End, fstring: t.Flags&pylex.FString != 0}, true
}

// isQuoteStart reports whether s[i] may start a string literal: a quote,
// or a prefix right before one (and not the end of a name).
func isQuoteStart(s string, i int) bool {
	return i >= 0 && i < len(s) && (i == 0 || s[i] == '"' || s[i] == '\'' || !isIdent(s[i-1])) && pylex.IsStringStart(s, i)
}

func isIdent(c byte) bool {
	return c == '_' || isAlpha(c) || isDigit(c)
}

// balanced returns s[open:] up to and including the bracket that closes
// s[open], skipping brackets inside string literals and comments; it gives
// up after limit bytes.
func balanced(s string, open, limit int) (string, bool) {
	closer := map[byte]byte{'(': ')', '[': ']', '{': '}'}
	var stack []byte
	end := min(len(s), open+limit)
	for i := open; i < end; i++ {
		c := s[i]
		switch {
		case c == '#':
			nl := strings.IndexByte(s[i:end], '\n')
			if nl < 0 {
				return "", false
			}
			i += nl
		case c == '"' || c == '\'' || (isQuoteStart(s, i) && c != '"' && c != '\''):
			lit, ok := pyString(s[:end], i)
			if !ok {
				return "", false
			}
			i = lit.end - 1
		case c == '(' || c == '[' || c == '{':
			stack = append(stack, closer[c])
		case c == ')' || c == ']' || c == '}':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return "", false
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return s[open : i+1], true
			}
		}
	}
	return "", false
}

// splitTop splits the inside of a bracketed expression at top-level sep
// bytes (commas), skipping nested brackets and strings.
func splitTop(s string, sep byte) []string {
	var parts []string
	depth, from := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\'' || (isQuoteStart(s, i) && c != '"' && c != '\''):
			if lit, ok := pyString(s, i); ok {
				i = lit.end - 1
			}
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == '#':
			if nl := strings.IndexByte(s[i:], '\n'); nl >= 0 {
				i += nl
			} else {
				i = len(s)
			}
		case c == sep && depth == 0:
			parts = append(parts, s[from:i])
			from = i + 1
		}
	}
	return append(parts, s[from:])
}

// literalExpr turns an expression that builds a string into a pattern:
// "Loss/" + key is "Loss/*", f"Episode/{k}" is "Episode/*", "{}/x".format(a)
// is "*/x". ok is false when no part of it is a literal.
func literalExpr(expr string) (string, bool) {
	expr = strings.TrimSpace(expr)
	var b strings.Builder
	any := false
	for _, part := range splitTop(expr, '+') {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lit, ok := strLit{}, false
		if isQuoteStart(part, 0) {
			lit, ok = pyString(part, 0)
		}
		if !ok {
			if !strings.HasSuffix(b.String(), "*") {
				b.WriteByte('*')
			}
			continue
		}
		v := lit.val
		rest := strings.TrimSpace(part[lit.end:])
		switch {
		case strings.HasPrefix(rest, ".format("):
			v = replaceFormat(v)
		case strings.HasPrefix(rest, "%"):
			v = replacePercent(v)
		case rest != "":
			// Something else follows the literal (a method call or an
			// index): its value is not the literal.
			return "", false
		}
		b.WriteString(v)
		any = true
	}
	out := b.String()
	return out, any && out != "*"
}

// replaceFormat turns str.format fields into "*".
func replaceFormat(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '{' {
			if i+1 < len(s) && s[i+1] == '{' {
				b.WriteByte('{')
				i++
				continue
			}
			if j := strings.IndexByte(s[i:], '}'); j > 0 {
				b.WriteByte('*')
				i += j
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// replacePercent turns %-format verbs into "*".
func replacePercent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+1 < len(s) {
			if s[i+1] == '%' {
				b.WriteByte('%')
				i++
				continue
			}
			j := i + 1
			if s[j] == '(' {
				if k := strings.IndexByte(s[j:], ')'); k > 0 {
					j += k + 1
				}
			}
			for j < len(s) && strings.IndexByte("0123456789.-+ #", s[j]) >= 0 {
				j++
			}
			if j < len(s) && strings.IndexByte("sdifgeErxc", s[j]) >= 0 {
				b.WriteByte('*')
				i = j
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isKwarg reports a call argument written name=value.
func isKwarg(arg string) bool {
	k, v, ok := strings.Cut(arg, "=")
	return ok && isName(strings.TrimSpace(k)) && !strings.HasPrefix(v, "=")
}

// kwarg finds name=value among the top-level arguments of a call's inside.
func kwarg(args []string, name string) (string, bool) {
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if ok && strings.TrimSpace(k) == name && !strings.HasPrefix(v, "=") {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// stringValue is the value of a plain string literal expression.
func stringValue(expr string) (string, bool) {
	expr = strings.TrimSpace(expr)
	if expr == "" || !isQuoteStart(expr, 0) {
		return "", false
	}
	lit, ok := pyString(expr, 0)
	if !ok || lit.fstring || strings.TrimSpace(expr[lit.end:]) != "" {
		return "", false
	}
	return lit.val, true
}
