package guard

import (
	"regexp"
	"strings"
	"sync"
)

// A codeWrite is a file that program text read from disk writes: a path
// naming .rlxp and the statement that writes it.
type codeWrite struct {
	path, stmt string
}

// codeWrites lists the files under .rlxp that program text (a Python,
// JavaScript, Perl or Ruby file a command runs) writes, statement by
// statement: a statement writes a path when it names it (a literal, a
// literal joined to .rlxp as in os.path.join('.rlxp', 'ledger.jsonl'), or
// a name assigned one earlier) and has a sign of writing outside its
// string literals (open with a write mode, write_text, os.remove,
// shutil.rmtree or move, fs.writeFileSync, File.write, …). A copy writes
// its last argument only: shutil.copy('.rlxp/ledger.jsonl', 'backup/')
// reads the ledger. A file that only reads the records, or writes
// elsewhere in other statements, writes nothing here.
func codeWrites(code string, python bool) []codeWrite {
	if !strings.Contains(code, ".rlxp") {
		return nil
	}
	lits := literals(code, python)
	code = blankComments(code, lits, python)
	bound := map[string]string{} // names assigned a path under .rlxp
	var out []codeWrite
	for _, st := range statements(code, lits) {
		path, at := st.names(code, bound)
		if path == "" {
			continue
		}
		if name := assigned(blankLiterals(code, st)); name != "" {
			bound[name] = path
		}
		if st.writes(code, at) {
			out = append(out, codeWrite{path: path, stmt: strings.TrimSpace(code[st.start:st.end])})
		}
	}
	return out
}

// A statement is one logical line of program text: up to a newline or a
// ; outside brackets and string literals.
type statement struct {
	start, end int
	lits       []lit
}

func statements(code string, lits []lit) []statement {
	var out []statement
	start, depth, li := 0, 0, 0
	var cur []lit
	for i := 0; i < len(code); i++ {
		if li < len(lits) && i == lits[li].start {
			cur = append(cur, lits[li])
			i = lits[li].end - 1
			li++
			continue
		}
		switch code[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth = max(depth-1, 0)
		case '\n', ';':
			if depth == 0 {
				out = append(out, statement{start, i, cur})
				start, cur = i+1, nil
			}
		}
	}
	return append(out, statement{start, len(code), cur})
}

// names is the path under .rlxp the statement names, and where it names
// it: a literal (joined with the literals right after it when it names
// the directory alone), or a name bound to such a path.
func (st statement) names(code string, bound map[string]string) (string, int) {
	for i, l := range st.lits {
		if !namesState(l.text) {
			continue
		}
		p := strings.TrimLeft(l.text, "+<> ")
		for _, next := range st.lits[i+1:] {
			if strings.HasSuffix(strings.TrimRight(p, "/"), ".rlxp") || strings.HasSuffix(p, "/") {
				if gap := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(code[l.end:next.start]), ")")); gap == "," || gap == "/" || gap == "+" || gap == "+ '/' +" {
					p = strings.TrimRight(p, "/") + "/" + strings.Trim(next.text, "/")
					l = next
					continue
				}
			}
			break
		}
		return p, l.start
	}
	if len(bound) == 0 {
		return "", 0
	}
	text := blankLiterals(code, st)
	for name, p := range bound {
		if loc := wordIndex(text, name); loc >= 0 {
			return p, st.start + loc
		}
	}
	return "", 0
}

// writes reports a statement with a sign of writing: a literal that is a
// write mode ('w', 'a', "r+", Perl's '>>'), or a call that writes,
// removes, moves or copies onto what it names at `at`.
func (st statement) writes(code string, at int) bool {
	for _, l := range st.lits {
		// a write mode, or Perl's open(FH, ">>.rlxp/ledger.jsonl")
		if writeMode(l.text) || (strings.HasPrefix(l.text, ">") || strings.HasPrefix(l.text, "+")) && namesState(l.text) {
			return true
		}
	}
	text := blankLiterals(code, st)
	if loc := codeWriteRe().FindStringIndex(text); loc != nil {
		return true
	}
	// A copy writes its last argument: the path named after the first
	// comma that follows the copy call.
	if loc := codeCopyRe().FindStringIndex(text); loc != nil {
		if comma := strings.IndexByte(text[loc[1]:], ','); comma >= 0 && at-st.start > loc[1]+comma {
			return true
		}
	}
	return false
}

