package pylex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tok is a token as the tests compare it.
type tok struct {
	Kind  string
	Text  string
	Line  int
	Depth int
}

func lex(src string) []tok {
	var out []tok
	for _, t := range Tokens(src) {
		out = append(out, tok{t.Kind.String(), t.Text(src), int(t.Line), int(t.Depth)})
	}
	return out
}

func TestTokens(t *testing.T) {
	tests := []struct {
		src  string
		want []tok
	}{
		{"x = f(a,\n  [b])  # c\n", []tok{
			{"NAME", "x", 1, 0}, {"OP", "=", 1, 0}, {"NAME", "f", 1, 0}, {"OP", "(", 1, 0}, {"NAME", "a", 1, 1},
			{"OP", ",", 1, 1}, {"OP", "[", 2, 1}, {"NAME", "b", 2, 2}, {"OP", "]", 2, 1}, {"OP", ")", 2, 0},
			{"NEWLINE", "\n", 2, 0},
		}},
		{"if a:\n    b = 'x\\\ny'\nc", []tok{
			{"NAME", "if", 1, 0}, {"NAME", "a", 1, 0}, {"OP", ":", 1, 0}, {"NEWLINE", "\n", 1, 0},
			{"INDENT", "    ", 2, 0}, {"NAME", "b", 2, 0}, {"OP", "=", 2, 0}, {"STRING", "'x\\\ny'", 2, 0}, {"NEWLINE", "\n", 3, 0},
			{"DEDENT", "", 4, 0}, {"NAME", "c", 4, 0}, {"NEWLINE", "", 4, 0},
		}},
		{"a = 1 + \\\n 2 ; b **= .5j", []tok{
			{"NAME", "a", 1, 0}, {"OP", "=", 1, 0}, {"NUMBER", "1", 1, 0}, {"OP", "+", 1, 0}, {"NUMBER", "2", 2, 0},
			{"OP", ";", 2, 0}, {"NAME", "b", 2, 0}, {"OP", "**=", 2, 0}, {"NUMBER", ".5j", 2, 0}, {"NEWLINE", "", 2, 0},
		}},
		{"s = f\"{d['k']:{w}}\" rb'\\'' 'open", []tok{
			{"NAME", "s", 1, 0}, {"OP", "=", 1, 0}, {"STRING", "f\"{d['k']:{w}}\"", 1, 0}, {"STRING", "rb'\\''", 1, 0},
			{"STRING", "'open", 1, 0}, {"NEWLINE", "", 1, 0},
		}},
		{"x)$?", []tok{{"NAME", "x", 1, 0}, {"OP", ")", 1, 0}, {"OP", "$", 1, 0}, {"OP", "?", 1, 0}, {"NEWLINE", "", 1, 0}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, lex(tt.src)); diff != "" {
			t.Errorf("Tokens(%q) (-want +got):\n%s", tt.src, diff)
		}
	}
}

func TestValue(t *testing.T) {
	tests := []struct {
		lit, value, marked string
		first              int
		flags              Flags
	}{
		{`'plain'`, "plain", "plain", -1, 0},
		{`"a\tb\x41\101\u00e9\q\N{DASH}\\"`, "a\tbAAé\\q\\N{DASH}\\", "a\tbAAé\\q\\N{DASH}\\", -1, Cooked},
		{`b'\xff\u00e9'`, "\xff\\u00e9", "\xff\\u00e9", -1, Bytes | Cooked},
		{`r'\d+\''`, `\d+\'`, `\d+\'`, -1, Raw | Cooked},
		{`f'run/{name!r:>{w}}/{{x}}'`, "run/{name!r:>{w}}/{x}", "run/*/{x}", 4, FString | Cooked},
		{`rf"\{x}"`, `\{x}`, `\*`, 1, FString | Raw | Cooked},
		{`f"{x:'>10}!"`, "{x:'>10}!", "*!", 0, FString | Cooked},
		{`'''a` + "\n" + `b\` + "\n" + `c'''`, "a\nbc", "a\nbc", -1, Triple | Cooked},
		{`"open`, "open", "open", -1, Unterminated},
		{`f"{a`, "{a", "*", 0, FString | Cooked | Unterminated},
	}
	for _, tt := range tests {
		tk, ok := StringAt(tt.lit, 0)
		if !ok || tk.End != len(tt.lit) {
			t.Errorf("StringAt(%q) = %+v, %v; want the whole literal", tt.lit, tk, ok)
			continue
		}
		if tk.Flags != tt.flags {
			t.Errorf("StringAt(%q) flags = %b, want %b", tt.lit, tk.Flags, tt.flags)
		}
		if v := Value(tt.lit, tk); v != tt.value {
			t.Errorf("Value(%q) = %q, want %q", tt.lit, v, tt.value)
		}
		if v, first := Marked(tt.lit, tk, "*"); v != tt.marked || first != tt.first {
			t.Errorf("Marked(%q) = %q, %d; want %q, %d", tt.lit, v, first, tt.marked, tt.first)
		}
	}
	for _, s := range []string{"x", "", "'", "ab'c'", "bf'x'", "uu'x'"} {
		if tk, ok := StringAt(s, 0); ok && s != "'" || IsStringStart(s, 0) != (s == "'") {
			t.Errorf("StringAt(%q) = %+v, %v; IsStringStart %v; want a string only in \"'\"", s, tk, ok, IsStringStart(s, 0))
		}
	}
}

// cpython is what CPython's tokenize makes of a file: one [kind, text,
// line, value] per token, without comments and blank lines; an f-string's
// parts (Python 3.12 and later) are one STRING as before. The value of a
// string is its ast value, each f-string field as "*" (null where this
// package does not decode: \N{…}, self-documenting fields).
const cpython = `
import ast, json, re, sys, tokenize, warnings
warnings.simplefilter("ignore")
def tokens(src):
    offs = [0]
    for l in src.split("\n"):
        offs.append(offs[-1] + len(l) + 1)
    at = lambda p: min(offs[p[0] - 1] + p[1], len(src)) if p[0] - 1 < len(offs) else len(src)
    def value(text):
        if "\\N{" in text or re.search(r"=\s*[!:}]", text):
            return None
        node = ast.parse("(" + text + ")", mode="eval").body
        if isinstance(node, ast.JoinedStr):
            return "".join(v.value if isinstance(v, ast.Constant) else "*" for v in node.values)
        v = node.value
        return v.decode("latin-1") if isinstance(v, bytes) else v
    out, depth, start = [], 0, None
    lines = iter(src.splitlines(keepends=True) if "\r" in src else [l + "\n" for l in src.split("\n")[:-1]] + [src.split("\n")[-1]])
    for t in tokenize.generate_tokens(lambda: next(lines, "")):
        kind = tokenize.tok_name[t.type]
        if kind == "FSTRING_START":
            depth += 1
            if depth == 1:
                start = t.start
            continue
        if kind == "FSTRING_END":
            depth -= 1
            if depth == 0:
                text = src[at(start):at(t.end)]
                out.append(["STRING", text, start[0], value(text)])
            continue
        if depth or kind in ("COMMENT", "NL", "ENCODING", "ENDMARKER"):
            continue
        out.append([kind, t.string, t.start[0], value(t.string) if kind == "STRING" else None])
    return out
print(json.dumps([tokens(open(p, encoding="utf-8", newline="").read()) for p in sys.argv[1:]]))
`

// TestCPython compares the tokens of the corpus with CPython's tokenize:
// kinds, texts, lines and string values.
func TestCPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 is missing on CI, where .ci/run installs it")
		}
		t.Skip("python3 is not installed: nothing to compare the tokens with")
	}
	dir := t.TempDir()
	srcs := corpus(t)
	var names, paths []string
	for name, src := range srcs {
		p := filepath.Join(dir, fmt.Sprintf("%d.py", len(paths)))
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		names, paths = append(names, name), append(paths, p)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(py, append([]string{"-c", cpython}, paths...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 tokenize: %v: %s", err, stderr.String())
	}
	var all [][][4]any
	if err := json.Unmarshal(out, &all); err != nil || len(all) != len(paths) {
		t.Fatalf("python3 tokenize: %d results for %d files: %v", len(all), len(paths), err)
	}
	for k, name := range names {
		src, want := srcs[name], all[k]
		got := [][4]any{}
		for i, tk := range Tokens(src) {
			text := tk.Text(src)
			if tk.Kind == Newline && i < len(want) && want[i][0] == "NEWLINE" {
				text = want[i][1].(string) // "\n", "\r\n" or "" at the end
			}
			var v any
			if tk.Kind == String && i < len(want) && want[i][3] != nil {
				s := Value(src, tk)
				if tk.Flags&FString != 0 {
					s, _ = Marked(src, tk, "*")
				}
				if tk.Flags&Bytes != 0 {
					s = latin1(s)
				}
				v = s
			}
			got = append(got, [4]any{tk.Kind.String(), text, float64(tk.Line), v})
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: tokens differ from CPython's (-python +pylex):\n%s", name, diff)
		}
	}
}

func latin1(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteRune(rune(s[i]))
	}
	return b.String()
}

// FuzzTokens checks what holds for any input: the lexer ends, its tokens
// follow each other inside the source, brackets never go below depth 0,
// and every string's value can be read.
func FuzzTokens(f *testing.F) {
	for _, src := range corpus(f) {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		l := New(src)
		prev := 0
		for n := 0; ; n++ {
			if n > 2*len(src)+8 {
				t.Fatalf("no end after %d tokens", n)
			}
			tk := l.Next()
			if tk.Off < prev || tk.End < tk.Off || tk.End > len(src) || tk.Depth < 0 || tk.Line < 1 {
				t.Fatalf("token %+v after offset %d in %d bytes", tk, prev, len(src))
			}
			prev = tk.End
			if tk.Kind == EOF {
				if tk.End != len(src) {
					t.Fatalf("EOF at %d of %d", tk.End, len(src))
				}
				break
			}
			if tk.Kind == String {
				Value(src, tk)
				Marked(src, tk, "*")
				if s, ok := StringAt(src, tk.Off); !ok || s.End != tk.End || s.Flags != tk.Flags {
					t.Fatalf("StringAt(%d) = %+v, %v; the lexer read %+v", tk.Off, s, ok, tk)
				}
			}
		}
		for i := range min(len(src), 64) {
			if s, ok := StringAt(src, i); ok {
				Value(src, s)
			}
		}
	})
}

// BenchmarkTokens lexes a large real module when the accuracy benchmark's
// repositories are fetched (bash scripts/bench-audit-fetch.sh
// /tmp/audit-repos), and the corpus repeated to 5,000 lines always.
func BenchmarkTokens(b *testing.B) {
	var gen strings.Builder
	for gen.Len() == 0 || strings.Count(gen.String(), "\n") < 5000 {
		for _, name := range []string{"train.py", "logger.py", "launch.py"} {
			gen.WriteString(files[name])
		}
	}
	srcs := []struct{ name, src string }{{"generated", gen.String()}}
	const real = "/tmp/audit-repos/rl/torchrl/data/tensor_specs.py"
	if data, err := os.ReadFile(real); err == nil {
		srcs = append(srcs, struct{ name, src string }{"tensor_specs.py", string(data)})
	}
	for _, s := range srcs {
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(s.src)))
			b.ReportAllocs()
			for b.Loop() {
				l := New(s.src)
				for l.Next().Kind != EOF {
				}
			}
		})
	}
}

func TestCommentOn(t *testing.T) {
	for _, c := range []struct {
		line string
		want int
	}{
		{`wandb.log({"a": 1})`, -1},
		{`# wandb.log({"a": 1})`, 0},
		{`    x = 1  # wandb.log(x)`, 11},
		{`color = "#ffffff"; wandb.log(x)`, -1},
		{`tag = f"{name}#{i}"  # note`, 21},
		{`s = 'it''s' # a`, 12},
		{`s = r"\"#"`, -1},
		{`doc = """# heading`, -1}, // a triple-quoted string left open
		{`s = "open # `, -1},       // an unclosed string ends with its line
		{`x = [1,  # first`, 9},
	} {
		if got := CommentOn(c.line); got != c.want {
			t.Errorf("CommentOn(%q) = %d, want %d", c.line, got, c.want)
		}
	}
}
