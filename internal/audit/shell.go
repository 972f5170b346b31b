package audit

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/rlxp/rlxp/internal/guard"
)

// scanShell reads a shell runner: the commands it runs (through the
// guard's view of shell source), its "case $1 in" subcommands, the usage
// lines in its header comment, #SBATCH directives, Hydra-style overrides
// and hardware variables.
func (sc *scanner) scanShell(f *facts, t *text) {
	sc.sig.scan(f, t)
	sc.shellDirectives(f, t)
	f.commands = append(f.commands, headerUsage(t.s, path.Base(f.path))...)

	if !shallow(t.s) {
		// The shell parser recurses on nesting; a pathological file would
		// exhaust the stack, so it is read line by line instead.
		f.commands = append(f.commands, commandLines(t.s, 1, "shell")...)
		return
	}
	var dispatch []branch
	var vars map[string][]string
	var labelVars map[string]map[string]string
	if file, err := syntax.NewParser().Parse(strings.NewReader(t.s), ""); err == nil {
		dispatch = caseDispatch(file, t.s)
		vars, labelVars = shellVars(file, t.s, dispatch)
	}
	for _, d := range dispatch {
		f.subcmds = append(f.subcmds, subcmd{label: d.label, line: d.line, text: d.text})
	}
	labelAt := func(off int) string {
		for _, d := range dispatch {
			if off >= d.from && off < d.to {
				return d.label
			}
		}
		return ""
	}
	from := 0
	for _, c := range guard.Commands(t.s) {
		off := strings.Index(t.s[from:], c.Text)
		if off >= 0 {
			off += from
			from = off
		} else if off = strings.Index(t.s, c.Text); off < 0 {
			off = 0
		}
		label := labelAt(off)
		for name, v := range c.Env {
			sc.shellVar(f, t, name, v, off)
		}
		for _, e := range expandArgv(c.Argv, vars, labelVars, label) {
			if !runsSomething(e.argv) {
				continue
			}
			f.commands = append(f.commands, cmdHit{argv: e.argv, text: snippet(c.Text), line: t.lineOf(off), origin: "shell", label: e.label})
			for _, w := range e.argv {
				if sc.hydraWord.MatchString(w) {
					k, v, _ := strings.Cut(strings.TrimLeft(w, "+~"), "=")
					f.add(catHydra, k, v, t.lineOf(off), t.line(off), High)
				}
			}
		}
	}
	for _, name := range sortedKeys(vars) {
		for _, v := range vars[name] {
			sc.shellVar(f, t, name, v, strings.Index(t.s, name+"="))
		}
	}
	for _, lit := range []string{"--preflight-only", "PREFLIGHT_ONLY", "--dry-run", "DRY_RUN"} {
		if i := strings.Index(t.s, lit); i >= 0 {
			f.add(catParser, "preflight", lit, t.lineOf(i), t.line(i), Medium)
		}
	}
}

// maxNesting bounds the bracket depth of shell source handed to the
// parser.
const maxNesting = 64

// shallow reports shell source whose brackets nest less than maxNesting
// deep.
func shallow(src string) bool {
	depth := 0
	tick := false
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			if depth > 0 {
				depth--
			}
		case '`':
			if tick = !tick; tick {
				depth++
			} else if depth > 0 {
				depth--
			}
		}
		if depth >= maxNesting {
			return false
		}
	}
	return true
}

// shellVar records what a variable assignment says about hardware.
func (sc *scanner) shellVar(f *facts, t *text, name, value string, off int) {
	if off < 0 {
		return
	}
	upper := strings.ToUpper(name)
	switch {
	case upper == "CUDA_VISIBLE_DEVICES", strings.Contains(upper, "GPUS"), strings.Contains(upper, "NPROC"),
		upper == "NNODES", upper == "NUM_NODES", upper == "N_NODES", upper == "WORLD_SIZE":
		if !f.has(catHardware, name) {
			f.add(catHardware, name, value, t.lineOf(off), t.line(off), Medium)
		}
	}
}

