package guard

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/rlxp/rlxp/internal/pylex"
)

// python follows a Python file the command runs, read from disk: the
// processes it starts and the Python it executes where a call names them
// with literals, and the modules it imports. Unlike inline code, a file's
// other string literals (docstrings, help texts, usage examples) are not
// command lines: only the arguments of the calls that start processes or
// run code are.
//
// Only the part of the file that may run is read: run as a program
// (main), its top-level code and main block; imported, its top-level code
// and the functions named; and the functions and classes these name.
func (a *analyzer) python(text, path string, names []string, main bool, sc *scope, depth int) {
	body := reachable(text, names, main)
	var src []string
	src = append(src, spawnCalls(body)...)
	src = append(src, execCalls(body)...)
	seen := map[string]bool{}
	for _, s := range src {
		if !seen[s] {
			seen[s] = true
			a.source(s, depth, sc)
		}
	}
	a.imports(body, text, append([]string{filepath.Dir(path)}, sc.dirs...), sc, depth, true)
	a.recordCodeWrites(body, true, sc)
}

// spawnFuncs are the functions that start a process, by their module
// (the name before the dot) or alone; run and call alone count where the
// code imports them from subprocess.
var spawnFuncs = map[string]bool{
	"subprocess.run": true, "subprocess.call": true, "subprocess.check_call": true, "subprocess.check_output": true,
	"subprocess.Popen": true, "subprocess.getoutput": true, "subprocess.getstatusoutput": true,
	"sp.run": true, "sp.call": true, "sp.check_call": true, "sp.check_output": true, "sp.Popen": true,
	"sp.getoutput": true, "sp.getstatusoutput": true,
	"os.system": true, "os.popen": true, "os.posix_spawn": true, "os.posix_spawnp": true,
	"pty.spawn": true, "pexpect.spawn": true, "pexpect.run": true,
	"asyncio.create_subprocess_exec": true, "asyncio.create_subprocess_shell": true,
	"Popen": true, "check_call": true, "check_output": true, "getoutput": true,
}

// A pyCall is a call in Python source: the dotted name called, where
// the name starts, and where its arguments start (after the bracket).
type pyCall struct {
	name      string
	at, args  int
	tok, open int // the indices of the name's first token and of the bracket
}

// pyCalls lists the calls of Python source as the lexer reads it, so that
// a string literal or a comment that shows a call is not one.
func pyCalls(code string, toks []pylex.Token) []pyCall {
	var out []pyCall
	for i, t := range toks {
		if !t.Is(code, pylex.Op, "(") || i == 0 || toks[i-1].Kind != pylex.Name {
			continue
		}
		// the dotted name before the bracket: a.b.c(
		j := i - 1
		for j >= 2 && toks[j-1].Is(code, pylex.Op, ".") && toks[j-2].Kind == pylex.Name {
			j -= 2
		}
		if j > 0 && toks[j-1].Is(code, pylex.Op, ".") {
			continue // (x).y(: not a name the guard knows
		}
		var b strings.Builder
		for k := j; k < i; k++ {
			b.WriteString(toks[k].Text(code))
		}
		out = append(out, pyCall{name: b.String(), at: toks[j].Off, args: t.End, tok: j, open: i})
	}
	return out
}

// lastPart is the last two parts of a dotted name (os.path.join: path.join).
func lastParts(name string) (last2, last string) {
	parts := strings.Split(name, ".")
	last = parts[len(parts)-1]
	if len(parts) >= 2 {
		return parts[len(parts)-2] + "." + last, last
	}
	return last, last
}

// spawnCalls lists the command lines the calls that start processes run,
// where their program is a literal: a string (os.system("python
// train.py")), a list of literals ([sys.executable, "train.py"]), or a
// variable assigned one of these before the call.
func spawnCalls(code string) []string {
	var out []string
	if !containsAny(code, []string{"subprocess", "os.system", "os.popen", "os.exec", "os.spawn", "os.posix_spawn", "pty.spawn", "pexpect", "Popen", "check_call", "check_output", "getoutput", "sp."}) {
		return nil
	}
	toks := pylex.Tokens(code)
	bare := strings.Contains(code, "from subprocess import")
	for _, c := range pyCalls(code, toks) {
		two, last := lastParts(c.name)
		dotted := strings.Contains(c.name, ".")
		osExec := two == "os."+last && (strings.HasPrefix(last, "exec") || strings.HasPrefix(last, "spawn")) && osProcess(last)
		switch {
		case dotted && (spawnFuncs[two] || osExec || last == "Popen" || last == "check_call" || last == "check_output" || last == "getoutput"):
		case !dotted && (spawnFuncs[last] && !strings.Contains(last, ".") || bare && (last == "run" || last == "call")):
		default:
			continue
		}
		if osExec {
			// os.execv(path, args), os.spawnv(mode, path, args): the
			// argument vector is the last list.
			if cmd := pyCommand(code, toks, lastListArg(code, c.args), c.at); cmd != "" {
				out = append(out, cmd)
			}
		}
		if cmd := pyCommand(code, toks, c.args, c.at); cmd != "" {
			out = append(out, cmd)
		}
	}
	return out
}

