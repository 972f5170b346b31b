// Package pylex splits Python 3 source into tokens: names, numbers, string
// literals (with every prefix, triple quotes, escapes and f-strings with
// nested fields), operators with their bracket depth, and the ends of
// logical lines with the indentation around them. Comments and line
// continuations are passed over.
//
// It reads any input to its end without failing: what is not Python is
// read as one-byte operators, an unclosed string ends with its line (or
// the text, for a triple-quoted one) and is marked unterminated. Tokens
// are offsets into the source: reading them allocates nothing, and a
// string's value is a slice of the source unless escapes or f-string
// fields make it differ.
package pylex

// A Kind is what a token is.
type Kind uint8

// The kinds of token, named as in CPython's tokenize.
const (
	EOF     Kind = iota
	Name         // an identifier or keyword
	Number       // an integer, float or imaginary literal
	String       // a string or bytes literal with its prefix and quotes
	Op           // an operator or bracket; any other byte on its own
	Newline      // the end of a logical line (empty Text at the end of the source)
	Indent       // a deeper indentation at the start of a logical line
	Dedent       // the end of an indented block
	Comment      // a comment, only when the lexer keeps them
)

var kindNames = [...]string{"EOF", "NAME", "NUMBER", "STRING", "OP", "NEWLINE", "INDENT", "DEDENT", "COMMENT"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "?"
}

// Flags describe a string token.
type Flags uint8

const (
	FString      Flags = 1 << iota // an f-string (prefix f)
	Raw                            // a raw string: backslashes are kept
	Bytes                          // a bytes literal
	Triple                         // triple quoted
	Unterminated                   // the line (or the text) ends before the closing quote
	// Cooked marks a literal whose value differs from its body: it holds
	// a backslash or, in an f-string, a brace.
	Cooked
)

// A Token is one token of the source.
type Token struct {
	Kind  Kind
	Flags Flags
	// Quote is the length of a string's prefix and opening quotes.
	Quote uint8
	// Depth is the bracket depth around the token: an opening bracket
	// and its closing one have the depth outside them.
	Depth int32
	// Line is the 1-based line the token starts on.
	Line int32
	// Off and End are the token's source text: src[Off:End].
	Off, End int
}

// Text is the token's source text.
func (t Token) Text(src string) string { return src[t.Off:t.End] }

// Is reports a token of kind k whose text is s.
func (t Token) Is(src string, k Kind, s string) bool {
	return t.Kind == k && t.End-t.Off == len(s) && src[t.Off:t.End] == s
}

// A Lexer reads tokens from src, one Next at a time.
type Lexer struct {
	// KeepComments makes Next return comments as tokens.
	KeepComments bool

	src     string
	i       int
	line    int32
	depth   int32
	indents []int // the indentation columns of the open blocks, beyond 0
	pending int   // dedents still to return
	bol     bool  // at the beginning of a line, before its indentation is read
	logical bool  // the current logical line has a token
	done    bool
}

// New returns a lexer of src.
func New(src string) *Lexer {
	l := &Lexer{src: src, line: 1, bol: true}
	if len(src) >= 3 && src[:3] == "\xef\xbb\xbf" {
		l.i = 3 // a byte order mark
	}
	return l
}

// Tokens is every token of src but the final EOF.
func Tokens(src string) []Token {
	l := New(src)
	toks := make([]Token, 0, len(src)/5+1)
	for {
		t := l.Next()
		if t.Kind == EOF {
			return toks
		}
		toks = append(toks, t)
	}
}

// Next returns the next token; at the end of the source, EOF for ever.
func (l *Lexer) Next() Token {
	for {
		if l.pending > 0 {
			l.pending--
			return Token{Kind: Dedent, Line: l.line, Off: l.i, End: l.i}
		}
		if l.bol && l.depth == 0 {
			if t, ok := l.indentation(); ok {
				return t
			}
			continue
		}
		if l.i >= len(l.src) {
			return l.eof()
		}
		c := l.src[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\f' || c == '\r':
			l.i++
		case c == '\n':
			l.i++
			l.line++
			if l.depth > 0 {
				continue
			}
			l.bol = true
			if l.logical {
				l.logical = false
				return Token{Kind: Newline, Line: l.line - 1, Off: l.i - 1, End: l.i}
			}
		case c == '#':
			start := l.i
			for l.i < len(l.src) && l.src[l.i] != '\n' {
				l.i++
			}
			if l.KeepComments {
				return Token{Kind: Comment, Depth: l.depth, Line: l.line, Off: start, End: l.i}
			}
		case c == '\\' && l.continuation(l.i):
			// A line continuation: the logical line goes on.
			l.i++
			if l.src[l.i] == '\r' {
				l.i++
			}
			l.i++
			l.line++
		default:
			l.logical = true
			return l.token()
		}
	}
}

// continuation reports a backslash at i that ends its line.
func (l *Lexer) continuation(i int) bool {
	i++
	if i < len(l.src) && l.src[i] == '\r' {
		i++
	}
	return i < len(l.src) && l.src[i] == '\n'
}

// eof ends the last logical line and the open blocks.
func (l *Lexer) eof() Token {
	if l.logical {
		l.logical = false
		return Token{Kind: Newline, Line: l.line, Off: l.i, End: l.i}
	}
	if len(l.indents) > 0 {
		l.indents = l.indents[:len(l.indents)-1]
		return Token{Kind: Dedent, Line: l.line, Off: l.i, End: l.i}
	}
	l.done = true
	return Token{Kind: EOF, Line: l.line, Off: l.i, End: l.i}
}

