package audit

import (
	"context"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Cases from git's t/t3070-wildmatch.sh, with WM_PATHNAME semantics.
func TestWildmatch(t *testing.T) {
	tests := []struct {
		pattern, text string
		want          bool
	}{
		{"foo", "foo", true},
		{"bar", "foo", false},
		{"", "", true},
		{"???", "foo", true},
		{"??", "foo", false},
		{"*", "foo", true},
		{"f*", "foo", true},
		{"*f", "foo", false},
		{"*foo*", "foo", true},
		{"*ob*a*r*", "foobar", true},
		{"*ab", "aaaaaaabababab", true},
		{`foo\*`, "foo*", true},
		{`foo\*bar`, "foobar", false},
		{`f\\oo`, `f\oo`, true},
		{"*[al]?", "ball", true},
		{"[ten]", "ten", false},
		{"**[!te]", "ten", true},
		{"**[!ten]", "ten", false},
		{"t[a-g]n", "ten", true},
		{"t[!a-g]n", "ten", false},
		{"t[!a-g]n", "ton", true},
		{"t[^a-g]n", "ton", true},
		{"a[]]b", "a]b", true},
		{"a[]-]b", "a-b", true},
		{"a[]-]b", "a]b", true},
		{"a[]-]b", "aab", false},
		{"a[]a-]b", "aab", true},
		{"]", "]", true},
		{"foo*bar", "foo/baz/bar", false},
		{"foo**bar", "foo/baz/bar", false},
		{"foo**bar", "foobazbar", true},
		{"foo/**/bar", "foo/baz/bar", true},
		{"foo/**/**/bar", "foo/baz/bar", true},
		{"foo/**/bar", "foo/b/a/z/bar", true},
		{"foo/**/bar", "foo/bar", true},
		{"foo/**/**/bar", "foo/bar", true},
		{"foo?bar", "foo/bar", false},
		{"foo[/]bar", "foo/bar", false},
		{"foo[^a-z]bar", "foo/bar", false},
		{"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "f/a/b/r", false},
		{"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", true},
		{"**/foo", "foo", true},
		{"**/foo", "XXX/foo", true},
		{"**/foo", "bar/baz/foo", true},
		{"*/foo", "bar/baz/foo", false},
		{"**/bar*", "foo/bar/baz", false},
		{"**/bar/*", "deep/foo/bar/baz", true},
		{"**/bar/*", "deep/foo/bar/baz/", false},
		{"**/bar/**", "deep/foo/bar/baz/", true},
		{"**/bar/*", "deep/foo/bar", false},
		{"**/bar/**", "deep/foo/bar/", true},
		{"**/bar**", "foo/bar/baz", false},
		{"*/bar/**", "foo/bar/baz/x", true},
		{"*/bar/**", "deep/foo/bar/baz/x", false},
		{"**/bar/*/*", "deep/foo/bar/baz/x", true},
		{"a[c-c]st", "acrt", false},
		{"a[c-c]rt", "acrt", true},
		{"[!]-]", "]", false},
		{"[!]-]", "a", true},
		{`\`, "", false},
		{`\`, `\`, false},
		{`*/\`, `XXX/\`, false},
		{`*/\\`, `XXX/\`, true},
		{"foo", "foo", true},
		{"@foo", "@foo", true},
		{"@foo", "foo", false},
		{`\[ab]`, "[ab]", true},
		{"[[]ab]", "[ab]", true},
		{"[[:]ab]", "[ab]", true},
		{"[[::]ab]", "[ab]", false},
		{"[[:digit]ab]", "[ab]", true},
		{`[\[:]ab]`, "[ab]", true},
		{`\??\?b`, "?a?b", true},
		{`\a\b\c`, "abc", true},
		{"", "foo", false},
		{"**/t[o]", "foo/bar/baz/to", true},
		{"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", true},
		{"[[:digit:][:upper:][:space:]]", "a", false},
		{"[[:digit:][:upper:][:space:]]", "A", true},
		{"[[:digit:][:upper:][:space:]]", "1", true},
		{"[[:digit:][:upper:][:spaci:]]", "1", false},
		{"[[:digit:][:punct:][:space:]]", ".", true},
		{"[[:xdigit:]]", "5", true},
		{"[[:xdigit:]]", "f", true},
		{"[[:xdigit:]]", "D", true},
		{"[a-c[:digit:]x-z]", "5", true},
		{"[a-c[:digit:]x-z]", "b", true},
		{"[a-c[:digit:]x-z]", "y", true},
		{"[a-c[:digit:]x-z]", "q", false},
		{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", true},
		{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", false},
		{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", true},
		{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", true},
		{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", false},
		{"*/*/*", "foo/bba/arr", true},
		{"*/*/*", "foo/bb/aa/rr", false},
		{"**/**/**", "foo/bb/aa/rr", true},
		{"*X*i", "abcXdefXghi", true},
		{"*/*X*/*/*i", "ab/cXd/efXg/hi", true},
		{"**/*X*/**/*i", "ab/cXd/efXg/hi", true},
	}
	for _, tt := range tests {
		if got := wildmatch(tt.pattern, tt.text); got != tt.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", tt.pattern, tt.text, got, tt.want)
		}
	}
}

func TestCompileIgnore(t *testing.T) {
	tests := []struct {
		line string
		want ignoreRule
		ok   bool
	}{
		{"", ignoreRule{}, false},
		{"# comment", ignoreRule{}, false},
		{`\#notcomment`, ignoreRule{pattern: `\#notcomment`, basename: true}, true},
		{"*.log  ", ignoreRule{pattern: "*.log", basename: true}, true},
		{`trailing\ `, ignoreRule{pattern: `trailing\ `, basename: true}, true},
		{"!keep.log", ignoreRule{pattern: "keep.log", negate: true, basename: true}, true},
		{`\!bang`, ignoreRule{pattern: `\!bang`, basename: true}, true},
		{"build/", ignoreRule{pattern: "build", dirOnly: true, basename: true}, true},
		{"/root.txt", ignoreRule{pattern: "root.txt"}, true},
		{"a/b", ignoreRule{pattern: "a/b"}, true},
		{"/", ignoreRule{}, false},
		{"!", ignoreRule{}, false},
	}
	for _, tt := range tests {
		got, ok := compileIgnore(tt.line)
		got.fast, got.lit = fastNone, "" // the fast path is checked by FuzzWildmatch
		if ok != tt.ok || got != tt.want {
			t.Errorf("compileIgnore(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

// TestIgnoreMatchesGit lists a tree with nested .gitignore files and
// compares the files the walk keeps with what git itself calls untracked
// and not ignored.
func TestIgnoreMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	files := map[string]string{
		".gitignore": "*.log\n!keep.log\nbuild/\n/top.txt\ndocs/**/*.tmp\n**/cache\n\\#hash\nsp\\ ace\nlo[a-c]k\n*.py[cod]\n",
		"a.log":      "", "keep.log": "", "top.txt": "", "sub/top.txt": "", "#hash": "", "sp ace": "",
		"lock": "", "lobk": "", "lozk": "", "x.pyc": "", "x.py": "",
		"build/out.py": "", "src/build/gen.py": "", "src/buildx/ok.py": "",
		"docs/a/b/c.tmp": "", "docs/c.tmp": "", "docs/keep.md": "",
		"cache/x.py": "", "deep/er/cache/y.py": "",
		"pkg/.gitignore": "*.txt\n!important.txt\n/local/\nnested/*.py\n",
		"pkg/a.txt":      "", "pkg/important.txt": "", "pkg/local/x.py": "", "pkg/sub/local/y.py": "",
		"pkg/nested/n.py": "", "pkg/nested/deeper/n.py": "", "pkg/ok.py": "",
		"pkg/deep/.gitignore": "!a.txt\n*.py\n",
		"pkg/deep/a.txt":      "", "pkg/deep/b.txt": "", "pkg/deep/c.py": "", "pkg/deep/d.sh": "",
		"negdir/.gitignore": "*\n!*/\n!*.sh\n",
		"negdir/run.sh":     "", "negdir/x.py": "", "negdir/in/run.sh": "", "negdir/in/y.py": "",
		"trail/.gitignore":   "spaces   \n",
		"trail/spaces":       "",
		"classes/.gitignore": "[[:digit:]]*.py\n[!a]x.py\n",
		"classes/1a.py":      "", "classes/ax.py": "", "classes/bx.py": "", "classes/c.py": "",
	}
	writeTree(t, dir, files)
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	cmd = exec.Command("git", "ls-files", "--others", "--exclude-standard", "-z")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, p := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		want = append(want, p)
	}
	sort.Strings(want)
	lst, err := listRepo(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := sortedKeys(lst.paths)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("listed files differ from git (-git +audit):\n%s", diff)
	}
}

// FuzzWildmatch checks that matching never panics and agrees with the
// obvious cases: a pattern without special characters matches itself
// alone, and "**" matches everything.
func FuzzWildmatch(f *testing.F) {
	for _, s := range [][2]string{
		{"*.py[cod]", "x.pyc"}, {"**/cache", "a/b/cache"}, {"docs/**/*.tmp", "docs/a/b.tmp"}, {"[[:alpha:]]x", "ax"},
		{"a[]-]b", "a-b"}, {"[!a-", "b"}, {`\`, `\`}, {"[[:x", "["}, {"foo/**/bar", "foo/bar"}, {"*X*i", "abcXdefXghi"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		got := wildmatch(pattern, text)
		if !strings.ContainsAny(pattern, `*?[\`) && got != (pattern == text) {
			t.Errorf("literal %q vs %q: %v", pattern, text, got)
		}
		if !wildmatch("**", text) {
			t.Errorf("** does not match %q", text)
		}
		if r, ok := compileIgnore(pattern); ok && r.match(text) != wildmatch(r.pattern, text) {
			t.Errorf("rule %+v: fast match of %q disagrees with wildmatch", r, text)
		}
	})
}

// FuzzParseIgnore feeds whole .gitignore files through parsing and
// matching.
func FuzzParseIgnore(f *testing.F) {
	f.Add([]byte("*.log\n!keep.log\nbuild/\n/top.txt\n# c\n\\#x\ntrail\\ \n"), "a/b/keep.log")
	f.Add([]byte("\xef\xbb\xbf__pycache__/\r\n*.py[cod]\r\n"), "x.pyc")
	f.Add([]byte("runs/\nwandb/\n*.egg-info\n.venv\n"), "src/runs")
	f.Fuzz(func(t *testing.T, data []byte, path string) {
		rules := parseIgnore(data)
		for _, r := range rules {
			if r.pattern == "" || r.line < 1 {
				t.Errorf("empty rule %+v", r)
			}
		}
		f := newIgnoreFile("", rules)
		got := f.decide(path, false)
		want := -1
		for j := len(rules) - 1; j >= 0; j-- {
			if rules[j].matches(path, false) {
				want = j
				break
			}
		}
		if got != want {
			t.Errorf("decide(%q) = rule %d, want the last matching rule %d", path, got, want)
		}
	})
}