// shellDirectives reads #SBATCH lines and the hardware variables a runner
// exports.
func (sc *scanner) shellDirectives(f *facts, t *text) {
	t.each("#SBATCH", func(off int) bool {
		line := strings.TrimSpace(t.line(off))
		if !strings.HasPrefix(line, "#SBATCH") {
			return true
		}
		opt := strings.TrimSpace(strings.TrimPrefix(line, "#SBATCH"))
		if i := strings.Index(opt, " #"); i >= 0 {
			opt = strings.TrimSpace(opt[:i])
		}
		if !f.has(catLauncher, "Slurm") {
			f.add(catLauncher, "Slurm", "", t.lineOf(off), line, High)
		}
		for _, key := range []string{"--gres", "--gpus", "--gpus-per-node", "--gpus-per-task", "--nodes", "-N", "--time", "-t", "--ntasks-per-node", "--partition", "-p"} {
			if strings.HasPrefix(opt, key+"=") || strings.HasPrefix(opt, key+" ") {
				v := strings.TrimSpace(opt[len(key)+1:])
				name := "sbatch " + strings.TrimLeft(key, "-")
				switch key {
				case "-N":
					name = "sbatch nodes"
				case "-t":
					name = "sbatch time"
				case "-p":
					name = "sbatch partition"
				}
				f.add(catHardware, name, v, t.lineOf(off), line, High)
			}
		}
		return true
	})
}

// A branch is one arm of a runner's top-level "case $1 in" dispatch.
type branch struct {
	label    string
	from, to int // offsets of the arm's body
	line     int
	text     string
}

// caseDispatch finds the arms of case statements that switch on the
// first argument (case $1, or a variable set from it), which is how a
// runner takes a subcommand: run.sh train ..., run.sh eval ....
func caseDispatch(f *syntax.File, src string) []branch {
	fromArg := map[string]bool{"1": true}
	var out []branch
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil && n.Value != nil {
				v := strings.Trim(span(src, n.Value.Pos(), n.Value.End()), `"'`)
				if v == "$1" || v == "${1}" || strings.HasPrefix(v, "${1:") {
					fromArg[n.Name.Value] = true
				}
			}
		case *syntax.CaseClause:
			w := strings.Trim(span(src, n.Word.Pos(), n.Word.End()), `"'{}$`)
			if !fromArg[w] {
				return true
			}
			for _, item := range n.Items {
				for _, p := range item.Patterns {
					label := strings.Trim(span(src, p.Pos(), p.End()), `"'`)
					if label == "" || strings.ContainsAny(label, "*?[$") || strings.HasPrefix(label, "-") || label == "help" {
						continue
					}
					b := branch{label: label, from: int(item.Pos().Offset()), to: int(item.End().Offset()), line: int(item.Pos().Line())}
					b.text = snippet(span(src, item.Pos(), item.End()))
					out = append(out, b)
				}
			}
		}
		return true
	})
	return out
}