// osProcess reports os's exec and spawn functions (execv, execlpe,
// spawnvp, …).
func osProcess(f string) bool {
	rest := strings.TrimPrefix(strings.TrimPrefix(f, "exec"), "spawn")
	return rest != f && len(rest) >= 1 && len(rest) <= 3 && (rest[0] == 'l' || rest[0] == 'v') && strings.Trim(rest[1:], "pe") == ""
}

// lastListArg is where the last list argument of the call whose
// arguments start at i begins.
func lastListArg(code string, i int) int {
	depth, at := 0, i
	for j := i; j < len(code); j++ {
		switch code[j] {
		case '(', '[', '{':
			if depth == 0 && code[j] == '[' {
				at = j
			}
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return at
			}
			depth--
		case '\'', '"':
			if _, end, ok := pyString(code, j); ok {
				j = end - 1
			}
		}
	}
	return at
}

// pyCommand is the command line of the Python expression at i, when it
// is a literal command: a string, a list of literals whose first word is
// a literal, or a name assigned one of these before pos.
func pyCommand(code string, toks []pylex.Token, i, pos int) string {
	i = skipSpace(code, i)
	if i >= len(code) {
		return ""
	}
	for _, wrap := range []string{"shlex.split(", "\" \".join(", "' '.join("} {
		if strings.HasPrefix(code[i:], wrap) {
			i = skipSpace(code, i+len(wrap))
		}
	}
	switch {
	case i < len(code) && (code[i] == '[' || code[i] == '('):
		return pyVector(code, i+1)
	case pyStringStart(code, i):
		s, _, ok := pyString(code, i)
		if !ok || strings.TrimSpace(s) == "" {
			return ""
		}
		if strings.ContainsAny(strings.TrimSpace(s), " \t\n") {
			return s
		}
		return shellQuote(strings.TrimSpace(s))
	}
	name := identAt(code, i)
	if name == "" || name == "sys" {
		return ""
	}
	// The last assignment of name before the call, strictly before it so
	// that cmd = cmd + [...] ends.
	if at := assignedAt(code, toks, name, pos); at >= 0 {
		return pyCommand(code, toks, at, at)
	}
	return ""
}

// assignedAt is where the value of the last statement before pos that
// assigns name (name = …, name: T = …) starts, or -1.
func assignedAt(code string, toks []pylex.Token, name string, pos int) int {
	best := -1
	for k := 0; k+1 < len(toks) && toks[k].Off < pos; k++ {
		t := toks[k]
		if t.Kind != pylex.Name || !t.Is(code, pylex.Name, name) {
			continue
		}
		if k > 0 && toks[k-1].Kind != pylex.Newline && toks[k-1].Kind != pylex.Indent && toks[k-1].Kind != pylex.Dedent && !toks[k-1].Is(code, pylex.Op, ";") {
			continue
		}
		e := k + 1
		if toks[e].Is(code, pylex.Op, ":") {
			// an annotation: name: T = value
			for e < len(toks) && toks[e].Kind != pylex.Newline && !(toks[e].Is(code, pylex.Op, "=") && toks[e].Depth == t.Depth) {
				e++
			}
		}
		if e+1 < len(toks) && toks[e].Is(code, pylex.Op, "=") && toks[e+1].Off < pos {
			best = toks[e+1].Off
		}
	}
	return best
}

