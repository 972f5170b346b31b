package pin

import "strings"

// A pyTok is a token of Python source, as far as the search for the files
// a program reads needs one: names, string literals, numbers, operators
// and the ends of logical lines.
type pyTok struct {
	kind byte // 'n' name, 's' string, 'd' number, 'o' operator, ';' end of a logical line
	text string
	// partial marks an f-string with a placeholder: text is the literal
	// part before it.
	partial bool
	line    int // 1-based
}

// pyTokens splits Python source into tokens. It never fails: what it
// cannot read as Python it reads as operators, so that any input ends.
func pyTokens(src []byte) []pyTok {
	var toks []pyTok
	depth, line := 0, 1
	emit := func(kind byte, text string) { toks = append(toks, pyTok{kind: kind, text: text, line: line}) }
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i += 2
			line++
		case c == '\n':
			if depth == 0 && len(toks) > 0 && toks[len(toks)-1].kind != ';' {
				emit(';', "")
			}
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
		case c == '"' || c == '\'':
			i = pyString(src, i, "", &toks, &line)
		case isNameByte(c):
			j := i
			for j < len(src) && (isNameByte(src[j]) || (src[j] >= '0' && src[j] <= '9')) {
				j++
			}
			word := string(src[i:j])
			if j < len(src) && (src[j] == '"' || src[j] == '\'') && isStringPrefix(word) {
				i = pyString(src, j, strings.ToLower(word), &toks, &line)
				continue
			}
			emit('n', word)
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && (isNameByte(src[j]) || (src[j] >= '0' && src[j] <= '9') || src[j] == '.') {
				j++
			}
			emit('d', string(src[i:j]))
			i = j
		default:
			n := 1
			if i+1 < len(src) {
				two := string(src[i : i+2])
				switch {
				case two == "//" || two == "**" || two == "->" || two == "<<" || two == ">>":
					n = 2
				case src[i+1] == '=' && strings.IndexByte("=<>!+-*/%&|^~:@", c) >= 0:
					n = 2
				}
			}
			switch c {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth = max(depth-1, 0)
			case ';':
				if depth == 0 {
					emit(';', "")
					i++
					continue
				}
			}
			emit('o', string(src[i:i+n]))
			i += n
		}
	}
	return toks
}

// pyString reads the string literal whose quote starts at i, with its
// prefix (r, b, f, rb, …), appends it and returns the index after it.
func pyString(src []byte, i int, prefix string, toks *[]pyTok, line *int) int {
	q := src[i]
	start := *line
	triple := i+2 < len(src) && src[i+1] == q && src[i+2] == q
	open := 1
	if triple {
		open = 3
	}
	j := i + open
	var b strings.Builder
	for j < len(src) {
		c := src[j]
		if c == '\\' && j+1 < len(src) {
			if src[j+1] == '\n' {
				*line++
			}
			b.WriteByte(c)
			b.WriteByte(src[j+1])
			j += 2
			continue
		}
		if c == '\n' {
			if !triple {
				break // an unterminated string ends with its line
			}
			*line++
		}
		if c == q && (!triple || (j+2 < len(src) && src[j+1] == q && src[j+2] == q)) {
			j += open
			break
		}
		b.WriteByte(c)
		j++
	}
	t := pyTok{kind: 's', text: b.String(), line: start}
	if strings.Contains(prefix, "f") {
		if k := strings.IndexByte(t.text, '{'); k >= 0 {
			t.text, t.partial = t.text[:k], true
		}
	}
	*toks = append(*toks, t)
	return j
}

func isNameByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80
}

func isStringPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "r", "b", "f", "u", "rb", "br", "fr", "rf":
		return true
	}
	return false
}
