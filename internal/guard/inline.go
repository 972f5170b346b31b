package guard

import (
	"strings"
)

// add records a command and follows what it runs beyond its own words:
// the code an interpreter is given inline, and a file that the command
// line wrote before running it. It also records the files the command
// writes, for the commands after it.
func (a *analyzer) add(c call, sc *scope, depth int) {
	if c.via == "" {
		c.via = sc.via
	}
	c.fromDisk = c.fromDisk || sc.fromDisk
	a.cmds = append(a.cmds, c)
	if c.opaqueWhy != "" || len(c.argv) == 0 {
		return
	}
	a.followFile(c, sc, depth)
	a.followCode(c, sc, depth)
	a.recordCopy(c)
}

// chain says how a command nested in another comes to run: the outer
// command's way first.
func chain(outer, inner string) string {
	if outer == "" {
		return inner
	}
	return outer + ": " + inner
}

// followCode follows the inline code of an interpreter (python -c, a
// Python here-document, node -e, perl -e, ruby -e): the commands it
// spawns and, for Python, the modules it imports and the scripts it
// executes are run by the command itself.
func (a *analyzer) followCode(c call, sc *scope, depth int) {
	name := programName(c.argv[0], c.exact[0])
	python := isPython(name) || name == "ipython" || name == "ipython3"
	if python {
		if py, _ := pythonProgram(name, c.argv, c.exact, c.stdin, c.open); !py.inline {
			return
		}
	}
	code := inlineCode(name, c)
	if code == "" {
		return
	}
	inner := sc.with(c.dirs)
	inner.stdin = input{}
	inner.via = chain(sc.via, quote(c.text)+" runs it through its inline code")
	a.code(code, python, inner, depth)
}

// code follows program text: a command it spawns (os.system, subprocess,
// child_process, system, backticks) is a command line; a module Python
// code imports, or a script it executes (exec, runpy, importlib), runs
// as python -m MODULE or python SCRIPT would. Text that only reads a
// file (open('train.py').read(), ast.parse) runs nothing.
func (a *analyzer) code(code string, python bool, sc *scope, depth int) {
	lits := literals(code, python)
	var src []string
	if spawns(code) {
		src = append(src, spawned(code, lits)...)
	}
	if python {
		// IPython's %run runs a script and ! a shell command.
		for _, line := range strings.Split(code, "\n") {
			line = strings.TrimSpace(line)
			if rest, ok := strings.CutPrefix(line, "%run "); ok {
				src = append(src, "python "+rest)
			} else if rest, ok := strings.CutPrefix(line, "!"); ok {
				src = append(src, rest)
			}
		}
		// An import the statements show is judged by what it takes from
		// the module; one only a string shows (exec("import train")) by
		// the module's name.
		stated := map[string]bool{}
		for _, imp := range pyImports(code, code) {
			stated[imp.module] = true
		}
		for _, m := range imports(code) {
			if !stated[m] {
				src = append(src, "python -m "+shellQuote(m))
			}
		}
		defer a.imports(code, code, sc.dirs, sc, depth+1, false)
		if runsSource(code) {
			for _, l := range lits {
				switch before := strings.TrimRight(code[:l.start], " \t"); {
				case strings.HasSuffix(before, "import_module(") || strings.HasSuffix(before, "__import__(") || strings.HasSuffix(before, "run_module("):
					if l.text != "" && strings.Trim(l.text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") == "" {
						src = append(src, "python -m "+shellQuote(l.text))
					}
				case strings.HasSuffix(l.text, ".py") && !strings.ContainsAny(l.text, " \t\n"):
					src = append(src, "python "+shellQuote(l.text))
				}
			}
		}
	}
	seen := map[string]bool{}
	for _, s := range src {
		if !seen[s] {
			seen[s] = true
			a.source(s, depth+1, sc)
		}
	}
}

// spawns reports code with a sign of starting a process, in the
// languages interpreters run inline: Python, JavaScript, Perl, Ruby, PHP,
// R and Julia.
func spawns(code string) bool {
	return containsAny(code, []string{"system(", "exec(", "execv", "execl", "execSync", "execFile", "spawn", "popen", "Popen", "subprocess",
		"check_call", "check_output", "getoutput", "pty.", "pexpect", "qx", "%x", "`", "Open3", "passthru", "shell_exec", "fork(", "Command(", ".run("})
}