// pyVector is the command line of a list of literals starting at i
// (after the bracket), up to the first element that is not a literal;
// sys.executable is the word python.
func pyVector(code string, i int) string {
	var words []string
	for {
		i = skipSpace(code, i)
		switch {
		case i >= len(code):
		case strings.HasPrefix(code[i:], "sys.executable"):
			words = append(words, "python")
			i += len("sys.executable")
			i = skipSpace(code, i)
			if i < len(code) && code[i] == ',' {
				i++
				continue
			}
		case pyStringStart(code, i):
			s, end, ok := pyString(code, i)
			if !ok {
				break
			}
			j := skipSpace(code, end)
			if j < len(code) && code[j] != ',' && code[j] != ']' && code[j] != ')' {
				break // "a" + b: not a literal
			}
			words = append(words, shellQuote(s))
			if j < len(code) && code[j] == ',' {
				i = j + 1
				continue
			}
		}
		break
	}
	if len(words) == 0 {
		return ""
	}
	return strings.Join(words, " ")
}

// execCalls lists, as command lines, the Python files and modules that
// exec, runpy and importlib calls run when a literal names them:
// exec(open(…)), exec(compile(open(…))), execfile, runpy.run_path,
// spec_from_file_location, SourceFileLoader and load_source (the path
// is their second argument), run_module, import_module and __import__.
func execCalls(code string) []string {
	var out []string
	if !containsAny(code, []string{"exec", "run_path", "run_module", "import_module", "__import__", "spec_from_file_location", "SourceFileLoader", "load_source"}) {
		return nil
	}
	toks := pylex.Tokens(code)
	calls := pyCalls(code, toks)
	for n, c := range calls {
		_, last := lastParts(c.name)
		arg := c.open + 1 // the token of the first argument
		module := false
		switch last {
		case "exec":
			// exec(open(…)) or exec(compile(open(…)…))
			k := n + 1
			if k < len(calls) && calls[k].tok == arg && calls[k].name == "compile" {
				arg, k = calls[k].open+1, k+1
			}
			if k >= len(calls) || calls[k].tok != arg || calls[k].name != "open" {
				continue
			}
			arg = calls[k].open + 1
		case "execfile", "run_path":
		case "spec_from_file_location", "SourceFileLoader", "load_source":
			// the second argument
			k := arg
			for k < len(toks) && !(toks[k].Is(code, pylex.Op, ",") && toks[k].Depth == toks[c.open].Depth+1) && !(toks[k].Is(code, pylex.Op, ")") && toks[k].Depth == toks[c.open].Depth) {
				k++
			}
			if k >= len(toks) || !toks[k].Is(code, pylex.Op, ",") {
				continue
			}
			arg = k + 1
		case "run_module", "import_module", "__import__":
			module = true
		default:
			continue
		}
		if arg >= len(toks) || toks[arg].Kind != pylex.String {
			continue
		}
		s, _, ok := pyString(code, toks[arg].Off)
		if !ok || s == "" || strings.ContainsAny(s, " \t\n") {
			continue
		}
		switch {
		case module:
			if moduleName(s) {
				out = append(out, "python -m "+shellQuote(s))
			}
		default:
			out = append(out, "python "+shellQuote(s))
		}
	}
	return out
}

func skipSpace(code string, i int) int {
	for i < len(code) && strings.IndexByte(" \t\r\n\\", code[i]) >= 0 {
		i++
	}
	return i
}

func identAt(code string, i int) string {
	j := i
	for j < len(code) && (code[j] == '_' || 'a' <= code[j]|0x20 && code[j]|0x20 <= 'z' || j > i && '0' <= code[j] && code[j] <= '9') {
		j++
	}
	return code[i:j]
}

// pyStringStart reports a string literal at i, with its prefix (f, r, b,
// u and their pairs).
func pyStringStart(code string, i int) bool { return pylex.IsStringStart(code, i) }

// pyString reads the string literal at i: its value (escapes resolved
// except in raw strings; an f-string's fields are kept as written) and
// where it ends. ok is false when it is not closed.
func pyString(code string, i int) (string, int, bool) {
	t, ok := pylex.StringAt(code, i)
	if !ok || t.Flags&pylex.Unterminated != 0 {
		return "", t.End, false
	}
	return pylex.Value(code, t), t.End, true
}

