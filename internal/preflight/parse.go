// Package preflight runs a target repository's own preflight command and
// reads its verdict from the lines it prints.
//
// A check line is, after ANSI escapes are stripped, at the start of a line
// (leading blanks allowed):
//
//	✓ OK     message      (✔ also accepted)
//	⚠ WARN   message      (⚠️ with its emoji selector also accepted)
//	✗ FATAL  message      (✘ also accepted)
//	⊘ SKIP   message
//
// with any spacing between glyph, label and message. Two looser forms are
// accepted because they cannot be mistaken for ordinary prose:
//
//   - the label alone, followed by a tab or at least two spaces, as the
//     padded format leaves it when a glyph is lost to a bad encoding;
//   - the label in brackets, with or without a glyph: "[WARN] message".
//
// Labels are upper case and exact: "WARNING", "Fatal:" or a glyph without a
// label are not check lines. When a glyph and a label disagree, the more
// severe wins, so a FATAL is never read as OK. Lines of box-drawing rules
// (the header and footer) are dropped, the closing summary ("N FATAL, M WARN
// — refusing to start" or "all fatal checks passed (M WARN)") is read into a
// Summary, and everything else is kept in Result.Other for quoting.
package preflight

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Level is the severity of one check line.
type Level string

// The four levels a preflight prints.
const (
	OK    Level = "OK"
	Warn  Level = "WARN"
	Fatal Level = "FATAL"
	Skip  Level = "SKIP"
)

// severity orders levels so that conflicting marks resolve to the worse one.
func (l Level) severity() int {
	switch l {
	case Fatal:
		return 3
	case Warn:
		return 2
	case Skip:
		return 1
	}
	return 0
}

// Line is one check line.
type Line struct {
	Level   Level  `json:"level"`
	Message string `json:"message"`
	LineNo  int    `json:"line"` // 1-based, counting '\n'-terminated lines of the output read
}

// Summary is the preflight's own closing line, e.g. "N FATAL, M WARN —
// refusing to start" or "all fatal checks passed (M WARN)".
type Summary struct {
	Fatal         int    `json:"fatal"`
	Warn          int    `json:"warn"`
	Passed        bool   `json:"passed"`         // "all … checks passed"
	StructureOnly bool   `json:"structure_only"` // filesystem checks were skipped
	Text          string `json:"text"`
	LineNo        int    `json:"line"`
}

// Result is what Parse read from a preflight's output.
type Result struct {
	Lines   []Line   `json:"lines,omitempty"`
	Summary *Summary `json:"summary,omitempty"` // the last summary line; nil if none
	Other   []string `json:"other,omitempty"`   // non-blank lines that are neither checks, rules nor the summary
}

// Count is the number of check lines at level l.
func (r Result) Count(l Level) int {
	n := 0
	for _, ln := range r.Lines {
		if ln.Level == l {
			n++
		}
	}
	return n
}

// Messages are the messages of the check lines at level l, in output order.
func (r Result) Messages(l Level) []string {
	var out []string
	for _, ln := range r.Lines {
		if ln.Level == l {
			out = append(out, ln.Message)
		}
	}
	return out
}

var summaryPatterns = sync.OnceValues(func() (*regexp.Regexp, *regexp.Regexp) {
	return regexp.MustCompile(`^\[preflight\]\s+(\d{1,9})\s+FATAL\s*,\s*(\d{1,9})\s+WARN\b`),
		regexp.MustCompile(`^\[preflight\]\s+(structure-only:\s+)?all\s+(?:fatal|config)\s+checks\s+passed\s*\(\s*(\d{1,9})\s+WARN\s*\)`)
})

// Parse reads the merged stdout and stderr of a preflight. It accepts any
// bytes: invalid UTF-8 becomes U+FFFD and control characters are dropped.
//
// Lines end at '\n'. A '\r' inside a line is a terminal rewrite: the visible
// text is the last non-blank segment, except that if any segment is a check
// line, the most severe such segment is kept (the last among equals), so a
// progress bar overwriting a FATAL cannot hide it.
func Parse(output []byte) Result {
	var r Result
	lineNo := 0
	for len(output) > 0 {
		lineNo++
		var raw []byte
		if i := bytes.IndexByte(output, '\n'); i >= 0 {
			raw, output = output[:i], output[i+1:]
		} else {
			raw, output = output, nil
		}
		visible := ""
		var check *Line
		for _, seg := range bytes.Split(raw, []byte{'\r'}) {
			text := strings.TrimRight(clean(seg), " \t")
			if strings.TrimSpace(text) == "" {
				continue
			}
			visible = text
			if l, ok := parseCheck(text); ok && (check == nil || l.Level.severity() >= check.Level.severity()) {
				l.LineNo = lineNo
				check = &l
			}
		}
		switch {
		case check != nil:
			r.Lines = append(r.Lines, *check)
		case visible == "":
		case isRule(visible):
		default:
			if s, ok := parseSummary(visible); ok {
				s.LineNo = lineNo
				r.Summary = &s
			} else {
				r.Other = append(r.Other, visible)
			}
		}
	}
	return r
}

