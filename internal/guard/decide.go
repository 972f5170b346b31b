package guard

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Decide decides on a shell command run in directory cwd, for a host that
// can ask the human.
func (g *Guard) Decide(command, cwd string) Decision {
	return g.decide(command, cwd, true)
}

// decide decides on a shell command. The rules of a repository apply to
// every command that touches it: runs in it (after any cd), or names a
// script or directory inside it.
func (g *Guard) decide(command, cwd string, canAsk bool) Decision {
	a := analyzer{home: g.Home, settled: g.settled}
	sc := &scope{vars: map[string]string{}, dirs: []string{cwd}}
	a.source(command, 0, sc)
	a.followWrittenHooks(command, sc)
	if a.tooDeep != "" {
		if g.root(cwd) == "" {
			return Decision{}
		}
		return denyf("%s nests shell commands (more than %d levels), brackets (more than %d) or source (%d MiB in all, with what it runs) deeper than the guard follows; run the inner command directly", quote(a.tooDeep), maxDepth, maxBrackets, maxParsed>>20)
	}
	for _, w := range a.writes {
		if !w.exact {
			if namesState(w.path) {
				return through(call{via: w.via}, denyf("%s writes %s, which names .rlxp but cannot be resolved without running something: %s", quote(w.text), w.path, protectedAdvice))
			}
			continue
		}
		for _, d := range w.dirs {
			if writesRecord(w.path, d) {
				return through(call{via: w.via}, denyf("%s writes %s: %s", quote(w.text), w.path, protectedAdvice))
			}
		}
	}
	var ask Decision
	for _, c := range a.cmds {
		if d := g.shellWrites(c); d.Deny {
			return through(c, d)
		}
		roots := g.rootsOf(c)
		if len(roots) == 0 {
			continue
		}
		d := g.judge(c, roots, canAsk)
		if d.Deny {
			return g.withNote(through(c, d), roots)
		}
		if d.Ask && !ask.Ask {
			ask = d
		}
	}
	return ask
}

// through says how the command the agent wrote comes to run c, which it
// does not name itself (a recipe, inline code, a copy).
func through(c call, d Decision) Decision {
	if c.via != "" {
		d.Reason = oneLine(c.via + ": " + d.Reason)
	}
	return d
}

// rootsOf lists the repositories a command touches: those its working
// directories are in, and those of the paths among its words (a script, a
// -C or --root directory). A directory the guard cannot tell stands for
// every repository met so far.
func (g *Guard) rootsOf(c call) []string {
	var roots []string
	add := func(r string) {
		if r == "" {
			return
		}
		for _, x := range roots {
			if x == r {
				return
			}
		}
		roots = append(roots, r)
	}
	unknown := false
	for _, d := range c.dirs {
		if d == "" {
			unknown = true
			continue
		}
		add(g.root(d))
	}
	for i, w := range c.argv {
		if !c.exact[i] {
			continue
		}
		if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
			w = v
		}
		dirFlag := i > 0 && dirOption(c.argv[i-1])
		if !dirFlag && !strings.Contains(w, "/") && !strings.HasSuffix(w, ".py") && !strings.HasSuffix(w, ".sh") && w != ".." {
			continue
		}
		for _, d := range c.dirs {
			if d == "" && !filepath.IsAbs(w) {
				continue
			}
			p := resolve(w, d)
			if !dirFlag {
				p = filepath.Dir(p) // a file holds no .rlxp
			}
			add(g.root(p))
		}
	}
	if unknown {
		for _, r := range g.known {
			add(r)
		}
	}
	return roots
}

// dirOption reports options whose value is a directory a command works in.
func dirOption(o string) bool {
	switch o {
	case "-C", "--root", "--chdir", "--directory", "--cwd", "--project", "--working-directory", "--workdir", "--project-directory", "-D":
		return true
	}
	return false
}

func (g *Guard) withNote(d Decision, roots []string) Decision {
	for _, r := range roots {
		if p := g.policy(r); p.note != "" {
			d.Reason += oneLine(" (note: " + p.note + "; the commands it declares are not checked until it is fixed)")
			break
		}
	}
	return d
}

