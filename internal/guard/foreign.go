package guard

import (
	"regexp"
	"strings"
	"sync"
)

// foreignLang reports the interpreters of languages other than Python and
// the shell whose scripts the guard reads: JavaScript, Perl, Ruby, R and
// PHP.
func foreignLang(name string) bool {
	switch name {
	case "node", "nodejs", "deno", "bun", "tsx", "ts-node", "perl", "ruby", "Rscript", "php":
		return true
	}
	return false
}

// foreignScript is the script an interpreter of another language runs
// (node run.js, perl -w x.pl, ruby x.rb, Rscript x.R, deno run x.ts),
// and the interpreter; "" when it runs inline code (-e) or none.
func foreignScript(name string, c call) (string, string) {
	if !foreignLang(name) || !c.exact[0] {
		return "", ""
	}
	args := c.argv[1:]
	if (name == "deno" || name == "bun") && len(args) > 0 && args[0] == "run" {
		args = args[1:]
	}
	off := len(c.argv) - len(args)
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-e" || a == "-E" || a == "--eval" || a == "-p" || a == "--print" || a == "-r" && name == "php":
			return "", ""
		case a == "-r" || a == "--require" || a == "-I" || a == "--import" || a == "--loader" || a == "-C" || a == "--env-file" || a == "-x":
			i++
		case a == "--":
		case strings.HasPrefix(a, "-"):
		default:
			if !c.exact[off+i] {
				return "", ""
			}
			return a, name
		}
	}
	return "", ""
}

// foreign follows a JavaScript, Perl, Ruby, R or PHP script read from
// disk: a call that starts a process (child_process's exec, execSync,
// spawn; system, exec, backticks, qx, %x, Open3, IO.popen) runs the
// command line its literal arguments give: one string (a command line),
// or a program and its argument vector. As in a Python file, other
// string literals (help texts, log messages) are not command lines. It
// also records the files under .rlxp the script writes.
func (a *analyzer) foreign(code, lang string, sc *scope, depth int) {
	a.recordCodeWrites(code, false, sc)
	lits := literals(code, false)
	perlish := lang == "perl" || lang == "ruby"
	var src []string
	for i := 0; i < len(lits); i++ {
		l := lits[i]
		before := code[:l.start]
		switch {
		case perlish && code[l.start] == '`':
			src = append(src, l.text)
			continue
		case spawnCall(before) || perlish && bareSpawn(before):
		default:
			continue
		}
		// The program's literal, and the literals after it that make its
		// argument vector: spawn('python3', ['train.py']).
		j := i + 1
		for j < len(lits) && lits[j].start >= lits[j-1].end && strings.Trim(code[lits[j-1].end:lits[j].start], ", \t\r\n[]") == "" {
			j++
		}
		if j == i+1 {
			src = append(src, strings.TrimSpace(l.text))
		} else {
			src = append(src, vector(lits[i:j])...)
		}
		i = j - 1
	}
	if perlish {
		for _, m := range quotedCmdRe().FindAllStringSubmatchIndex(code, -1) {
			open := code[m[2]]
			end := strings.IndexByte(code[m[3]:], closer(open))
			if end >= 0 {
				src = append(src, code[m[3]:m[3]+end])
			}
		}
	}
	seen := map[string]bool{}
	for _, s := range src {
		if s != "" && !seen[s] {
			seen[s] = true
			a.source(s, depth, sc)
		}
	}
}

// bareSpawn reports Perl or Ruby code that ends in a call of system,
// exec or spawn without parentheses: system "python3 train.py".
func bareSpawn(before string) bool {
	before = strings.TrimRight(before, " \t")
	for _, f := range []string{"system", "exec", "spawn"} {
		if strings.HasSuffix(before, f) {
			rest := before[:len(before)-len(f)]
			return rest == "" || !identByte(rest[len(rest)-1]) && rest[len(rest)-1] != '.' || strings.HasSuffix(rest, "Process.") || strings.HasSuffix(rest, "Kernel.")
		}
	}
	return false
}

// quotedCmdRe finds Perl's qx and Ruby's %x quoted commands: qx{…},
// qx(…), %x(…), %x{…}.
var quotedCmdRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:\bqx|%x)\s*([{(\[<|!/])()`) })

func closer(open byte) byte {
	switch open {
	case '{':
		return '}'
	case '(':
		return ')'
	case '[':
		return ']'
	case '<':
		return '>'
	}
	return open
}