// shellVars collects variable assignments: those at any level, and those
// inside each dispatch arm (train) script=train.py ;;).
func shellVars(f *syntax.File, src string, dispatch []branch) (map[string][]string, map[string]map[string]string) {
	vars := map[string][]string{}
	labelVars := map[string]map[string]string{}
	syntax.Walk(f, func(n syntax.Node) bool {
		a, ok := n.(*syntax.Assign)
		if !ok || a.Name == nil || a.Value == nil || a.Append || a.Index != nil {
			return true
		}
		v := unquote(span(src, a.Value.Pos(), a.Value.End()))
		off := int(a.Pos().Offset())
		for _, d := range dispatch {
			if off >= d.from && off < d.to {
				if labelVars[d.label] == nil {
					labelVars[d.label] = map[string]string{}
				}
				labelVars[d.label][a.Name.Value] = v
				return true
			}
		}
		vars[a.Name.Value] = append(vars[a.Name.Value], v)
		return true
	})
	return vars, labelVars
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

func span(src string, from, to syntax.Pos) string {
	i, j := int(from.Offset()), int(to.Offset())
	if i < 0 || j > len(src) || i > j {
		return ""
	}
	return src[i:j]
}

type expansion struct {
	argv  []string
	label string
}

// expandArgv fills in variables with the one value they are given, and
// splits a command by dispatch arm when a variable it uses is set per arm
// (exec python3 "$ROOT/$script" becomes train.py under train, eval.py
// under eval).
func expandArgv(argv []string, vars map[string][]string, labelVars map[string]map[string]string, label string) []expansion {
	perLabel := map[string]bool{}
	for _, w := range argv {
		for l, m := range labelVars {
			for name := range m {
				if strings.Contains(w, "$"+name) || strings.Contains(w, "${"+name+"}") {
					perLabel[l] = true
				}
			}
		}
	}
	labels := []string{label}
	if label == "" && len(perLabel) > 0 {
		labels = sortedKeys(perLabel)
	}
	var out []expansion
	for _, l := range labels {
		e := expansion{label: l}
		for _, w := range argv {
			e.argv = append(e.argv, expandWord(w, vars, labelVars[l]))
		}
		out = append(out, e)
	}
	return out
}

// expandWord replaces $NAME and ${NAME} whose value is known and plain.
func expandWord(w string, vars map[string][]string, local map[string]string) string {
	if !strings.Contains(w, "$") {
		return w
	}
	value := func(name string) (string, bool) {
		if v, ok := local[name]; ok {
			return v, true
		}
		if vs := vars[name]; len(vs) == 1 && !strings.Contains(vs[0], "$") {
			return vs[0], true
		}
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		if w[i] != '$' || i+1 >= len(w) {
			b.WriteByte(w[i])
			continue
		}
		j, name := i+1, ""
		if w[j] == '{' {
			k := strings.IndexByte(w[j:], '}')
			if k < 0 {
				b.WriteByte(w[i])
				continue
			}
			name, j = w[j+1:j+k], j+k+1
		} else {
			for j < len(w) && isIdent(w[j]) {
				j++
			}
			name = w[i+1 : j]
		}
		if v, ok := value(name); ok && isName(name) {
			b.WriteString(v)
			i = j - 1
			continue
		}
		b.WriteByte(w[i])
	}
	return b.String()
}

// runsSomething reports commands worth recording: an interpreter, a
// launcher, a script or a build tool running a target.
func runsSomething(argv []string) bool {
	argv = argv[envRunner(argv):]
	if len(argv) == 0 {
		return false
	}
	name := path.Base(argv[0])
	switch {
	case isPythonName(name), strings.HasSuffix(name, ".py"), strings.HasSuffix(name, ".sh"):
		return true
	}
	switch name {
	case "torchrun", "accelerate", "deepspeed", "ray", "srun", "sbatch", "mpirun", "mpiexec", "horovodrun", "make", "just":
		return true
	}
	return false
}

// envRunner is how many leading words of argv run the rest inside a
// project's environment: uv run, poetry run, pipenv run, conda run -n ENV.
func envRunner(argv []string) int {
	if len(argv) < 2 || argv[1] != "run" {
		return 0
	}
	// Options that take a value, by runner; the others take none.
	var valued []string
	switch path.Base(argv[0]) {
	case "uv":
		valued = []string{"--extra", "--with", "--with-requirements", "--group", "--only-group", "--python", "-p", "--package",
			"--project", "--directory", "--env-file", "--index", "--index-url", "--module", "-m"}
	case "poetry", "pipenv", "pdm", "hatch", "rye", "pixi":
		valued = []string{"-e", "--env", "--environment", "--manifest-path"}
	case "conda", "mamba", "micromamba":
		valued = []string{"-n", "--name", "-p", "--prefix"}
	default:
		return 0
	}
	i := 2
	for i < len(argv) && strings.HasPrefix(argv[i], "-") && !slices.Contains([]string{"-m", "--module"}, argv[i]) {
		if slices.Contains(valued, argv[i]) {
			i++
		}
		i++
	}
	return min(i, len(argv))
}

func isPythonName(name string) bool {
	v, ok := strings.CutPrefix(name, "python")
	return ok && strings.Trim(v, "0123456789.") == ""
}

// headerUsage reads usage lines from the comment block at the top of a
// script: lines that run the script itself (bash scripts/run.sh train ...).
func headerUsage(src, base string) []cmdHit {
	var b strings.Builder
	first := 0
	for i, line := range strings.SplitN(src, "\n", 60) {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "#!") {
			continue
		}
		if !strings.HasPrefix(l, "#") {
			if l == "" && b.Len() == 0 {
				continue
			}
			break
		}
		if first == 0 {
			first = i + 1
		}
		b.WriteString(strings.TrimPrefix(strings.TrimPrefix(l, "#"), " "))
		b.WriteByte('\n')
	}
	var out []cmdHit
	for _, c := range commandLines(b.String(), first, "usage") {
		for _, w := range c.argv[:min(len(c.argv), 3)] {
			if path.Base(w) == base {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// commandLines finds command lines in prose: a README's code, a
// docstring, a usage comment. A line counts when its first word (after
// a prompt and NAME=VALUE words) is an interpreter, a launcher, a script
// or make; lines ending in a backslash continue. In a README, code is a
// fenced or indented block, a prompt line, or a code span in the text
// (`python train.py --task=x`); a command whose nearest prose says it
// trains is marked so.
func commandLines(s string, firstLine int, origin string) []cmdHit {
	var out []cmdHit
	lines := strings.Split(s, "\n")
	fenced := false
	trainCtx := false
	// rst: a paragraph ending in "::" (or a code-block directive) starts
	// a literal block of the indented lines after it.
	literal := false
	for i := 0; i < len(lines); i++ {
		raw := lines[i]
		l := strings.TrimSpace(raw)
		spans := codeSpans(l)
		if (strings.HasPrefix(l, "```") || strings.HasPrefix(l, "~~~")) && (fenced || len(spans) == 0) {
			fenced = !fenced
			continue
		}
		if literal && l != "" && raw[0] != ' ' && raw[0] != '\t' {
			literal = false
		}
		if !fenced && (strings.HasSuffix(l, "::") || strings.HasPrefix(l, ".. code")) {
			literal = true
			if strings.HasPrefix(l, "..") {
				continue
			}
		}
		indented := literal && l != "" && (raw[0] == ' ' || raw[0] == '\t')
		if origin == "readme" && !fenced && !indented && !strings.HasPrefix(raw, "    ") && !strings.HasPrefix(l, "$ ") {
			if l != "" {
				trainCtx = proseTrains(l)
			}
			if sp, ok := spanLine(l, spans); ok {
				if c, ok := commandLine(sp, firstLine+i, origin); ok {
					c.trainCtx = trainCtx
					out = append(out, c)
				}
			}
			continue
		}
		start := i
		for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
			i++
			// Docs annotate a long command with comment and blank lines
			// between its continued, indented arguments: read past them.
			if i+1 < len(lines) && fenced && docGap(lines[i]) {
				j := i
				for j < len(lines) && docGap(lines[j]) {
					j++
				}
				if j < len(lines) && (strings.HasPrefix(lines[j], " ") || strings.HasPrefix(lines[j], "\t")) {
					i = j
				}
			}
			l = strings.TrimSuffix(l, "\\") + " " + strings.TrimSpace(lines[i])
		}
		if c, ok := commandLine(l, firstLine+start, origin); ok {
			c.trainCtx = trainCtx
			out = append(out, c)
		}
	}
	return out
}

// commandLine reads one line of code as a command, if it is one.
func commandLine(l string, line int, origin string) (cmdHit, bool) {
	for _, prompt := range []string{"$ ", "> ", "% ", ">>> "} {
		l = strings.TrimPrefix(l, prompt)
	}
	words := shellWords(l)
	j := 0
	for j < len(words) && strings.Contains(words[j], "=") && !strings.HasPrefix(words[j], "-") && isName(strings.SplitN(words[j], "=", 2)[0]) {
		j++
	}
	if j >= len(words) {
		return cmdHit{}, false
	}
	argv := words[j:]
	for k, w := range argv {
		if w == "&&" || w == "||" || w == ";" || w == "|" || w == ">" || w == "2>&1" {
			argv = argv[:k]
			break
		}
	}
	if len(argv) == 0 {
		return cmdHit{}, false
	}
	if !runsSomething(argv) && argv[0] != "bash" && argv[0] != "sh" {
		if origin == "readme" && programName(argv[0]) {
			// A program run by name (a console script): what it is
			// is known only once the packaging is read.
			return cmdHit{argv: argv, text: snippet(l), line: line, origin: origin, byName: true}, true
		}
		return cmdHit{}, false
	}
	if (strings.HasSuffix(argv[0], ".py") || strings.HasSuffix(argv[0], ".sh")) && !strings.ContainsAny(argv[0][:1], "./$") {
		return cmdHit{}, false // a file name in prose, not a command
	}
	if argv[0] == "bash" || argv[0] == "sh" {
		if len(argv) < 2 || !strings.HasSuffix(argv[1], ".sh") && !strings.Contains(argv[1], "/") {
			return cmdHit{}, false
		}
	}
	return cmdHit{argv: argv, text: snippet(l), line: line, origin: origin}, true
}

// programName reports a word that may name a program run by name: a
// lowercase name, not a path, option or placeholder.
func programName(w string) bool {
	if w == "" || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// codeSpans are the contents of a line's code spans, delimited by equal
// runs of backticks (`x`, ```x```).
func codeSpans(l string) []string {
	var out []string
	for i := 0; i < len(l); {
		if l[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(l) && l[i+n] == '`' {
			n++
		}
		delim := l[i : i+n]
		rest := l[i+n:]
		end := -1
		for k := 0; k < len(rest); {
			j := strings.Index(rest[k:], delim)
			if j < 0 {
				break
			}
			j += k
			if j+n < len(rest) && rest[j+n] == '`' {
				k = j + n + 1
				continue
			}
			end = j
			break
		}
		if end < 0 {
			break
		}
		if c := strings.TrimSpace(rest[:end]); c != "" {
			out = append(out, c)
		}
		i += n + end + n
	}
	return out
}

// spanLine is the code of a line that is one code span, in a list item
// or not: a command set apart as code blocks are. A span inside a
// sentence or a table mentions a command rather than shows the way to
// run it.
func spanLine(l string, spans []string) (string, bool) {
	if len(spans) != 1 {
		return "", false
	}
	for _, m := range []string{"- ", "* ", "+ "} {
		l = strings.TrimPrefix(l, m)
	}
	l = strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "`"))
	return spans[0], l == spans[0]
}

// docGap reports a blank or comment line inside a documented command.
func docGap(l string) bool {
	t := strings.TrimSpace(l)
	return t == "" || t[0] == '#'
}

// proseTrains reports prose or a heading that says what follows trains:
// "To train a PPO agent, run", "## Training", "run PPO training" (not
// "After training, plot", nor a trained policy that another command
// plays).
func proseTrains(l string) bool {
	words := strings.FieldsFunc(strings.ToLower(l), func(r rune) bool { return r < 'a' || r > 'z' })
	for i, w := range words {
		switch {
		case w == "train":
			return true
		case w == "training" && i > 0:
			switch words[i-1] {
			case "after", "before", "during", "while", "from":
				continue
			}
			return true
		case w == "training":
			return true
		}
	}
	return false
}

// shellWords splits a command line into words, removing quotes.
func shellWords(s string) []string {
	var words []string
	var b strings.Builder
	in := false
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			} else {
				b.WriteByte(c)
			}
		case c == '"' || c == '\'':
			q, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		case c == '#' && !in:
			i = len(s)
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, b.String())
	}
	return words
}

