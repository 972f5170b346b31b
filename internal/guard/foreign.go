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
	src = append(src, namedSpawns(code, lits, perlish)...)
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

// spawnNameRe finds a call that starts a process given a name, not a
// literal: execSync(cmd), spawn(prog, args), system($c), system(@cmd),
// Perl's and Ruby's system $c / exec cmd without parentheses.
var spawnNameRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^\w$@.]|\.)(system|exec|execSync|execFile|execFileSync|spawn|spawnSync|popen|popen3|capture2|capture3|capture2e|passthru|shell_exec|proc_open)(?:\s*\(\s*|[ \t]+)([$@]?[A-Za-z_][A-Za-z0-9_]*)\s*(?:,\s*([$@]?[A-Za-z_][A-Za-z0-9_]*)\s*)?[,)\n;]`)
})

// namedSpawns lists the command lines that calls starting a process run
// when they are given a name (a variable or a constant) assigned a
// literal command earlier in the file: const cmd = "python train.py";
// execSync(cmd), my @c = ("python", "train.py"); system(@c), Ruby's
// cmd = "..."; system(cmd). A program name followed by a name assigned
// a list of literals (spawn(py, args)) is an argument vector.
func namedSpawns(code string, lits []lit, perlish bool) []string {
	masked := blankComments(code, lits, perlish)
	b := []byte(masked)
	for _, l := range lits {
		for i := l.start; i < l.end && i < len(b); i++ {
			b[i] = ' '
		}
	}
	masked = string(b)
	var out []string
	for _, m := range spawnNameRe().FindAllStringSubmatchIndex(masked, -1) {
		name := masked[m[4]:m[5]]
		switch name {
		case "function", "async", "await", "new", "this", "self", "true", "false", "null", "nil", "undefined", "do", "if", "unless":
			continue
		}
		if masked[m[3]] != '(' && !strings.HasPrefix(strings.TrimLeft(masked[m[3]:], " \t"), "(") && !perlish {
			continue // JavaScript calls take parentheses
		}
		words := assignedLiterals(code, masked, lits, name, m[0])
		if len(words) == 0 {
			continue
		}
		if m[6] >= 0 {
			words = append(words, assignedLiterals(code, masked, lits, masked[m[6]:m[7]], m[0])...)
		}
		if len(words) == 1 {
			out = append(out, strings.TrimSpace(words[0].text))
			continue
		}
		out = append(out, vector(words)...)
	}
	return out
}

// assignedLiterals is the literal value the last assignment of name
// before pos gives it (const/let/var/my/our NAME = …, NAME = …): a
// string, or the literals of a list ([…], (…), qw(…) words are not read)
// up to the first element that is not one.
func assignedLiterals(code, masked string, lits []lit, name string, pos int) []lit {
	bare := strings.TrimLeft(name, "$@")
	re := regexp.MustCompile(`(?m)(?:^|[;{]|\b(?:const|let|var|my|our)\s+)[ \t]*[$@]?` + regexp.QuoteMeta(bare) + `\s*=`)
	best := -1
	for _, m := range re.FindAllStringIndex(masked[:pos], -1) {
		if m[1] < len(masked) && masked[m[1]] != '=' && masked[m[1]] != '~' {
			best = m[1]
		}
	}
	if best < 0 {
		return nil
	}
	i := best
	for i < len(code) && (code[i] == ' ' || code[i] == '\t') {
		i++
	}
	list := i < len(code) && (code[i] == '[' || code[i] == '(')
	if list {
		i++
	}
	var out []lit
	for _, l := range lits {
		if l.start < i {
			continue
		}
		if strings.Trim(code[i:l.start], " \t\r\n,") != "" {
			break
		}
		out = append(out, l)
		if !list {
			break
		}
		i = l.end
	}
	if !list && len(out) == 1 {
		// "python " + script: not a literal
		if rest := strings.TrimLeft(code[out[0].end:], " \t"); rest != "" && !strings.ContainsAny(rest[:1], ";\n") {
			return nil
		}
	}
	return out
}