// writeMode reports a file mode that writes: Python's and Ruby's 'w',
// 'a', 'x', 'r+' (with b, t, U), and Perl's '>', '>>', '+<'.
func writeMode(s string) bool {
	if s == "" || len(s) > 4 {
		return false
	}
	if strings.Trim(s, "rwaxbtU+") == "" {
		return strings.ContainsAny(s, "wax+")
	}
	return s == ">" || s == ">>" || s == "+<" || s == "+>" || s == "+>>"
}

var (
	codeWriteRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:write|writelines|write_text|write_bytes|writeFile|writeFileSync|appendFile|appendFileSync|createWriteStream|dump|safe_dump|save|savetxt|savez|to_csv|to_json|to_parquet|to_pickle|unlink|unlinkSync|remove|removedirs|rmdir|rmdirSync|rm|rmSync|rm_f|rm_r|rm_rf|rmtree|rename|renameSync|replace|move|mv|truncate|truncateSync|symlink|symlinkSync|symlink_to|hardlink_to|link|linkSync|touch|mkdir|mkdirSync|makedirs|mkdir_p|O_WRONLY|O_RDWR|O_APPEND|O_CREAT|O_TRUNC)\b`)
	})
	codeCopyRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:copy|copy2|copyfile|copytree|copyFile|copyFileSync|cp|cpSync|cp_r|install)\s*\(?`)
	})
	calleeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`((?:File\.)?[A-Za-z_][A-Za-z0-9_]*)\s*\(`) })
	assignRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:(?:const|let|var|my|our)\s+)?([$@]?[A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=]*)?=[^=]`)
	})
)

// blankComments blanks the comments of program text outside its string
// literals (# in Python, Perl and Ruby; // in JavaScript), keeping every
// offset: a comment says nothing about what the code writes.
func blankComments(code string, lits []lit, python bool) string {
	b := []byte(code)
	li := 0
	for i := 0; i < len(b); i++ {
		for li < len(lits) && lits[li].end <= i {
			li++
		}
		if li < len(lits) && i >= lits[li].start {
			i = lits[li].end - 1
			continue
		}
		if b[i] == '#' && (python || i == 0 || b[i-1] != '$') || b[i] == '/' && i+1 < len(b) && b[i+1] == '/' && (i == 0 || b[i-1] != ':') {
			for i < len(b) && b[i] != '\n' {
				b[i] = ' '
				i++
			}
		}
	}
	return string(b)
}

// assigned is the name a statement assigns a path (P = …, const p = …,
// my $p = …), or "": a value that calls anything but a path's
// constructors (rows = open(…).readlines()) holds what was read, not the
// path.
func assigned(stmt string) string {
	m := assignRe().FindStringSubmatchIndex(stmt)
	if m == nil {
		return ""
	}
	for _, c := range calleeRe().FindAllStringSubmatch(stmt[m[1]-1:], -1) {
		switch c[1] {
		case "Path", "PurePath", "PosixPath", "join", "joinpath", "resolve", "abspath", "realpath", "expanduser", "expandvars", "normpath", "getcwd", "cwd", "dirname", "parent", "str", "fspath", "File.join":
		default:
			return ""
		}
	}
	return stmt[m[2]:m[3]]
}

// blankLiterals is the statement's text with its string literals
// blanked, so that the words of a help text or a path are not signs.
func blankLiterals(code string, st statement) string {
	b := []byte(code[st.start:st.end])
	for _, l := range st.lits {
		for i := max(l.start, st.start); i < min(l.end, st.end); i++ {
			b[i-st.start] = ' '
		}
	}
	return string(b)
}

// wordIndex is where name stands in text as a whole word, or -1.
func wordIndex(text, name string) int {
	for from := 0; ; {
		i := strings.Index(text[from:], name)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(name)
		if (i == 0 || !identByte(text[i-1])) && (end == len(text) || !identByte(text[end])) {
			return i
		}
		from = end
	}
}

func identByte(c byte) bool {
	return c == '_' || c == '$' || 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9'
}

// recordCodeWrites records the files under .rlxp that program text read
// from disk writes, as the writes of the command that runs it.
func (a *analyzer) recordCodeWrites(code string, python bool, sc *scope) {
	for _, w := range codeWrites(code, python) {
		a.writes = append(a.writes, write{path: w.path, exact: !strings.ContainsAny(w.path, "{$"), dirs: sc.dirs, text: w.stmt, via: sc.via})
	}
}
