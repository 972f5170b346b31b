package guard

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds how many nested shell strings (bash -c, eval, ssh, tmux)
// the guard follows; a deeper command is denied.
const maxDepth = 8

// A call is one simple command as it runs, after wrappers such as env,
// nohup or uv run are peeled off.
type call struct {
	env   map[string]string // NAME=VALUE assignments in effect
	argv  []string          // the words that run, expanded as bash expands them
	exact []bool            // argv[i] is what runs; false: an expansion the guard cannot resolve, kept as written
	text  string            // the command as written, for messages
	dirs  []string          // where it may run: every directory a cd before it may have moved to
	stdin input             // what it reads on standard input
	// open says that more arguments come from input the guard does not
	// see (xargs, find -exec {}, parallel).
	open bool
	// script says that argv[0] is a script a shell runs, not a program
	// looked up on PATH.
	script bool
	// opaqueWhy, when set, says what runs is argv[0], which the guard
	// cannot resolve or read.
	opaqueWhy string
	// via says how the command the agent wrote comes to run this one (a
	// Makefile recipe, inline code, a copy made earlier); "" when it is
	// the command itself.
	via string
	// fromDisk says the command is in a file read from disk: a word there
	// that the guard cannot resolve is judged by what it says (below).
	fromDisk bool
}

// An input is what a command reads on its standard input.
type input struct {
	kind inputKind
	text string // inText: the text itself (a here-document, echo's words)
	path string // inFile: the file, as written
}

type inputKind int

const (
	inNone    inputKind = iota // the terminal, or nothing
	inText                     // known text
	inFile                     // a file
	inUnknown                  // the output of a command the guard cannot read
)

// A write is a file a redirection writes.
type write struct {
	path  string
	exact bool
	dirs  []string
	text  string
	via   string // how the command line comes to write it (call.via)
}

// An analyzer turns shell source into the simple commands it runs.
type analyzer struct {
	cmds    []call
	writes  []write
	tooDeep string // the first source nested beyond maxDepth (or beyond maxParsed in all)
	parsed  int    // bytes of source parsed so far
	home    string // $HOME, for ~
	// files are the files the command line writes before it may run
	// them, by absolute path: what each holds, as far as the guard can
	// tell.
	files map[string]*origin
	// read are the files read from disk so far, by absolute path.
	read  map[string]bool
	stats map[string]bool // whether a path exists, by absolute path
	// making are the makefile runs being followed (makeInvocation.key).
	making map[string]bool
	// settled reports a command whose verdict does not hang on what its
	// files hold (the declared preflight, a script guard.allow names):
	// they are not read.
	settled func(c call) bool
	// noDisk reads no file: a template is compiled from its own words,
	// and reading what it runs on every decision would cost the hook
	// more than the decision.
	noDisk bool
}

// A scope is what a command inherits from the shell that runs it.
type scope struct {
	vars  map[string]string // variables the guard knows the value of
	dirs  []string          // candidate working directories; "" is one the guard cannot tell
	stdin input
	// marks are words standing for arguments filled in later ({} of
	// find -exec and parallel, xargs -I's replace string): a word that
	// holds one is not exact.
	marks []string
	via   string // how the commands of this scope come to run (call.via)
	// fromDisk: the commands are in a file read from disk (call.fromDisk).
	fromDisk bool
}

func (s *scope) clone() *scope {
	c := *s
	c.vars = make(map[string]string, len(s.vars))
	for k, v := range s.vars {
		c.vars[k] = v
	}
	c.dirs = append([]string(nil), s.dirs...)
	return &c
}

// chdir adds a directory the shell may have moved to. The earlier ones
// stay candidates: cd may fail, and a subshell's cd does not last, so
// the guard judges later commands in all of them.
func (s *scope) chdir(dir string) {
	for _, d := range s.dirs {
		if d == dir {
			return
		}
	}
	s.dirs = append(s.dirs, dir)
}

// source analyses shell source: every simple command in it, including
// those in pipelines, lists, subshells, command substitutions, functions
// and control flow. Source that does not parse as bash is split on the
// shell's operators instead, so that a launch inside it is still seen.
func (a *analyzer) source(src string, depth int, sc *scope) {
	a.parsed += len(src)
	if depth > maxDepth || bracketDepth(src) > maxBrackets || a.parsed > maxParsed {
		if a.tooDeep == "" {
			a.tooDeep = src
		}
		return
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		a.fallback(src, depth, sc)
		return
	}
	w := &walker{a: a, src: src, depth: depth}
	w.stmts(f.Stmts, sc)
}

// maxParsed bounds the shell source one decision parses, nested sources
// (inline code, recipes, scripts written earlier) included, so that the
// hook answers in time whatever the command.
const maxParsed = 32 << 20

// A walker walks one parsed source.
type walker struct {
	a     *analyzer
	src   string
	depth int
}

func (w *walker) stmts(list []*syntax.Stmt, sc *scope) {
	for _, s := range list {
		w.stmt(s, sc, sc.stdin)
	}
}

// stmt walks one statement whose standard input is in.
func (w *walker) stmt(s *syntax.Stmt, sc *scope, in input) {
	if s == nil {
		return
	}
	type out struct {
		path string
		app  bool
	}
	var outs []out
	for _, r := range s.Redirs {
		w.substs(r.Word, sc)
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.ClbOut, syntax.RdrInOut:
			if r.Word != nil {
				f, ok := w.fields(r.Word, sc)
				for _, p := range f {
					w.a.writes = append(w.a.writes, write{path: p, exact: ok, dirs: sc.dirs, text: w.span(s.Pos(), s.End()), via: sc.via})
					if ok && (r.N == nil || r.N.Value == "1") && r.Op != syntax.RdrInOut {
						outs = append(outs, out{p, r.Op == syntax.AppOut || r.Op == syntax.AppAll})
					}
				}
			}
		}
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch {
		case r.Op == syntax.RdrIn && r.Word != nil:
			if f, ok := w.fields(r.Word, sc); ok && len(f) == 1 {
				in = input{kind: inFile, path: f[0]}
			} else {
				in = input{kind: inUnknown}
			}
		case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil:
			w.substs(r.Hdoc, sc)
			in = input{kind: inText, text: w.span(r.Hdoc.Pos(), r.Hdoc.End())}
		case r.Op == syntax.WordHdoc && r.Word != nil:
			if f, ok := w.fields(r.Word, sc); ok {
				in = input{kind: inText, text: strings.Join(f, " ")}
			} else {
				in = input{kind: inUnknown}
			}
		}
	}
	if len(outs) > 0 {
		// A file written here may be run later in the line.
		o := w.content(s, sc, in)
		for _, x := range outs {
			w.a.record(x.path, o, sc.dirs, x.app)
		}
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		w.callExpr(c, sc, in)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			w.stmt(c.X, sc, in)
			w.stmt(c.Y, sc, w.piped(c.X, sc))
			return
		}
		w.stmt(c.X, sc, in)
		w.stmt(c.Y, sc, in)
	case *syntax.Subshell:
		inner := sc.clone()
		inner.stdin = in
		w.stmts(c.Stmts, inner)
	case *syntax.Block:
		w.stmts(c.Stmts, sc)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			w.stmts(ic.Cond, sc)
			w.stmts(ic.Then, sc)
		}
	case *syntax.WhileClause:
		w.stmts(c.Cond, sc)
		w.stmts(c.Do, sc)
	case *syntax.ForClause:
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			for _, x := range l.Items {
				w.substs(x, sc)
			}
			delete(sc.vars, l.Name.Value)
		case *syntax.CStyleLoop:
			w.substs(l, sc)
		}
		w.stmts(c.Do, sc)
	case *syntax.CaseClause:
		w.substs(c.Word, sc)
		for _, it := range c.Items {
			w.stmts(it.Stmts, sc)
		}
	case *syntax.FuncDecl:
		w.stmt(c.Body, sc, in)
	case *syntax.DeclClause:
		for _, as := range c.Args {
			w.assign(as, sc)
		}
	case *syntax.TimeClause:
		w.stmt(c.Stmt, sc, in)
	case *syntax.CoprocClause:
		w.stmt(c.Stmt, sc, in)
	case nil:
	default:
		w.substs(c, sc)
	}
}

// piped is what the statement x writes to a pipe, as far as the guard can
// tell: the words of echo or printf, or the file cat reads.
func (w *walker) piped(x *syntax.Stmt, sc *scope) input {
	ce, ok := x.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return input{kind: inUnknown}
	}
	if len(x.Redirs) > 0 {
		// cat <<EOF | sh: the here-document goes down the pipe.
		if len(ce.Args) == 1 && len(x.Redirs) == 1 && (x.Redirs[0].Op == syntax.Hdoc || x.Redirs[0].Op == syntax.DashHdoc) && x.Redirs[0].Hdoc != nil {
			if argv, _ := w.words(ce.Args, sc); argv[0] == "cat" {
				return input{kind: inText, text: w.span(x.Redirs[0].Hdoc.Pos(), x.Redirs[0].Hdoc.End())}
			}
		}
		return input{kind: inUnknown}
	}
	return w.emits(ce, sc)
}

// emits is what a simple command writes, as far as the guard can tell:
// the words of echo or printf, or the file cat reads.
func (w *walker) emits(ce *syntax.CallExpr, sc *scope) input {
	argv, exact := w.words(ce.Args, sc)
	for _, e := range exact {
		if !e {
			return input{kind: inUnknown}
		}
	}
	switch filepath.Base(argv[0]) {
	case "echo":
		args := argv[1:]
		for len(args) > 0 && (args[0] == "-n" || args[0] == "-e" || args[0] == "-E") {
			args = args[1:]
		}
		return input{kind: inText, text: strings.Join(args, " ")}
	case "printf":
		if text, ok := printf(argv[1:]); ok {
			return input{kind: inText, text: text}
		}
	case "cat":
		if len(argv) == 2 && !strings.HasPrefix(argv[1], "-") {
			return input{kind: inFile, path: argv[1]}
		}
	}
	return input{kind: inUnknown}
}

// callExpr walks a simple command: its assignments, its words, and the
// command itself.
func (w *walker) callExpr(c *syntax.CallExpr, sc *scope, in input) {
	if len(c.Args) == 0 {
		for _, as := range c.Assigns {
			w.assign(as, sc)
		}
		return
	}
	env := map[string]string{}
	for _, as := range c.Assigns {
		if as.Name != nil && as.Value != nil {
			w.substs(as.Value, sc)
			env[as.Name.Value] = wordText(w.src, as.Value)
		}
	}
	for _, x := range c.Args {
		w.substs(x, sc)
	}
	argv, exact := w.words(c.Args, sc)
	if len(argv) == 0 {
		return
	}
	text := w.span(c.Pos(), c.End())
	inner := *sc
	inner.stdin = in
	w.a.run(env, argv, exact, text, &inner, w.depth)
	// cd and pushd move the shell for the commands after them.
	if name := filepath.Base(argv[0]); name == "cd" || name == "pushd" {
		args := argv[1:]
		ex := exact[1:]
		for len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-" {
			args, ex = args[1:], ex[1:]
		}
		switch {
		case len(args) == 0:
			sc.chdir(w.a.home)
		case len(args) == 1 && ex[0] && args[0] != "-":
			for _, d := range append([]string(nil), sc.dirs...) {
				if d != "" || filepath.IsAbs(args[0]) {
					sc.chdir(resolve(args[0], d))
				}
			}
		default:
			sc.chdir("")
		}
	}
}

// assign records a variable assignment: its value when the guard can
// resolve it, else that the variable is unknown.
func (w *walker) assign(as *syntax.Assign, sc *scope) {
	if as == nil || as.Name == nil {
		return
	}
	if as.Value == nil {
		if as.Array != nil || as.Naked {
			delete(sc.vars, as.Name.Value)
		}
		return
	}
	w.substs(as.Value, sc)
	v, ok := w.literal(as.Value, sc)
	if !ok || as.Append {
		delete(sc.vars, as.Name.Value)
		return
	}
	sc.vars[as.Name.Value] = v
}

// substs walks the commands that command and process substitutions inside
// a node run.
func (w *walker) substs(n syntax.Node, sc *scope) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			inner := sc.clone()
			inner.stdin = input{}
			w.stmts(n.Stmts, inner)
			return false
		case *syntax.ProcSubst:
			inner := sc.clone()
			inner.stdin = input{kind: inUnknown}
			w.stmts(n.Stmts, inner)
			return false
		}
		return true
	})
}

func (w *walker) span(from, to syntax.Pos) string { return span(w.src, from, to) }

// maxBrackets bounds the nesting of brackets the shell parser is given:
// it recurses once per level, and a deep enough nest would exhaust the
// stack, which no program can recover from. Real commands stay far below.
const maxBrackets = 64