// judge decides on one simple command inside the repositories roots.
func (g *Guard) judge(c call, roots []string, canAsk bool) Decision {
	if c.opaqueWhy != "" {
		return c.unknown(c.argv[0], c.opaqueWhy, roots, g)
	}
	name := programName(c.argv[0], c.exact[0])
	if name == "" {
		return c.unknown(c.argv[0], "the program", roots, g)
	}
	if args, exact, ok := rlxpArgs(c.argv, c.exact); ok {
		return g.rlxp(c, args, exact, canAsk)
	}
	if g.renamedRlxp(c) {
		return g.rlxp(c, c.argv[1:], c.exact[1:], canAsk)
	}
	dirs := c.dirs
	if hasUnknown(dirs) {
		dirs = append(append([]string(nil), dirs...), roots...)
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		n, unknown := normalize(c, d)
		if unknown != "" {
			return c.unknown(unknown, "the program "+filepath.Base(c.argv[0])+" runs", roots, g)
		}
		if asksHelp(n) {
			return Decision{}
		}
		for _, r := range roots {
			p := g.policy(r)
			if p.preflightMatch(c.env, n) {
				return Decision{}
			}
			if d := p.declared(c, n); d.Deny {
				return d
			}
		}
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		n, _ := normalize(c, d)
		for _, r := range roots {
			if what := launcher(n, r, g.policy(r).allow); what != "" {
				return denyf("%s starts training directly with %s: %s", quote(c.text), what, launchAdvice)
			}
		}
	}
	return Decision{}
}

// unverifiable refuses a command whose verdict hangs on a word the guard
// cannot resolve without running something.
func unverifiable(text, word, what string) Decision {
	return denyf("%s: cannot verify %s: %s cannot be resolved without running something; inside a repository with .rlxp/ the guard refuses what it cannot verify: write the command out literally", quote(text), what, quote(word))
}

// unknown decides on a command whose program hangs on word, which the
// guard cannot resolve. On the command line the agent wrote, it is
// refused as unverifiable. In a file read from disk (a script the command
// runs, a module it imports), where such words are everyday
// (${PYTHON:-python3}, "$@", the lines of ~/.bashrc), the word is judged
// by the name it ends in when that is literal ($DIR/train.py is a
// training script) and allowed otherwise.
func (c call) unknown(word, what string, roots []string, g *Guard) Decision {
	if !c.fromDisk {
		return unverifiable(c.text, word, what)
	}
	i := strings.LastIndexByte(word, '/')
	base := word[i+1:]
	if i < 0 || base == "" || strings.ContainsAny(base, "$`*?[{}()<>\\'\"") {
		return Decision{}
	}
	for _, r := range roots {
		if what := trainingScript(base, r, nil); what != "" && (strings.HasSuffix(base, ".py") || strings.HasSuffix(base, ".sh")) {
			return denyf("%s starts training directly with %s: %s", quote(c.text), what, launchAdvice)
		}
	}
	return Decision{}
}

// preflightMatch reports the declared preflight.
func (p *Policy) preflightMatch(env map[string]string, argv []string) bool {
	for _, pat := range p.preflight {
		if pat.matches(env, argv) {
			return true
		}
	}
	return false
}

// declared refuses the train and eval commands adapter.yaml declares.
func (p *Policy) declared(c call, argv []string) Decision {
	for _, pat := range p.launches {
		if !pat.matches(c.env, argv) {
			continue
		}
		if pat.name == "eval" {
			return denyf("%s runs the eval command declared in %s: evaluations spend GPU hours like training; ask the user before running one, and launch an experiment's runs with 'rlxp launch <experiment>'", quote(c.text), adapterFile)
		}
		return denyf("%s runs the %s command declared in %s: %s", quote(c.text), pat.name, adapterFile, launchAdvice)
	}
	return Decision{}
}

// rlxp decides on an rlxp command line, read with rlxp's own flags.
func (g *Guard) rlxp(c call, args []string, exact []bool, canAsk bool) Decision {
	if g.Rlxp == nil {
		return denyf("%s: this guard was built without rlxp's command definitions and cannot read an rlxp command line", quote(c.text))
	}
	inv := g.Rlxp(args)
	pathLen := len(strings.Fields(inv.Command))
	for i, e := range exact {
		if !e && (inv.Command == "" || i < pathLen || sensitive(inv.Command)) {
			return unverifiable(c.text, args[i], "which rlxp command runs")
		}
	}
	if c.open && (inv.Command == "" || sensitive(inv.Command)) {
		return unverifiable(c.text, strings.Join(append([]string{"rlxp"}, args...), " "), "the arguments rlxp gets from its input")
	}
	switch inv.Command {
	case "contract approve":
		return denyf("%s: approving the contract is a human act; show the user the section with 'rlxp contract show <section>' and ask them to run 'rlxp contract approve <section>' in their own terminal", quote(c.text))
	case "experiment approve":
		return denyf("%s: approving an experiment is a human act; show the user the experiment with 'rlxp experiment show <id>' and ask them to run 'rlxp experiment approve <id>' in their own terminal", quote(c.text))
	case "launch":
		if inv.Flags["confirm"] == "" {
			return Decision{}
		}
		if !canAsk {
			return denyf("%s confirms a launch plan, which is the human's to confirm and this host cannot ask them: show the user the plan ('rlxp launch <experiment>' prints it) and ask the human to run it", quote(c.text))
		}
		exp := strings.Join(inv.Args, " ")
		return Decision{Ask: true, Reason: oneLine(fmt.Sprintf("The agent asks to start the runs of experiment %s with launch plan %s: allow only if you have reviewed that plan ('rlxp launch %s' prints it)", exp, inv.Flags["confirm"], exp))}
	}
	return Decision{}
}