// indentation reads the indentation of a line. A line that holds a token
// may open (Indent) or close (Dedent) blocks; blank and comment lines do
// neither.
func (l *Lexer) indentation() (Token, bool) {
	col, j := 0, l.i
	for j < len(l.src) {
		switch l.src[j] {
		case ' ':
			col++
		case '\t':
			col = col/8*8 + 8
		case '\f':
			col = 0
		default:
			goto measured
		}
		j++
	}
measured:
	if j >= len(l.src) {
		l.i = j
		l.bol = false
		return Token{}, false
	}
	switch c := l.src[j]; {
	case c == '\n' || c == '\r' || c == '#' || (c == '\\' && l.continuation(j)):
		l.i = j
		l.bol = false
		if c == '\\' {
			// A line of nothing but a continuation joins the next to the
			// same indentation question.
			l.i = j + 1
			if l.src[l.i] == '\r' {
				l.i++
			}
			l.i++
			l.line++
			l.bol = true
		}
		return Token{}, false
	}
	l.i = j
	l.bol = false
	top := 0
	if n := len(l.indents); n > 0 {
		top = l.indents[n-1]
	}
	switch {
	case col > top:
		l.indents = append(l.indents, col)
		return Token{Kind: Indent, Line: l.line, Off: lineStart(l.src, j), End: j}, true
	case col < top:
		n := len(l.indents)
		for n > 0 && l.indents[n-1] > col {
			n--
			l.pending++
		}
		l.indents = l.indents[:n]
		if n > 0 && l.indents[n-1] < col || n == 0 && col > 0 {
			// An inconsistent dedent: CPython refuses it; read on as if
			// it opened a block at this column.
			l.indents = append(l.indents, col)
		}
		l.pending--
		return Token{Kind: Dedent, Line: l.line, Off: j, End: j}, true
	}
	return Token{}, false
}

func lineStart(src string, j int) int {
	for j > 0 && src[j-1] != '\n' {
		j--
	}
	return j
}

// token reads the token at l.i, which is not space, a comment or a newline.
func (l *Lexer) token() Token {
	src, i := l.src, l.i
	c := src[i]
	t := Token{Line: l.line, Off: i, Depth: l.depth}
	switch {
	case isNameStart(c):
		j := i + 1
		for j < len(src) && isNameByte(src[j]) {
			j++
		}
		if j < len(src) && (src[j] == '"' || src[j] == '\'') && j-i <= 2 {
			if f, ok := prefixFlags(src[i:j]); ok {
				return l.str(t, j, f)
			}
		}
		t.Kind, t.End = Name, j
	case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
		t.Kind, t.End = Number, number(src, i)
	case c == '"' || c == '\'':
		return l.str(t, i, 0)
	default:
		t.Kind, t.End = Op, i+opLen(src, i)
		switch c {
		case '(', '[', '{':
			l.depth++
		case ')', ']', '}':
			if l.depth > 0 {
				l.depth--
			}
			t.Depth = l.depth
		}
	}
	l.i = t.End
	return t
}

// str reads a string literal whose opening quote is at q.
func (l *Lexer) str(t Token, q int, f Flags) Token {
	body, end, lines, flags := scanString(l.src, q, f)
	t.Kind, t.Flags, t.End = String, flags, end
	t.Quote = uint8(body - t.Off)
	l.line += lines
	l.i = end
	return t
}

// prefixFlags reads a string prefix: r, b, f, u and the pairs of r with b
// or f, in either case and order.
func prefixFlags(p string) (Flags, bool) {
	var f Flags
	for k := 0; k < len(p); k++ {
		var b Flags
		switch p[k] | 0x20 {
		case 'r':
			b = Raw
		case 'b':
			b = Bytes
		case 'f':
			b = FString
		case 'u':
			if len(p) > 1 {
				return 0, false
			}
			continue
		default:
			return 0, false
		}
		if f&b != 0 {
			return 0, false
		}
		f |= b
	}
	return f, f&(Bytes|FString) != Bytes|FString
}

// number is the end of the number literal at i.
func number(src string, i int) int {
	j := i
	if src[j] == '0' && j+1 < len(src) && strings3(src[j+1]|0x20) {
		j += 2
		for j < len(src) && (isHex(src[j]) || src[j] == '_') {
			j++
		}
		return j
	}
	digits := func() {
		for j < len(src) && (isDigit(src[j]) || src[j] == '_') {
			j++
		}
	}
	digits()
	if j < len(src) && src[j] == '.' {
		j++
		digits()
	}
	if j < len(src) && src[j]|0x20 == 'e' {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			j = k
			digits()
		}
	}
	if j < len(src) && src[j]|0x20 == 'j' {
		j++
	}
	return j
}

// strings3 reports the letter after 0 of a hex, octal or binary literal.
func strings3(c byte) bool { return c == 'x' || c == 'o' || c == 'b' }

// opLen is the length of the operator at i.
func opLen(src string, i int) int {
	c := src[i]
	if i+2 < len(src) {
		switch src[i : i+3] {
		case "**=", "//=", ">>=", "<<=", "...":
			return 3
		}
	}
	if i+1 < len(src) {
		d := src[i+1]
		switch {
		case d == '=' && (c == '=' || c == '!' || c == '<' || c == '>' || c == '+' || c == '-' || c == '*' ||
			c == '/' || c == '%' || c == '&' || c == '|' || c == '^' || c == '@' || c == ':'):
			return 2
		case d == c && (c == '*' || c == '/' || c == '<' || c == '>'):
			return 2
		case c == '-' && d == '>':
			return 2
		}
	}
	return 1
}

func isNameStart(c byte) bool {
	return c == '_' || 'a' <= c|0x20 && c|0x20 <= 'z' || c >= 0x80
}

func isNameByte(c byte) bool { return isNameStart(c) || isDigit(c) }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }
