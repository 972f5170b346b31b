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
	env  map[string]string // NAME=VALUE assignments in effect
	argv []string          // the words that run, quotes removed
	text string            // the command as written, for messages
}

// An analyzer turns shell source into the simple commands it runs.
type analyzer struct {
	cmds    []call
	tooDeep string // the first source nested beyond maxDepth
}

// source analyses shell source: every simple command in it, including
// those in pipelines, lists, subshells, command substitutions, functions
// and control flow. Source that does not parse as bash is split on the
// shell's operators instead, so that a launch inside it is still seen.
func (a *analyzer) source(src string, depth int) {
	if depth > maxDepth || bracketDepth(src) > maxBrackets {
		if a.tooDeep == "" {
			a.tooDeep = src
		}
		return
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(src), "")
	if err != nil {
		a.fallback(src, depth)
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		if ce, ok := st.Cmd.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
			env := map[string]string{}
			for _, as := range ce.Assigns {
				if as.Name != nil && as.Value != nil {
					env[as.Name.Value] = wordText(src, as.Value)
				}
			}
			args := make([]string, len(ce.Args))
			for i, w := range ce.Args {
				args[i] = wordText(src, w)
			}
			a.run(env, args, span(src, ce.Pos(), ce.End()), stdinText(src, st.Redirs), depth)
		}
		return true
	})
}

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
// removes quotes: rough, but it sees the words a launch is made of.
func (a *analyzer) fallback(src string, depth int) {
	unquote := strings.NewReplacer(`"`, "", `'`, "", `\`, "")
	for _, seg := range strings.FieldsFunc(src, func(r rune) bool { return strings.ContainsRune(";&|()`\n", r) }) {
		if words := strings.Fields(unquote.Replace(seg)); len(words) > 0 {
			a.run(map[string]string{}, words, strings.TrimSpace(seg), "", depth)
		}
	}
}

// run peels assignments, wrappers and shells off one simple command and
// records what is left. stdin is the text of a here-document or here-string
// the command reads, for a shell that runs it.
func (a *analyzer) run(env map[string]string, args []string, text, stdin string, depth int) {
	for len(args) > 0 {
		if k, v, ok := assignment(args[0]); ok {
			env[k] = v
			args = args[1:]
			continue
		}
		name := filepath.Base(args[0])
		if isShell(name) {
			a.shell(env, args, text, stdin, depth)
			return
		}
		switch name {
		case "tmux":
			if src, ok := tmuxCommand(args); ok {
				a.source(src, depth+1)
			}
			return
		case "screen":
			i := screenCommand(args)
			if i < 0 || i >= len(args) {
				return
			}
			args = args[i:]
			continue
		}
		w, ok := wrapperFor(name, args)
		if !ok {
			break
		}
		i := w.commandAt(args)
		if i < 0 || i >= len(args) {
			return // nothing runs: command -v, ssh without a command, ...
		}
		if w.shell {
			a.source(strings.Join(args[i:], " "), depth+1)
			return
		}
		args = args[i:]
	}
	if len(args) > 0 {
		a.cmds = append(a.cmds, call{env: env, argv: args, text: text})
	}
}

// isShell reports the shells whose -c string or script the guard follows.
func isShell(name string) bool {
	switch name {
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "source", ".":
		return true
	}
	return false
}

// shell follows a shell invocation: the string of -c, else the script and
// its arguments, else the here-document it reads.
func (a *analyzer) shell(env map[string]string, args []string, text, stdin string, depth int) {
	i, command, fromStdin := 1, false, false
	// source and . take no options: the script comes first.
	if name := filepath.Base(args[0]); name != "source" && name != "." {
	opts:
		for i < len(args) {
			w := args[i]
			switch {
			case w == "--" || w == "-":
				i++
				break opts
			case !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "+"):
				break opts
			case w == "-o" || w == "+o" || w == "-O" || w == "+O" || w == "--rcfile" || w == "--init-file":
				i += 2
				continue
			case !strings.HasPrefix(w, "--"):
				command = command || strings.ContainsRune(w[1:], 'c')
				fromStdin = fromStdin || strings.ContainsRune(w[1:], 's')
			}
			i++
		}
	}
	switch {
	case command:
		// Words after the -c string become $0, $1, ...: not commands.
		if i < len(args) {
			a.source(args[i], depth+1)
		}
	case i < len(args) && !fromStdin:
		script := args[i]
		if !strings.Contains(script, "/") {
			script = "./" + script // a script path, not a command looked up on PATH
		}
		a.run(env, append([]string{script}, args[i+1:]...), text, "", depth)
	case stdin != "":
		a.source(stdin, depth+1)
	}
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

// wordText is a word as the command receives it: quotes removed and escapes
// resolved. Expansions ($VAR, $(...)) stay as written, so that
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

// stdinText is the here-document or here-string a command reads on its
// standard input, as written.
func stdinText(src string, redirs []*syntax.Redirect) string {
	text := ""
	for _, r := range redirs {
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch {
		case (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil:
			text = span(src, r.Hdoc.Pos(), r.Hdoc.End())
		case r.Op == syntax.WordHdoc && r.Word != nil:
			text = wordText(src, r.Word)
		}
	}
	return text
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
	a := analyzer{}
	a.source(src, 0)
	out := make([]Command, len(a.cmds))
	for i, c := range a.cmds {
		out[i] = Command{Env: c.env, Argv: c.argv, Text: c.text}
	}
	return out
}