// scanMake reads Makefile targets and the commands their recipes run.
func (sc *scanner) scanMake(f *facts, t *text) {
	sc.sig.scan(f, t)
	vars := map[string][]string{}
	target := ""
	lines := strings.Split(t.s, "\n")
	for i := 0; i < len(lines); i++ {
		raw := lines[i]
		n := i + 1
		for strings.HasSuffix(raw, "\\") && i+1 < len(lines) {
			i++
			raw = strings.TrimSuffix(raw, "\\") + " " + strings.TrimSpace(lines[i])
		}
		if strings.HasPrefix(raw, "\t") {
			if target == "" {
				continue
			}
			recipe := strings.TrimLeft(strings.TrimSpace(raw), "@-+")
			recipe = makeVarRefs(recipe)
			if !shallow(recipe) {
				continue
			}
			for _, c := range guard.Commands(recipe) {
				argv := make([]string, len(c.Argv))
				for k, w := range c.Argv {
					argv[k] = expandWord(w, vars, nil)
				}
				if runsSomething(argv) {
					f.commands = append(f.commands, cmdHit{argv: argv, text: snippet(raw), line: n, origin: "make", label: target})
				}
			}
			continue
		}
		l := strings.TrimSpace(raw)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if k, v, ok := makeAssign(l); ok {
			vars[k] = []string{v}
			continue
		}
		if m := sc.makeTarget.FindStringSubmatch(l); m != nil && !strings.HasPrefix(m[1], ".") {
			target = m[1]
			continue
		}
		target = ""
	}
}