// renamedRlxp reports a program under another name (a copy or a build of
// rlxp: ./ok contract approve) whose arguments read as an approval or a
// confirmed launch to rlxp: no other program takes them.
func (g *Guard) renamedRlxp(c call) bool {
	if g.Rlxp == nil || len(c.argv) < 3 || !c.exact[1] {
		return false
	}
	switch c.argv[1] {
	case "contract", "experiment", "launch":
	default:
		return false
	}
	inv := g.Rlxp(c.argv[1:])
	return inv.Command == "contract approve" || inv.Command == "experiment approve" || inv.Command == "launch" && inv.Flags["confirm"] != ""
}

// sensitive reports the rlxp commands whose every argument decides the
// verdict.
func sensitive(cmd string) bool {
	return cmd == "contract approve" || cmd == "experiment approve" || cmd == "launch"
}

// asksHelp reports a command that only asks a program to describe itself:
// a help or version flag right after the program (or its script, module
// or subcommand) and nothing after it. A flag further on may be another
// option's value (rlxp ... --by --version) or the trainer's own argument.
func asksHelp(n []string) bool {
	last := n[len(n)-1]
	if last != "--help" && last != "-h" && last != "--version" {
		return false
	}
	limit := 3
	switch {
	case len(n) > 1 && n[1] == "-m":
		limit = 4
	case scheduler(n[0]):
		// sbatch job.sh --help submits job.sh, which gets the flag as
		// its argument.
		limit = 2
	}
	if len(n) <= limit {
		return true
	}
	// A Python program's parser reads the flag wherever it stands, and it
	// is nobody's value after a word that is not an option waiting for
	// one (python -m x.train --env=CartPole-v1 --help). A launcher or a
	// scheduler passes it on to what it starts.
	prev := n[len(n)-2]
	return isPython(n[0]) && n[1] != "-c" && (!strings.HasPrefix(prev, "-") || strings.Contains(prev, "="))
}

// scheduler reports a program that submits a job script to a batch
// system, passing the words after the script to it.
func scheduler(name string) bool {
	switch name {
	case "sbatch", "srun", "salloc", "qsub", "qrsh", "bsub", "condor_submit":
		return true
	}
	return false
}

func trues(n int) []bool {
	b := make([]bool, n)
	for i := range b {
		b[i] = true
	}
	return b
}

func hasUnknown(dirs []string) bool {
	for _, d := range dirs {
		if d == "" {
			return true
		}
	}
	return false
}

// settled reports a command whose files the guard need not read: one
// that touches no repository (the fast path stays fast), the declared
// preflight, the declared train and eval commands (refused as they are),
// and a script guard.allow names.
func (g *Guard) settled(c call) bool {
	if len(g.rootsOf(c)) == 0 {
		return true
	}
	for _, d := range c.dirs {
		if d == "" {
			continue
		}
		n, unknown := normalize(c, d)
		if unknown != "" || len(n) == 0 {
			continue
		}
		for _, r := range g.rootsOf(c) {
			p := g.policy(r)
			if p.preflightMatch(c.env, n) {
				return true
			}
			for _, pat := range p.launches {
				if pat.matches(c.env, n) {
					return true
				}
			}
			script := n[0]
			if script == "python" && len(n) > 1 {
				script = n[1]
			}
			if rel, err := filepath.Rel(r, script); err == nil && filepath.IsAbs(script) && !strings.HasPrefix(rel, "..") && allowed(rel, p.allow) {
				return true
			}
		}
	}
	return false
}