// pyLiterals lists the string literals of Python code with their values,
// and sys.executable, the interpreter itself, as the word python.
func pyLiterals(code string) []lit {
	var out []lit
	l := pylex.New(code)
	var p1, p2 pylex.Token // the two tokens before
	for t := l.Next(); t.Kind != pylex.EOF; p2, p1, t = p1, t, l.Next() {
		switch {
		case t.Kind == pylex.String:
			out = append(out, lit{text: pylex.Value(code, t), start: t.Off, end: t.End})
		case t.Is(code, pylex.Name, "executable") && p1.Is(code, pylex.Op, ".") && p2.Is(code, pylex.Name, "sys"):
			out = append(out, lit{text: "python", start: p2.Off, end: t.End})
		}
	}
	return out
}

// A pyImport is one module a Python file imports, and the names it takes
// from it: those of from … import, or the attributes the code reads from
// the module's name.
type pyImport struct {
	module  string
	names   []string
	aliases []string // the name each of names is bound to (from … import a as b)
	bare    bool     // import M with no attribute read: for its effect alone
}

// pyImports lists the modules the import statements of stmts import, and
// the names read from them in code.
func pyImports(stmts, code string) []pyImport {
	var out []pyImport
	rest, used := "", false // code without its imports, once needed
	for _, line := range logicalLines(stmts) {
		for _, st := range strings.Split(line, ";") {
			st = strings.TrimSpace(st)
			switch {
			case strings.HasPrefix(st, "from "):
				f := strings.Fields(strings.NewReplacer("(", " ", ")", " ", ",", " , ", "\\", " ").Replace(st))
				if len(f) < 4 || f[2] != "import" {
					continue
				}
				imp := pyImport{module: f[1]}
				for k := 3; k < len(f); k++ {
					if f[k] == "," {
						continue
					}
					alias := f[k]
					if k+2 < len(f) && f[k+1] == "as" {
						alias = f[k+2]
					}
					imp.names = append(imp.names, f[k])
					imp.aliases = append(imp.aliases, alias)
					for k+1 < len(f) && f[k+1] != "," {
						k++
					}
				}
				out = append(out, imp)
			case strings.HasPrefix(st, "import "):
				for _, part := range strings.Split(st[len("import "):], ",") {
					f := strings.Fields(part)
					if len(f) == 0 || !moduleName(f[0]) {
						continue
					}
					alias := f[0]
					if len(f) == 3 && f[1] == "as" {
						alias = f[2]
					}
					imp := pyImport{module: f[0], names: attributes(code, alias)}
					// import m as x … f(x): the module is used as a value,
					// not imported for its effect alone.
					if len(imp.names) == 0 && alias != f[0] && !used {
						rest, used = nonImports(code), true
					}
					imp.bare = len(imp.names) == 0 && (alias == f[0] || !mentions(rest, alias))
					// import pkg … pkg.sub.main(): the names read from
					// pkg.sub are read through the alias.
					for _, n := range imp.names {
						imp.aliases = append(imp.aliases, alias+"."+n)
					}
					out = append(out, imp)
				}
			}
		}
	}
	return out
}