// makeVarRefs writes Make's $(NAME) as the shell's ${NAME} and $$ as $.
func makeVarRefs(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '$' && i+1 < len(s) {
			switch s[i+1] {
			case '$':
				b.WriteByte('$')
				i++
				continue
			case '(':
				if j := strings.IndexByte(s[i:], ')'); j > 2 && isName(s[i+2:i+j]) {
					b.WriteString("${" + s[i+2:i+j] + "}")
					i += j
					continue
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// makeAssign splits NAME = value, NAME ?= value, NAME := value.
func makeAssign(l string) (string, string, bool) {
	for _, op := range []string{"?=", ":=", "+=", "="} {
		if k, v, ok := strings.Cut(l, op); ok && isName(strings.TrimSpace(k)) {
			return strings.TrimSpace(k), strings.TrimSpace(v), true
		}
	}
	return "", "", false
}

// scanReadme reads the command lines of a README's code.
func (sc *scanner) scanReadme(f *facts, t *text) {
	f.commands = append(f.commands, commandLines(t.s, 1, "readme")...)
	// Markdown links into the repository: a README the root README
	// points to is where its humans send a newcomer.
	t.each("](", func(off int) bool {
		rest := t.s[off+2:]
		end := strings.IndexAny(rest, ") \n")
		if end <= 0 || rest[end] != ')' {
			return true
		}
		target, _, _ := strings.Cut(rest[:end], "#")
		if target != "" && !strings.Contains(target, "://") && !strings.HasPrefix(target, "mailto:") {
			f.add(catLink, path.Clean(path.Join(path.Dir(f.path), target)), "", t.lineOf(off), "", Medium)
		}
		return true
	})
	// The scripts the text names, in prose or links as well as in
	// commands: which of several ways to train its humans talk about.
	s := t.s
	for _, ext := range []string{".py", ".sh"} {
		for i := strings.Index(s, ext); i >= 0; {
			end := i + len(ext)
			if end == len(s) || !isIdent(s[end]) {
				k := i
				for k > 0 && (isIdent(s[k-1]) || s[k-1] == '-') {
					k--
				}
				if k < i {
					f.add(catMention, s[k:i], "", t.lineOf(k), "", Medium)
				}
			}
			j := strings.Index(s[end:], ext)
			if j < 0 {
				break
			}
			i = end + j
		}
	}
}

// scanEnv reads a .env config or template: a config system, and the
// values a person must fill in (CHANGEME, TODO, <...>).
func (sc *scanner) scanEnv(f *facts, t *text) {
	sc.sig.scan(f, t)
	f.add(catConfigLoad, "env", "", 1, "", Medium)
	for i, line := range strings.Split(t.s, "\n") {
		l := strings.TrimSpace(line)
		if l == "" || strings.HasPrefix(l, "#") || !strings.Contains(l, "=") {
			continue
		}
		k, v, _ := strings.Cut(strings.TrimPrefix(l, "export "), "=")
		if lowerHas(v, "changeme", "change_me", "todo", "fixme", "<your", "xxx") || (strings.Contains(v, "<") && strings.Contains(v, ">")) {
			f.add(catEnvTemplate, strings.TrimSpace(k), strings.TrimSpace(v), i+1, line, High)
		}
		sc.shellVar(f, t, strings.TrimSpace(k), strings.TrimSpace(v), strings.Index(t.s, line))
	}
}

// scanYAML reads a YAML config: environment ids, Hydra defaults lists,
// and logger lists (trainer.logger: [console, wandb]).
func (sc *scanner) scanYAML(f *facts, t *text) {
	t.each("-v", func(off int) bool {
		if off+2 < len(t.s) && isDigit(t.s[off+2]) {
			for _, m := range sc.gymBare.FindAllStringSubmatch(t.line(off), -1) {
				f.add(catEnvID, m[1], "", t.lineOf(off), t.line(off), Medium)
			}
		}
		return true
	})
	if strings.HasPrefix(t.s, "defaults:") || strings.Contains(t.s, "\ndefaults:") {
		i := strings.Index(t.s, "defaults:")
		f.add(catConfigLoad, "hydra", "defaults list", t.lineOf(i), t.line(i), Medium)
	}
	configBackends(f, t)
}

// backendKeys are config keys whose value lists logging backends
// (loggers: [wandb, csv], report_to: [wandb], logger: tensorboard).
var backendKeys = []string{"loggers", "logger", "report_to", "log_with", "logging_backends", "backend", "tracker", "trackers"}

// backendSwitch is the backend a key turns on (use_wandb: true), "" for none.
func backendSwitch(key string) string {
	switch key {
	case "use_wandb", "enable_wandb", "wandb_activate", "with_wandb", "log_wandb":
		return "wandb"
	case "use_tb", "use_tensorboard", "with_tensorboard", "tensorboard":
		return "tensorboard"
	case "use_mlflow":
		return "mlflow"
	case "use_swanlab":
		return "swanlab"
	}
	return ""
}

// defaultsGroup is the config group a Hydra defaults entry chooses
// ("- /logger@logger: tensorboard", "- override /logger: wandb" choose
// from logger); other keys are returned as they are.
func defaultsGroup(key string) string {
	g, ok := strings.CutPrefix(key, "- ")
	if !ok {
		return key
	}
	g = strings.TrimPrefix(strings.TrimSpace(g), "override ")
	g, _, _ = strings.Cut(g, "@")
	return path.Base(strings.TrimPrefix(strings.TrimSpace(g), "/"))
}

// configBackends reads the logging backends a YAML, JSON or TOML config
// chooses: a key's value on its line or in the list below it (a YAML
// "- item" list, a JSON or TOML [...] spread over lines), and switches
// set true.
func configBackends(f *facts, t *text) {
	lines := strings.Split(t.s, "\n")
	for i, raw := range lines {
		l := strings.TrimSpace(raw)
		if l == "" || l[0] == '#' {
			continue
		}
		key, val, ok := strings.Cut(l, ":")
		if !ok || f.kind != kindYAML && !strings.HasPrefix(l, `"`) {
			key, val, ok = strings.Cut(l, "=")
		}
		if !ok {
			continue
		}
		key = strings.Trim(strings.TrimSpace(key), `"'`)
		if f.kind == kindYAML {
			key = defaultsGroup(key)
		}
		val, _, _ = strings.Cut(val, " #")
		val = strings.TrimRight(strings.TrimSpace(val), ",")
		if b := backendSwitch(strings.ToLower(key)); b != "" {
			switch strings.ToLower(strings.Trim(val, `"'`)) {
			case "true", "yes", "on", "1":
				f.add(catBackend, b, "config", i+1, raw, High)
			}
			continue
		}
		if !slices.Contains(backendKeys, strings.ToLower(key)) {
			continue
		}
		vals := []string{val}
		if val == "[" {
			for j := i + 1; j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), "]"); j++ {
				vals = append(vals, lines[j])
			}
		}
		if val == "" {
			for j := i + 1; j < len(lines); j++ {
				item := strings.TrimSpace(lines[j])
				if !strings.HasPrefix(item, "- ") {
					break
				}
				vals = append(vals, strings.TrimPrefix(item, "- "))
			}
		}
		for _, v := range vals {
			for _, w := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune("[]'\", ", r) }) {
				if b := backendID(w); knownBackend(b) && b != "sb3" && b != "tracking" {
					f.add(catBackend, b, "config", i+1, raw, High)
				}
			}
		}
	}
}