// parseCheck reads one check line; see the package documentation for the
// accepted forms.
func parseCheck(s string) (Line, bool) {
	t := strings.TrimLeft(s, " \t")
	first, size := utf8.DecodeRuneInString(t)
	marked, hasGlyph := glyphLevel(first)
	if hasGlyph {
		t = strings.TrimPrefix(t[size:], "\uFE0F") // emoji presentation selector
	}
	t = strings.TrimLeft(t, " \t")
	for _, label := range [...]Level{Fatal, Warn, Skip, OK} {
		rest, bracketed := strings.CutPrefix(t, "["+string(label)+"]")
		if !bracketed {
			var ok bool
			if rest, ok = strings.CutPrefix(t, string(label)); !ok {
				continue
			}
		}
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			return Line{}, false // "OKAY", "FATAL:", "[OK]:"
		}
		msg := strings.TrimSpace(rest)
		if !hasGlyph && (msg == "" || (!bracketed && !strings.HasPrefix(rest, "  ") && rest[0] != '\t')) {
			return Line{}, false // a bare word followed by prose, e.g. "OK so far"
		}
		level := label
		if hasGlyph && marked.severity() > level.severity() {
			level = marked
		}
		return Line{Level: level, Message: msg}, true
	}
	return Line{}, false
}

// glyphLevel maps a check glyph, or a common look-alike, to its level.
func glyphLevel(r rune) (Level, bool) {
	switch r {
	case '✓', '✔':
		return OK, true
	case '⚠':
		return Warn, true
	case '✗', '✘':
		return Fatal, true
	case '⊘':
		return Skip, true
	}
	return "", false
}

func parseSummary(s string) (Summary, bool) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "[preflight]") {
		return Summary{}, false
	}
	failed, passed := summaryPatterns()
	if m := failed.FindStringSubmatch(t); m != nil {
		f, _ := strconv.Atoi(m[1])
		w, _ := strconv.Atoi(m[2])
		return Summary{Fatal: f, Warn: w, Text: t}, true
	}
	if m := passed.FindStringSubmatch(t); m != nil {
		w, _ := strconv.Atoi(m[2])
		return Summary{Warn: w, Passed: true, StructureOnly: m[1] != "", Text: t}, true
	}
	return Summary{}, false
}

// isRule reports whether s is a header or footer rule: box-drawing
// horizontals at both ends, with an optional title between.
func isRule(s string) bool {
	t := strings.TrimSpace(s)
	first, _ := utf8.DecodeRuneInString(t)
	last, _ := utf8.DecodeLastRuneInString(t)
	return isHorizontal(first) && isHorizontal(last)
}

func isHorizontal(r rune) bool {
	return r == '─' || r == '━' || r == '═' || r == '╌' || r == '┄'
}

// clean strips terminal escape sequences and control characters from one
// line segment and makes it valid UTF-8.
func clean(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	for i := 0; i < len(b); {
		c := b[i]
		if c == 0x1b {
			i = skipEscape(b, i)
			continue
		}
		if c < utf8.RuneSelf {
			if c == '\t' || (c >= 0x20 && c != 0x7f) {
				sb.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == 0x9b: // the 8-bit CSI
			i = skipCSI(b, i+size)
			continue
		case r >= 0x80 && r < 0xa0: // other C1 controls
		default:
			sb.WriteRune(r) // utf8.RuneError for invalid bytes
		}
		i += size
	}
	return sb.String()
}

// skipEscape returns the index just past the escape sequence starting at
// b[i] == ESC. An unterminated sequence runs to the end of the segment.
func skipEscape(b []byte, i int) int {
	i++
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '[':
		return skipCSI(b, i+1)
	case ']', 'P', 'X', '^', '_':
		// OSC, DCS, SOS, PM, APC: a string ended by BEL or ST (ESC \).
		for i++; i < len(b); i++ {
			if b[i] == 0x07 {
				return i + 1
			}
			if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\' {
				return i + 2
			}
		}
		return i
	}
	// Two-byte and nF escapes: intermediates 0x20–0x2F, then a final byte.
	for i < len(b) && b[i] >= 0x20 && b[i] <= 0x2f {
		i++
	}
	if i < len(b) && b[i] >= 0x30 && b[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI returns the index past a CSI body starting at b[i]: parameter
// bytes 0x30–0x3F, intermediates 0x20–0x2F, one final byte 0x40–0x7E.
func skipCSI(b []byte, i int) int {
	for i < len(b) && b[i] >= 0x30 && b[i] <= 0x3f {
		i++
	}
	for i < len(b) && b[i] >= 0x20 && b[i] <= 0x2f {
		i++
	}
	if i < len(b) && b[i] >= 0x40 && b[i] <= 0x7e {
		i++
	}
	return i
}