// nonImports is code without its import statements.
func nonImports(code string) string {
	var b strings.Builder
	for _, line := range logicalLines(code) {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "from ") && !strings.HasPrefix(t, "import ") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// attributes lists the attributes code reads from a name (train.main).
func attributes(code, name string) []string {
	var out []string
	for i := 0; ; {
		j := strings.Index(code[i:], name+".")
		if j < 0 {
			return out
		}
		j += i
		i = j + len(name) + 1
		if j > 0 && (wordByte(code[j-1]) || code[j-1] == '.') {
			continue
		}
		if attr := identAt(code, i); attr != "" {
			out = append(out, attr)
		}
	}
}

func moduleName(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") == ""
}

// entryName reports a name that starts a trainer when called: everything
// (*), or a function whose name starts with main, run, train, fit, learn,
// start or launch, or ends in train, trainer or training (run_ppo,
// train_one_epoch, get_trainer), unless it evaluates or tests. Classes and
// helpers (Policy, make_env, compute_grpo_advantage) do not.
func entryName(n string) bool {
	if n == "*" {
		return true
	}
	if n == "" || n[0] < 'a' || n[0] > 'z' {
		return false
	}
	words := nameWords(n)
	for _, w := range words {
		switch w {
		case "eval", "evaluate", "evaluation", "test", "validate", "validation":
			return false
		}
	}
	switch words[0] {
	case "main", "run", "train", "training", "fit", "learn", "start", "launch", "cli", "app":
		return true
	}
	return trainWord(words[len(words)-1])
}

// imports follows the modules Python code imports. A module named for
// training runs the trainer when the code imports it for its effect
// alone, takes an entry point from it (from train import main), or when
// the module's own file, found in dirs, trains at import time; a class
// or helper taken from it (from train import Policy) runs nothing. A
// module found in dirs is followed: the code it runs at import time, and
// the functions taken from it.
// The attributes read from a module are looked for in all of code.
//
// In a file (called), a name taken with from … import counts only when
// the code that may run uses it beyond the import: a module that
// imports the trainer's entry point for a function nobody calls (a
// test importing helpers from a trainer script) runs nothing by it.
func (a *analyzer) imports(stmts, code string, dirs []string, sc *scope, depth int, called bool) {
	uses, usesRead := "", false
	for _, imp := range pyImports(stmts, code) {
		mod := imp.module
		base := dirs
		if strings.HasPrefix(mod, ".") {
			// A relative import, from the file's own package.
			if len(dirs) == 0 || dirs[0] == "" {
				continue
			}
			d := dirs[0]
			trimmed := strings.TrimLeft(mod, ".")
			for k := 1; k < len(mod)-len(trimmed); k++ {
				d = filepath.Dir(d)
			}
			base, mod = []string{d}, trimmed
		}
		var names []string
		var subs []pyImport
		for k, n := range imp.names {
			// from pkg import module: the module itself is imported, and
			// the code reads names from it.
			if mod == "" || a.localModule(mod+"."+n, base) != "" {
				attrs := attributes(code, imp.aliases[k])
				subs = append(subs, pyImport{module: strings.TrimPrefix(mod+"."+n, "."), names: attrs, bare: len(attrs) == 0})
				continue
			}
			if called && !imp.bare && k < len(imp.aliases) && n != "*" {
				if !usesRead {
					uses, usesRead = nonImports(stmts), true
				}
				if !mentions(uses, imp.aliases[k]) {
					continue
				}
			}
			names = append(names, n)
		}
		for _, s := range subs {
			a.importModule(s.module, s.names, s.bare, base, sc, depth)
		}
		if mod != "" && (len(subs) == 0 || len(names) > 0) {
			a.importModule(mod, names, imp.bare, base, sc, depth)
		}
	}
}

// importModule follows one module imported with names taken from it.
func (a *analyzer) importModule(mod string, names []string, bare bool, dirs []string, sc *scope, depth int) {
	file := a.localModule(mod, dirs)
	trainer := trainerName(strings.Split(mod, "."))
	entry := bare
	for _, n := range names {
		entry = entry || entryName(n)
	}
	if trainer && entry {
		a.source("python -m "+shellQuote(mod), depth, sc)
		return
	}
	if file == "" || a.read[file] {
		return
	}
	text, state := a.readScript(file)
	if state != fileText {
		return
	}
	inner := sc.with(sc.dirs)
	inner.fromDisk = true
	inner.via = chain(sc.via, "it imports "+mod+" ("+shownPath(file, sc.dirs)+")")
	if trainer && trainsOnImport(text) {
		a.source("python -m "+shellQuote(mod), depth, inner)
		return
	}
	a.python(text, file, names, false, inner, depth+1)
}

// localModule is the file of a module found under one of dirs, or "".
// What a directory holds is remembered: a file imports the same packages
// (torch, numpy) as the next, and most are not there.
func (a *analyzer) localModule(mod string, dirs []string) string {
	rel := filepath.FromSlash(strings.ReplaceAll(mod, ".", "/"))
	top, _, _ := strings.Cut(mod, ".")
	for _, d := range dirs {
		if d == "" || !a.exists(filepath.Join(d, top)) && !a.exists(filepath.Join(d, top+".py")) {
			continue
		}
		for _, p := range []string{filepath.Join(d, rel+".py"), filepath.Join(d, rel, "__init__.py")} {
			if a.exists(p) {
				return p
			}
		}
	}
	return ""
}

// exists reports a path that exists, remembered for the decision.
func (a *analyzer) exists(p string) bool {
	if ok, seen := a.stats[p]; seen {
		return ok
	}
	_, err := os.Stat(p)
	if a.stats == nil {
		a.stats = map[string]bool{}
	}
	a.stats[p] = err == nil
	return err == nil
}

// trainsOnImport reports a Python file that does work when imported:
// a call or a loop among its top-level statements, not only imports,
// definitions, assignments and a main block.
func trainsOnImport(text string) bool {
	for _, bl := range pyBlocks(text) {
		if bl.name != "" || bl.main {
			continue
		}
		t := strings.TrimSpace(bl.text)
		if strings.HasPrefix(t, "for ") || strings.HasPrefix(t, "while ") || strings.HasPrefix(t, "with ") || callStatement(t) {
			return true
		}
	}
	return false
}

// callStatement reports a statement that is a call: main(), trainer.fit().
func callStatement(s string) bool {
	i := 0
	for i < len(s) && (s[i] == '_' || s[i] == '.' || 'a' <= s[i]|0x20 && s[i]|0x20 <= 'z' || '0' <= s[i] && s[i] <= '9') {
		i++
	}
	return i > 0 && i < len(s) && s[i] == '('
}

// A pyBlock is one top-level statement of a Python file with its body:
// a definition (name set), an if __name__ == "__main__" block, or other
// code run on import.
type pyBlock struct {
	name string
	main bool
	text string
}

// pyBlocks splits a Python file into its top-level statements.
func pyBlocks(text string) []pyBlock {
	var out []pyBlock
	var lines [][]string
	decorated := []string(nil)
	for _, line := range logicalLines(text) {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if len(lines) > 0 {
				lines[len(lines)-1] = append(lines[len(lines)-1], line)
			}
			continue
		}
		if strings.HasPrefix(trimmed, "@") {
			decorated = append(decorated, line)
			continue
		}
		var b pyBlock
		t := strings.TrimPrefix(trimmed, "async ")
		switch {
		case strings.HasPrefix(t, "def ") || strings.HasPrefix(t, "class "):
			_, rest, _ := strings.Cut(t, " ")
			b.name = identAt(strings.TrimSpace(rest), 0)
		case strings.HasPrefix(t, "if __name__"):
			b.main = true
		}
		out = append(out, b)
		lines = append(lines, append(decorated, line))
		decorated = nil
	}
	for i := range out {
		out[i].text = strings.Join(lines[i], "\n") + "\n"
	}
	return out
}