// runsSource reports Python code with a sign of running another Python
// file or module.
func runsSource(code string) bool {
	return containsAny(code, []string{"exec(", "execfile(", "eval(", "runpy", "run_path", "run_module", "import_module", "__import__",
		"exec_module", "load_module", "load_source", "SourceFileLoader", "spec_from_file_location", "runsource", "runcode"})
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// A lit is a string literal in program text: its value and where it
// stands, quotes included.
type lit struct {
	text       string
	start, end int
}

// literals lists the string literals of program text quoted with ', "
// or `, backslash escapes resolved; Python code's as Python reads them.
func literals(code string, python bool) []lit {
	if python {
		return pyLiterals(code)
	}
	var out []lit
	for i := 0; i < len(code); i++ {
		if c := code[i]; c == '\'' || c == '"' || c == '`' {
			v, at, closed := unquote(code, i+1, c)
			end := len(code)
			if closed {
				end = at + 1
			}
			out = append(out, lit{text: v, start: i, end: end})
			i = end - 1
		}
	}
	return out
}

// unquote reads a quoted literal's body from j, just past its opening
// quote q, up to the closing q: its value with backslash escapes resolved
// and the index of the closing quote. closed is false when the text ends
// first.
func unquote(code string, j int, q byte) (val string, at int, closed bool) {
	var b strings.Builder
	for j < len(code) && code[j] != q {
		if code[j] == '\\' && j+1 < len(code) {
			switch code[j+1] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(code[j+1])
			}
			j += 2
			continue
		}
		b.WriteByte(code[j])
		j++
	}
	return b.String(), j, j < len(code)
}

// spawned lists the command lines that code starting processes may run:
// each literal that is a command line ('python train.py') or the program
// of a call that starts one (os.system('./train.sh')), and each list of
// literals that is an argument vector (['python', 'train.py'],
// spawn('python', ['train.py']); Python's sys.executable is the word
// python).
func spawned(code string, lits []lit) []string {
	var out []string
	// Vectors first: a refusal then shows the whole command line.
	for _, seps := range []string{", \t\r\n", ", \t\r\n[]()"} {
		for i := 0; i < len(lits); {
			j := i + 1
			for j < len(lits) && lits[j].start >= lits[j-1].end && strings.Trim(code[lits[j-1].end:lits[j].start], seps) == "" {
				j++
			}
			out = append(out, vector(lits[i:j])...)
			i = j
		}
	}
	for _, l := range lits {
		t := strings.TrimSpace(l.text)
		switch {
		case strings.ContainsAny(t, " \t\n"):
			out = append(out, t)
		case t != "" && spawnCall(code[:l.start]):
			out = append(out, shellQuote(t)) // os.system('./train.sh')
		}
	}
	return out
}

// spawnCall reports code that ends in a call of a function that starts
// a process, so that the literal after it is its program.
func spawnCall(before string) bool {
	before = strings.TrimRight(before, " \t")
	before = strings.TrimRight(strings.TrimSuffix(before, "["), " \t")
	before, ok := strings.CutSuffix(before, "(")
	if !ok {
		return false
	}
	i := len(before)
	for i > 0 && (before[i-1] == '_' || 'a' <= before[i-1]|0x20 && before[i-1]|0x20 <= 'z' || '0' <= before[i-1] && before[i-1] <= '9') {
		i--
	}
	switch before[i:] {
	case "system", "popen", "Popen", "run", "call", "check_call", "check_output", "getoutput", "getstatusoutput", "spawn", "spawnSync",
		"exec", "execSync", "execFile", "execFileSync", "execv", "execvp", "execvpe", "execl", "execlp", "execle", "execve",
		"spawnv", "spawnvp", "spawnl", "spawnlp", "passthru", "shell_exec", "proc_open", "capture2", "capture3", "popen3":
		return true
	}
	return false
}

// vector is the command line of an argument vector of two or more
// literals.
func vector(ls []lit) []string {
	if len(ls) < 2 {
		return nil
	}
	words := make([]string, 0, len(ls))
	for _, l := range ls {
		words = append(words, shellQuote(l.text))
	}
	return []string{strings.Join(words, " ")}
}

// imports lists the modules Python code imports (import a.b, c as d;
// from e.f import g), also inside strings it may exec.
func imports(code string) []string {
	fields := strings.Fields(strings.NewReplacer(",", " , ", ";", " ; ", "(", " ( ", ")", " ) ", "'", " ' ", `"`, ` " `, "\\n", " ; ").Replace(code))
	var mods []string
	module := func(s string) bool {
		return s != "" && s[0] != '.' && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") == ""
	}
	for i := 0; i < len(fields); i++ {
		switch fields[i] {
		case "from":
			if i+2 < len(fields) && fields[i+2] == "import" && module(fields[i+1]) {
				mods = append(mods, fields[i+1])
				i += 2
			}
		case "import":
			for j := i + 1; j < len(fields) && module(fields[j]); {
				mods = append(mods, fields[j])
				j++
				if j+1 < len(fields) && fields[j] == "as" {
					j += 2
				}
				if j >= len(fields) || fields[j] != "," {
					break
				}
				j++
			}
		}
	}
	return mods
}
