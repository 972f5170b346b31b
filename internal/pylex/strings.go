package pylex

import (
	"strings"
	"unicode/utf8"
)

// scanString reads the literal whose opening quote is at q, with the
// prefix flags f: where its body starts, where the literal ends, the
// newlines it holds and its flags.
func scanString(src string, q int, f Flags) (body, end int, lines int32, flags Flags) {
	ch := src[q]
	body = q + 1
	triple := q+2 < len(src) && src[q+1] == ch && src[q+2] == ch
	if triple {
		body = q + 3
		f |= Triple
	}
	j, n, cooked, closed := scanBody(src, body, ch, triple, f&Raw != 0, f&FString != 0)
	if cooked {
		f |= Cooked
	}
	if !closed {
		return body, j, n, f | Unterminated
	}
	if triple {
		return body, j + 3, n, f
	}
	return body, j + 1, n, f
}

// scanBody reads a literal's body from j up to its closing quote: the
// index of that quote (or where the literal stops, unclosed), the
// newlines passed, whether a backslash or an f-string's brace makes its
// value differ from the body, and whether it is closed.
func scanBody(src string, j int, ch byte, triple, raw, fstr bool) (at int, lines int32, cooked, closed bool) {
	for j < len(src) {
		c := src[j]
		switch {
		case c == ch && (!triple || j+2 < len(src) && src[j+1] == ch && src[j+2] == ch):
			return j, lines, cooked, true
		case c == '\n':
			if !triple {
				return j, lines, cooked, false
			}
			lines++
		case c == '\r':
			cooked = true // Python reads \r\n and \r as \n
		case c == '\\':
			cooked = true
			if j+1 < len(src) && !(fstr && (src[j+1] == '{' || src[j+1] == '}')) {
				j++
				switch src[j] {
				case '\n':
					lines++
				case '\r':
					if j+1 < len(src) && src[j+1] == '\n' {
						j++
						lines++
					}
				case 'N':
					if fstr && !raw && j+1 < len(src) && src[j+1] == '{' {
						// \N{NAME} is an escape, not a field.
						for j < len(src) && src[j] != '}' && src[j] != '\n' && src[j] != ch {
							j++
						}
						continue
					}
				}
			}
		case fstr && (c == '{' || c == '}'):
			cooked = true
			if j+1 < len(src) && src[j+1] == c {
				j++ // {{ or }}: a brace
				break
			}
			if c == '}' {
				break // a lone }: CPython refuses it; read as text
			}
			end, n, ok := scanField(src, j+1, ch, triple)
			lines += n
			if !ok {
				return end, lines, cooked, false
			}
			j = end
			continue
		}
		j++
	}
	return j, lines, cooked, false
}

// scanField reads an f-string's replacement field from j, just past its
// {: the index just past its closing }, the newlines passed, and whether
// it closes before the literal that holds it would (its quote, or the
// line of a one-line literal).
func scanField(src string, j int, ch byte, triple bool) (end int, lines int32, ok bool) {
	depth := 0
	for j < len(src) {
		c := src[j]
		switch {
		case c == '\n':
			if !triple {
				return j, lines, false
			}
			lines++
		case c == '"' || c == '\'':
			// A string in a field: Python 3.12 reads it whatever its
			// quote; earlier versions refuse the enclosing quote there.
			f := Flags(0)
			for k := j - 1; k >= 0 && j-k <= 2 && isNameStart(src[k]); k-- {
				if pf, ok := prefixFlags(src[k:j]); ok && (k == 0 || !isNameByte(src[k-1])) {
					f = pf
				}
			}
			_, e, n, fl := scanString(src, j, f)
			lines += n
			if fl&Unterminated != 0 {
				return e, lines, false
			}
			j = e
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']':
			depth = max(depth-1, 0)
		case c == '}':
			if depth == 0 {
				return j + 1, lines, true
			}
			depth--
		case c == '!' && depth == 0 && (j+1 >= len(src) || src[j+1] != '='):
			// A conversion (!r): what follows is a spec or the end.
		case c == ':' && depth == 0:
			return scanSpec(src, j+1, ch, triple, lines)
		case c == '\\' && j+1 < len(src) && src[j+1] != '\n':
			j++
		}
		j++
	}
	return j, lines, false
}

// scanSpec reads the format spec of a field from j, up to the } that
// closes the field; its quotes are text and its braces nested fields.
func scanSpec(src string, j int, ch byte, triple bool, lines int32) (int, int32, bool) {
	for j < len(src) {
		switch c := src[j]; {
		case c == '\n':
			if !triple {
				return j, lines, false
			}
			lines++
		case c == ch && (!triple || j+2 < len(src) && src[j+1] == ch && src[j+2] == ch):
			return j, lines, false
		case c == '{':
			end, n, ok := scanField(src, j+1, ch, triple)
			lines += n
			if !ok {
				return end, lines, false
			}
			j = end
			continue
		case c == '}':
			return j + 1, lines, true
		}
		j++
	}
	return j, lines, false
}

// Body is the source text between a string's quotes.
func Body(src string, t Token) string {
	from, to := bodyRange(t)
	return src[from:to]
}

func bodyRange(t Token) (int, int) {
	from, to := t.Off+int(t.Quote), t.End
	if t.Flags&Unterminated == 0 {
		if t.Flags&Triple != 0 {
			to -= 3
		} else {
			to--
		}
	}
	return from, max(from, to)
}

// Value is the value of the string token t: its body with escapes
// resolved (none in a raw string; \N{…} is kept as written); a bytes
// literal's value holds its bytes. An f-string's replacement fields are
// kept as written ({x!r}) and its doubled braces are single.
func Value(src string, t Token) string {
	v, _ := value(src, t, "", true)
	return v
}