// reachable is the part of a Python file that may run: the code it runs
// on import (and its main block, when it runs as a program), the
// functions and classes named in roots, and, over and over, every
// function or class that code names.
func reachable(text string, roots []string, main bool) string {
	blocks := pyBlocks(text)
	in := make([]bool, len(blocks))
	var b strings.Builder
	for i, bl := range blocks {
		if bl.name == "" && (main || !bl.main) {
			in[i] = true
			b.WriteString(bl.text)
		}
	}
	named := " " + strings.Join(roots, " ") + " "
	for changed := true; changed; {
		changed = false
		code := b.String()
		for i, bl := range blocks {
			if in[i] || bl.name == "" {
				continue
			}
			if strings.Contains(named, " "+bl.name+" ") || mentions(code, bl.name) {
				in[i], changed = true, true
				b.WriteString(bl.text)
			}
		}
	}
	return b.String()
}

// mentions reports name as a whole word in code.
func mentions(code, name string) bool {
	for i := 0; ; {
		j := strings.Index(code[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !wordByte(code[j-1])) && (end == len(code) || !wordByte(code[end])) {
			return true
		}
		i = j + 1
	}
}

func wordByte(c byte) bool {
	return c == '_' || 'a' <= c|0x20 && c|0x20 <= 'z' || '0' <= c && c <= '9'
}

// logicalLines splits Python source into its logical lines, each from
// the start of its first line (its indentation) to its end; comments are
// left out.
func logicalLines(text string) []string {
	var out []string
	var cur strings.Builder
	l := pylex.New(text)
	l.KeepComments = true
	start, seg := -1, 0 // where the line and the text not yet copied start
	for t := l.Next(); t.Kind != pylex.EOF; t = l.Next() {
		switch t.Kind {
		case pylex.Indent, pylex.Dedent:
		case pylex.Comment:
			if start >= 0 {
				cur.WriteString(text[seg:t.Off])
				seg = t.End
			}
		case pylex.Newline:
			if start >= 0 {
				cur.WriteString(text[seg:t.Off])
				out = append(out, cur.String())
				cur.Reset()
				start = -1
			}
		default:
			if start < 0 {
				start = strings.LastIndexByte(text[:t.Off], '\n') + 1
				seg = start
			}
		}
	}
	return out
}
