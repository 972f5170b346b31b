package preflight

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		if st, err := os.Stat(name); err != nil || st.IsDir() {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, output []byte) {
		r := Parse(output)
		lines := bytes.Count(output, []byte{'\n'}) + 1
		classified := len(r.Lines) + len(r.Other)
		if r.Summary != nil {
			classified++
		}
		if classified > lines {
			t.Fatalf("%d lines classified %d times", lines, classified)
		}
		prev := 0
		for _, l := range r.Lines {
			if l.LineNo <= prev || l.LineNo > lines {
				t.Fatalf("line %d after line %d of %d: classified twice or out of range", l.LineNo, prev, lines)
			}
			prev = l.LineNo
			glyph := canonicalGlyph(l.Level)
			if glyph == "" {
				t.Fatalf("unknown level %q", l.Level)
			}
			checkText(t, l.Message)
			// The canonical form of every line reads back as itself.
			line := "  " + glyph + " " + string(l.Level) + "  " + l.Message + "\n"
			back := Parse([]byte(line)).Lines
			if len(back) != 1 || back[0] != (Line{l.Level, l.Message, 1}) {
				t.Fatalf("%q read back as %+v", line, back)
			}
		}
		if r.Summary != nil && (r.Summary.LineNo < 1 || r.Summary.LineNo > lines) {
			t.Fatalf("summary line %d of %d", r.Summary.LineNo, lines)
		}
		for _, o := range r.Other {
			checkText(t, o)
			if strings.TrimSpace(o) == "" {
				t.Fatalf("blank line kept in Other")
			}
		}
		for _, exit := range []int{0, 1} {
			v := Outcome{ExitCode: exit, Result: r}.Verdict()
			if v.Blocked != (len(v.Blockers) > 0) {
				t.Fatalf("Blocked %v with blockers %q", v.Blocked, v.Blockers)
			}
			if (r.Count(Fatal) > 0 || exit != 0) && !v.Blocked {
				t.Fatalf("exit %d with %d FATAL passed", exit, r.Count(Fatal))
			}
		}
	})
}

// checkText asserts that parsed text is safe to put in a table cell.
func checkText(t *testing.T, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("invalid UTF-8: %q", s)
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			t.Fatalf("control character %U in %q", r, s)
		}
	}
}

func canonicalGlyph(l Level) string {
	switch l {
	case OK:
		return "✓"
	case Warn:
		return "⚠"
	case Fatal:
		return "✗"
	case Skip:
		return "⊘"
	}
	return ""
}
