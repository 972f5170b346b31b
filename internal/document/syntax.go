package document

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/goccy/go-yaml"
)

// SyntaxError turns a YAML parser error on data, read from path, into one
// positioned line in plain words. go-yaml's own text spans several lines
// and speaks of its grammar ("mapping value is not allowed in this
// context"), often at the line before the slip; the usual slips
// (indentation, a missing ':', a tab, an unquoted ': ' in a value) are
// found by reading the lines themselves.
func SyntaxError(path string, data []byte, err error) *Error {
	e := yamlError(path, err)
	// A slip found in the lines is named instead when it is at or before
	// where the parser gave up: the parser reads on past the slip, never
	// stops before it.
	if s, ok := scanLines(data); ok && (e.Line == 0 || s.line <= e.Line+1) {
		e.Line, e.Col, e.Msg = s.line, s.col, s.msg
	}
	return e
}

// yamlError is go-yaml's error as one positioned line in plain words.
func yamlError(path string, err error) *Error {
	e := &Error{Path: path, Msg: firstLine(err.Error())}
	var ye yaml.Error
	if errors.As(err, &ye) {
		e.Msg = plainMessage(ye.GetMessage())
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			e.Line, e.Col = tk.Position.Line, tk.Position.Column
		}
	}
	return e
}

var duplicateKey = regexp.MustCompile(`^mapping key "(.*)" already defined at \[(\d+):\d+\]$`)

// plainMessage says what go-yaml's message means for someone editing the
// file.
func plainMessage(m string) string {
	if d := duplicateKey.FindStringSubmatch(m); d != nil {
		return fmt.Sprintf("key %q appears twice (first on line %s)", d[1], d[2])
	}
	switch {
	case strings.HasPrefix(m, "mapping value is not allowed"):
		return "a ':' where no key can start: quote a value that holds ': ', or check the indentation"
	case strings.HasPrefix(m, "value is not allowed in this context"), m == "non-map value is specified", m == "unexpected key name":
		return "this line does not fit the lines above it: check its indentation and the ':' after each key"
	case m == "',' or '}' must be specified":
		return "a '{' is not closed: a ',' or '}' is missing"
	case m == "',' or ']' must be specified":
		return "a '[' is not closed: a ',' or ']' is missing"
	case strings.HasPrefix(m, "could not find end character of double-quoted"):
		return "a double-quoted string is not closed"
	case strings.HasPrefix(m, "could not find end character of single-quoted"):
		return "a single-quoted string is not closed"
	case strings.Contains(m, "'\t' that cannot start any token"):
		return "a tab in the indentation: YAML indents with spaces only"
	case strings.HasSuffix(m, "is a reserved character"):
		return "a value cannot start with " + strings.TrimSuffix(m, " is a reserved character") + ": quote it"
	}
	return m
}

// A slip is a problem found by scanLines.
type slip struct {
	line, col int
	msg       string
}

// A level is an open block: the indentation of its keys or items.
type level struct {
	indent int
	seq    bool
}