// bracketDepth is the deepest nesting of ( { [ in src, quotes ignored:
// an overestimate is harmless next to maxBrackets.
func bracketDepth(src string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '{', '[':
			depth++
			deepest = max(deepest, depth)
		case ')', '}', ']':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

// fallback splits source the parser rejected on the shell's operators and
// removes quotes: rough, but it sees the words a launch is made of. A
// word with an expansion left in it is not exact.
func (a *analyzer) fallback(src string, depth int, sc *scope) {
	unquote := strings.NewReplacer(`"`, "", `'`, "", `\`, "")
	for _, seg := range strings.FieldsFunc(src, func(r rune) bool { return strings.ContainsRune(";&|()`\n<>", r) }) {
		words := strings.Fields(unquote.Replace(seg))
		if len(words) == 0 {
			continue
		}
		exact := make([]bool, len(words))
		for i, x := range words {
			exact[i] = !strings.ContainsAny(x, "$*?[{~")
		}
		inner := *sc
		inner.stdin = input{kind: inUnknown}
		a.run(map[string]string{}, words, exact, strings.TrimSpace(seg), &inner, depth)
	}
}

// printf is what printf prints for a format whose only conversions are
// %s and %b (the format is reused while arguments remain, as printf does).
func printf(args []string) (string, bool) {
	if len(args) == 0 || args[0] == "-v" {
		return "", false
	}
	format, args := args[0], args[1:]
	if strings.Count(format, "%") != strings.Count(format, "%s")+strings.Count(format, "%b")+2*strings.Count(format, "%%") {
		return "", false
	}
	esc := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`)
	var b strings.Builder
	for first := true; first || len(args) > 0; first = false {
		rest := format
		for {
			i := strings.IndexByte(rest, '%')
			if i < 0 || i+1 >= len(rest) {
				b.WriteString(esc.Replace(rest))
				break
			}
			b.WriteString(esc.Replace(rest[:i]))
			if rest[i+1] == '%' {
				b.WriteByte('%')
			} else if len(args) > 0 {
				b.WriteString(args[0])
				args = args[1:]
			}
			rest = rest[i+2:]
		}
		if !strings.Contains(format, "%s") && !strings.Contains(format, "%b") {
			break
		}
	}
	return b.String(), true
}

// assignment splits a NAME=VALUE word.
func assignment(w string) (string, string, bool) {
	k, v, ok := strings.Cut(w, "=")
	if !ok || k == "" {
		return "", "", false
	}
	for i, r := range k {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return "", "", false
		}
	}
	return k, v, true
}

// wordText is a word as written with quotes removed and escapes resolved;
// expansions ($VAR, $(...)) stay as written, so that
// "${CLAUDE_PLUGIN_ROOT}/scripts/rlxp" still ends in /rlxp.
func wordText(src string, w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		partText(&b, src, p, false)
	}
	return b.String()
}

func partText(b *strings.Builder, src string, p syntax.WordPart, quoted bool) {
	switch p := p.(type) {
	case *syntax.Lit:
		b.WriteString(unescape(p.Value, quoted))
	case *syntax.SglQuoted:
		b.WriteString(p.Value)
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			partText(b, src, q, true)
		}
	default:
		b.WriteString(span(src, p.Pos(), p.End()))
	}
}

// unescape resolves backslashes in a literal: every escape outside quotes,
// and inside double quotes only those bash resolves there.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		next := s[i+1]
		switch {
		case next == '\n':
			i++
		case !quoted || strings.IndexByte("$`\"\\", next) >= 0:
			b.WriteByte(next)
			i++
		default:
			b.WriteByte('\\')
		}
	}
	return b.String()
}

// span is the source between two positions.
func span(src string, from, to syntax.Pos) string {
	i, j := int(from.Offset()), int(to.Offset())
	if i < 0 || j > len(src) || i > j {
		return ""
	}
	return src[i:j]
}

// A Command is one simple command that shell source runs, after wrappers
// (env, nohup, uv run, bash -c '...') are peeled off.
type Command struct {
	Env  map[string]string // NAME=VALUE assignments in effect
	Argv []string          // the words that run, quotes removed
	Text string            // the command as written
}

// Commands lists the simple commands shell source runs, seen the way the
// guard sees a command line; the audit reads runner scripts with it.
func Commands(src string) []Command {
	// The scripts a runner script runs are read by the audit on its own.
	a := analyzer{settled: func(call) bool { return true }}
	a.source(src, 0, &scope{vars: map[string]string{}, dirs: []string{""}})
	out := make([]Command, len(a.cmds))
	for i, c := range a.cmds {
		out[i] = Command{Env: c.env, Argv: c.argv, Text: c.text}
	}
	return out
}