// Marked is Value with each replacement field of an f-string written as
// mark; first is where the first field starts in the value, -1 when
// there is none.
func Marked(src string, t Token, mark string) (v string, first int) {
	return value(src, t, mark, false)
}

func value(src string, t Token, mark string, keep bool) (string, int) {
	from, to := bodyRange(t)
	if t.Flags&Cooked == 0 {
		return src[from:to], -1
	}
	raw, bytes, fstr := t.Flags&Raw != 0, t.Flags&Bytes != 0, t.Flags&FString != 0
	ch := src[from-1]
	triple := t.Flags&Triple != 0
	var b strings.Builder
	b.Grow(to - from)
	first := -1
	for j := from; j < to; {
		c := src[j]
		switch {
		case c == '\\' && j+1 < to && !(fstr && (src[j+1] == '{' || src[j+1] == '}')):
			if raw {
				b.WriteByte(c)
				b.WriteByte(src[j+1])
				j += 2
				continue
			}
			j = escape(&b, src, j, to, bytes)
			continue
		case fstr && (c == '{' || c == '}'):
			if j+1 < to && src[j+1] == c {
				b.WriteByte(c)
				j += 2
				continue
			}
			if c == '}' {
				break
			}
			end, _, _ := scanField(src, j+1, ch, triple)
			end = min(end, to)
			if first < 0 {
				first = b.Len()
			}
			if keep {
				b.WriteString(src[j:end])
			} else {
				b.WriteString(mark)
			}
			j = end
			continue
		}
		if c == '\r' {
			c = '\n'
			if j+1 < to && src[j+1] == '\n' {
				j++
			}
		}
		b.WriteByte(c)
		j++
	}
	return b.String(), first
}

// escape writes the value of the escape sequence at src[j] (a backslash)
// and returns the index after it.
func escape(b *strings.Builder, src string, j, to int, bytes bool) int {
	c := src[j+1]
	switch c {
	case '\n':
		return j + 2
	case '\r':
		if j+2 < to && src[j+2] == '\n' {
			return j + 3
		}
		return j + 2
	case '\\', '\'', '"':
		b.WriteByte(c)
	case 'a':
		b.WriteByte('\a')
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'v':
		b.WriteByte('\v')
	case '0', '1', '2', '3', '4', '5', '6', '7':
		k, v := j+1, 0
		for ; k < to && k < j+4 && '0' <= src[k] && src[k] <= '7'; k++ {
			v = v*8 + int(src[k]-'0')
		}
		writeCode(b, v, bytes)
		return k
	case 'N':
		if !bytes && j+2 < to && src[j+2] == '{' {
			// \N{NAME}: kept as written, this package has no names.
			k := j + 2
			for k < to && src[k] != '}' {
				k++
			}
			k = min(k+1, to)
			b.WriteString(src[j:k])
			return k
		}
	case 'x', 'u', 'U':
		n := 2
		switch c {
		case 'u':
			n = 4
		case 'U':
			n = 8
		}
		if c != 'x' && bytes {
			break
		}
		v, ok := hexValue(src, j+2, min(j+2+n, to), n)
		if !ok || v > utf8.MaxRune {
			break
		}
		writeCode(b, v, bytes)
		return j + 2 + n
	}
	switch c {
	case '\\', '\'', '"', 'a', 'b', 'f', 'n', 'r', 't', 'v':
	default:
		// Not an escape Python knows (or \N{…}): kept as written.
		b.WriteByte('\\')
		b.WriteByte(c)
	}
	return j + 2
}

func hexValue(src string, from, to, n int) (int, bool) {
	if to-from != n {
		return 0, false
	}
	v := 0
	for k := from; k < to; k++ {
		c := src[k]
		switch {
		case isDigit(c):
			v = v*16 + int(c-'0')
		case 'a' <= c|0x20 && c|0x20 <= 'f':
			v = v*16 + int(c|0x20-'a') + 10
		default:
			return 0, false
		}
	}
	return v, true
}

// writeCode writes a code point, or a byte in a bytes literal.
func writeCode(b *strings.Builder, v int, bytes bool) {
	if bytes {
		b.WriteByte(byte(v))
		return
	}
	b.WriteRune(rune(v))
}

// StringAt reads the string literal that starts at src[i], at its prefix
// or its opening quote, as a token on line 1 at depth 0. ok is false when
// none starts there.
func StringAt(src string, i int) (t Token, ok bool) {
	if !IsStringStart(src, i) {
		return Token{}, false
	}
	q := i
	for src[q] != '"' && src[q] != '\'' {
		q++
	}
	f, _ := prefixFlags(src[i:q])
	body, end, _, flags := scanString(src, q, f)
	return Token{Kind: String, Flags: flags, Quote: uint8(body - i), Line: 1, Off: i, End: end}, true
}

// IsStringStart reports a string literal's prefix or opening quote at
// src[i], without reading the literal.
func IsStringStart(src string, i int) bool {
	for q := i; q < len(src) && q-i <= 2; q++ {
		if src[q] == '"' || src[q] == '\'' {
			_, ok := prefixFlags(src[i:q])
			return ok
		}
		if !isNameStart(src[q]) {
			return false
		}
	}
	return false
}

// CommentOn is the offset in line, one line of source or the start of
// one, of the # that opens its comment, or -1: a # inside a string
// literal ("#ffffff", f"{x}#{y}") opens none.
func CommentOn(line string) int {
	l := New(line)
	l.KeepComments = true
	for {
		switch t := l.Next(); t.Kind {
		case EOF:
			return -1
		case Comment:
			return t.Off
		}
	}
}