// scanLines reads block-style YAML line by line, as people write state
// files, and names the first slip of indentation or punctuation. It gives
// up (false) on what it does not follow: flow collections or quoted
// strings over several lines, documents markers, directives.
func scanLines(data []byte) (slip, bool) {
	var levels []level
	opened := false   // the previous line's key has no value yet
	blockScalar := -1 // the indentation of a key whose value is | or >
	prevLine, prevText := 0, ""
	for n, raw := range strings.Split(string(data), "\n") {
		ln := n + 1
		raw = strings.TrimRight(raw, " \r")
		body := strings.TrimLeft(raw, " ")
		indent := len(raw) - len(body)
		if blockScalar >= 0 {
			if body == "" || indent > blockScalar {
				continue
			}
			blockScalar = -1
		}
		if body == "" || body[0] == '#' {
			continue
		}
		if body[0] == '\t' {
			return slip{ln, indent + 1, "a tab in the indentation: YAML indents with spaces only"}, true
		}
		if strings.HasPrefix(body, "---") || strings.HasPrefix(body, "...") || body[0] == '%' {
			return slip{}, false
		}
		var top *level
		if len(levels) > 0 {
			top = &levels[len(levels)-1]
		}
		dash := body == "-" || strings.HasPrefix(body, "- ")
		switch {
		case top == nil:
			levels = append(levels, level{indent: indent, seq: dash})
		case indent > top.indent && opened:
			levels = append(levels, level{indent: indent, seq: dash})
		case indent > top.indent:
			if dash || keyOf(body) != "" {
				return slip{ln, indent + 1, fmt.Sprintf("%q is indented more than %q on line %d, which already has a value: align it with the keys above (%s), or nest it under a key that has no value", short(body), short(prevText), prevLine, spaces(top.indent))}, true
			}
			continue // a plain value going on over lines
		case indent == top.indent && opened && dash && !top.seq:
			// A list under a key may start at the key's own indentation.
			levels = append(levels, level{indent: indent, seq: true})
		default:
			open := indents(levels)
			for len(levels) > 1 && levels[len(levels)-1].indent > indent {
				levels = levels[:len(levels)-1]
			}
			top = &levels[len(levels)-1]
			if top.indent != indent {
				return slip{ln, indent + 1, fmt.Sprintf("%q is indented %s, which lines up with no key above it (%s)", short(body), spaces(indent), open)}, true
			}
			if top.seq && !dash && len(levels) > 1 && levels[len(levels)-2].indent == indent {
				// The list written at its key's indentation has ended.
				levels = levels[:len(levels)-1]
				top = &levels[len(levels)-1]
			}
			if top.seq && !dash {
				return slip{ln, indent + 1, fmt.Sprintf("%q is a key among list items ('- '): indent it under its item, or start it with '- '", short(body))}, true
			}
			if !top.seq && dash {
				return slip{ln, indent + 1, fmt.Sprintf("%q is a list item among keys at the same indentation: indent it under the key it belongs to", short(body))}, true
			}
		}
		prevLine, prevText = ln, body
		// Items may nest ("- - x", "- key: v"): the content after each
		// dash is one more level.
		col := indent
		for body == "-" || strings.HasPrefix(body, "- ") {
			rest := strings.TrimLeft(strings.TrimPrefix(body, "-"), " ")
			col += len(body) - len(rest)
			body = rest
			if body != "" && (body == "-" || strings.HasPrefix(body, "- ") || keyOf(body) != "") {
				levels = append(levels, level{indent: col, seq: body == "-" || strings.HasPrefix(body, "- ")})
			}
		}
		opened = body == ""
		if body == "" {
			continue
		}
		key := keyOf(body)
		value := body
		if key != "" {
			value = strings.TrimLeft(body[len(key)+1:], " ")
		} else if !dash && !levels[len(levels)-1].seq && !strings.ContainsRune(`"'{[`, rune(body[0])) {
			word, _, _ := strings.Cut(body, " ")
			return slip{ln, col + 1, fmt.Sprintf("%q is not a 'key: value' pair: a ':' is missing after %q", short(body), word)}, true
		}
		if value == "" || value[0] == '#' {
			opened = key != ""
			continue
		}
		if key == "" && !dash {
			continue
		}
		vcol := col + len(body) - len(value) + 1
		switch value[0] {
		case '|', '>':
			blockScalar = col
		case '"', '\'':
			end := closingQuote(value)
			if end < 0 {
				return slip{}, false // a quoted string over lines: go-yaml's word stands
			}
			if rest := strings.TrimLeft(value[end+1:], " "); rest != "" && rest[0] != '#' {
				return slip{ln, vcol, fmt.Sprintf("text after the closing quote of %s: quote the whole value", short(value[:end+1]))}, true
			}
		case '{', '[':
			if strings.Count(value, value[:1]) != strings.Count(value, map[byte]string{'{': "}", '[': "]"}[value[0]]) {
				return slip{}, false // a flow collection over lines
			}
		default:
			if i := strings.Index(value, ": "); i >= 0 && !strings.Contains(value[:i], " #") {
				return slip{ln, vcol + i, fmt.Sprintf("the value %q holds ': ', which YAML reads as another key: quote the value", short(value))}, true
			}
		}
	}
	return slip{}, false
}

// keyOf is the key a line starts with ("name" of "name: x" or "name:"),
// "" when it starts with none. Quoted keys count; a ':' inside a URL or a
// time (http://, 10:30) does not end a key.
func keyOf(s string) string {
	if s == "" || strings.ContainsRune("-#{[|>&*!%@`", rune(s[0])) {
		return ""
	}
	if s[0] == '"' || s[0] == '\'' {
		end := closingQuote(s)
		if end < 0 || end+1 >= len(s) || s[end+1] != ':' || (end+2 < len(s) && s[end+2] != ' ') {
			return ""
		}
		return s[:end+1]
	}
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == ' ' && i+1 < len(s) && s[i+1] == '#':
			return ""
		case s[i] == ':' && (i+1 == len(s) || s[i+1] == ' '):
			return s[:i]
		}
	}
	return ""
}

// closingQuote is the index of the quote closing the string s starts
// with, -1 when it is not closed on this line.
func closingQuote(s string) int {
	q := s[0]
	for i := 1; i < len(s); i++ {
		switch {
		case q == '"' && s[i] == '\\':
			i++
		case q == '\'' && s[i] == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		case s[i] == q:
			return i
		}
	}
	return -1
}

// indents lists the indentations of the open levels, for a message.
func indents(levels []level) string {
	var ws []string
	for _, l := range levels {
		ws = append(ws, fmt.Sprint(l.indent))
	}
	if len(ws) == 1 {
		return "the keys there are at " + ws[0] + " spaces"
	}
	return "the keys there are at " + strings.Join(ws[:len(ws)-1], ", ") + " or " + ws[len(ws)-1] + " spaces"
}

func spaces(n int) string {
	if n == 1 {
		return "1 space"
	}
	return fmt.Sprintf("%d spaces", n)
}

// short is s cut to a length that fits a one-line message.
func short(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}
