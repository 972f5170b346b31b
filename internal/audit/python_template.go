package audit

import (
	"strings"
)

// A tpart is a piece of a tag template: literal text, or a hole an
// expression fills. Holes of a sink's template are "#" (the key), a
// parameter of its function, or self.NAME.
type tpart struct {
	lit  string
	hole string
}

type tmpl []tpart

func (t tmpl) String() string {
	var b strings.Builder
	for _, p := range t {
		if p.hole != "" {
			b.WriteString("{" + p.hole + "}")
		} else {
			b.WriteString(p.lit)
		}
	}
	return b.String()
}

// subst replaces each hole by what fill gives; ok is false when fill
// cannot fill one.
func (t tmpl) subst(fill func(hole string) (tmpl, bool)) (tmpl, bool) {
	var out tmpl
	for _, p := range t {
		if p.hole == "" {
			out = append(out, p)
			continue
		}
		r, ok := fill(p.hole)
		if !ok {
			return nil, false
		}
		out = append(out, r...)
	}
	return out, true
}

// literal is the template's text when it has no holes.
func (t tmpl) literal() (string, bool) {
	var b strings.Builder
	for _, p := range t {
		if p.hole != "" {
			return "", false
		}
		b.WriteString(p.lit)
	}
	return b.String(), true
}

// templateOf parses an expression that builds a string: a literal, a
// name, self.name, an f-string, "..." % (a, b), "...".format(a, b) and
// concatenations of these with +.
func templateOf(expr string) (tmpl, bool) {
	expr = strings.TrimSpace(expr)
	if expr == "" {
		return nil, false
	}
	if parts := splitTop(expr, '+'); len(parts) > 1 {
		var out tmpl
		for _, p := range parts {
			t, ok := templateOf(p)
			if !ok {
				return nil, false
			}
			out = append(out, t...)
		}
		return out, true
	}
	if strings.HasPrefix(expr, "str(") && strings.HasSuffix(expr, ")") {
		return templateOf(expr[4 : len(expr)-1])
	}
	if isName(expr) || strings.HasPrefix(expr, "self.") && isName(expr[5:]) {
		return tmpl{{hole: expr}}, true
	}
	if !isQuoteStart(expr, 0) {
		return nil, false
	}
	lit, ok := pyString(expr, 0)
	if !ok {
		return nil, false
	}
	rest := strings.TrimSpace(expr[lit.end:])
	body := expr[lit.start:lit.end]
	q := strings.IndexAny(body, `"'`)
	quote := 1
	if strings.HasPrefix(body[q:], `"""`) || strings.HasPrefix(body[q:], `'''`) {
		quote = 3
	}
	raw := body[q+quote : len(body)-quote]
	switch {
	case lit.fstring && rest == "":
		return fstringTemplate(raw)
	case rest == "":
		return tmpl{{lit: lit.val}}, true
	case strings.HasPrefix(rest, "%"):
		args := strings.TrimSpace(rest[1:])
		if strings.HasPrefix(args, "(") && strings.HasSuffix(args, ")") {
			args = args[1 : len(args)-1]
		}
		return fillVerbs(lit.val, splitTop(args, ','), percentVerb)
	case strings.HasPrefix(rest, ".format(") && strings.HasSuffix(rest, ")"):
		return fillVerbs(lit.val, splitTop(rest[len(".format("):len(rest)-1], ','), braceVerb)
	}
	return nil, false
}

// fstringTemplate parses an f-string's body, each {expr} a hole.
func fstringTemplate(s string) (tmpl, bool) {
	var out tmpl
	for len(s) > 0 {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			out = append(out, tpart{lit: strings.ReplaceAll(s, "}}", "}")})
			break
		}
		if i+1 < len(s) && s[i+1] == '{' {
			out = append(out, tpart{lit: strings.ReplaceAll(s[:i+1], "}}", "}")})
			s = s[i+2:]
			continue
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return nil, false
		}
		if i > 0 {
			out = append(out, tpart{lit: strings.ReplaceAll(s[:i], "}}", "}")})
		}
		h := s[i+1 : i+j]
		if k := strings.IndexAny(h, "!:"); k >= 0 {
			h = h[:k]
		}
		t, ok := templateOf(h)
		if !ok {
			return nil, false
		}
		out = append(out, t...)
		s = s[i+j+1:]
	}
	return out, true
}

// A verb finds the next format field in s: where it starts and ends.
type verb func(s string) (start, end int)

func percentVerb(s string) (int, int) {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '%' {
			if s[i+1] == '%' {
				i++
				continue
			}
			j := i + 1
			for j < len(s) && strings.IndexByte("0123456789.-+ #", s[j]) >= 0 {
				j++
			}
			if j < len(s) && strings.IndexByte("sdifgr", s[j]) >= 0 {
				return i, j + 1
			}
		}
	}
	return -1, -1
}

func braceVerb(s string) (int, int) {
	i := strings.Index(s, "{}")
	if i < 0 {
		return -1, -1
	}
	return i, i + 2
}

// fillVerbs makes a template of a format string whose fields the
// arguments fill in order.
func fillVerbs(format string, args []string, next verb) (tmpl, bool) {
	var out tmpl
	for _, a := range args {
		i, j := next(format)
		if i < 0 {
			return nil, false
		}
		t, ok := templateOf(a)
		if !ok {
			return nil, false
		}
		out = append(out, tpart{lit: format[:i]})
		out = append(out, t...)
		format = format[j:]
	}
	if i, _ := next(format); i >= 0 {
		return nil, false
	}
	return append(out, tpart{lit: format}), true
}
