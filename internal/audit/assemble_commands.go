package audit

import (
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/rlxp/rlxp/internal/guard"
)

// pyTarget finds what a command runs in Python: the script word or the
// module, and the index of its first argument. Launchers (torchrun,
// accelerate launch, deepspeed, srun, mpirun) are looked through.
func pyTarget(argv []string) (script, module string, argsAt int) {
	runner := envRunner(argv)
	for i := runner; i < len(argv); i++ {
		w := argv[i]
		name := path.Base(w)
		switch {
		case isPythonName(name):
			for j := i + 1; j < len(argv); j++ {
				a := argv[j]
				if !strings.HasPrefix(a, "-") || a == "-" {
					return a, "", j + 1
				}
				// An option cluster: -u -m mod, -um mod, -mmod, -W ignore.
				for k := 1; k < len(a) && a[1] != '-'; k++ {
					switch a[k] {
					case 'm':
						if k+1 < len(a) {
							return "", a[k+1:], j + 1
						}
						if j+1 < len(argv) {
							return "", argv[j+1], j + 2
						}
						return "", "", len(argv)
					case 'c':
						return "", "", len(argv)
					case 'W', 'X':
						if k+1 == len(a) {
							j++
						}
						k = len(a)
					}
				}
			}
			return "", "", len(argv)
		// uv run -m mod runs a module as python -m does.
		case (w == "-m" || w == "--module") && i > 0 && i+1 < len(argv) && (isLauncher(path.Base(argv[0])) || i == runner):
			return "", argv[i+1], i + 2
		case strings.HasSuffix(w, ".py") && (i == 0 || isLauncher(path.Base(argv[0]))):
			return w, "", i + 1
		case i == 0 && !isLauncher(name):
			return "", "", len(argv)
		}
	}
	return "", "", len(argv)
}

func isLauncher(name string) bool {
	switch name {
	case "torchrun", "accelerate", "deepspeed", "srun", "mpirun", "mpiexec", "horovodrun", "ray":
		return true
	}
	return false
}

// shellTarget finds the script a command runs with bash or directly.
func shellTarget(argv []string) (string, int) {
	if len(argv) == 0 {
		return "", 0
	}
	name := path.Base(argv[0])
	if (name == "bash" || name == "sh") && len(argv) > 1 {
		return argv[1], 2
	}
	if strings.HasSuffix(name, ".sh") {
		return argv[0], 1
	}
	return "", 0
}

// resolve finds the repository file a script word names, from a command
// in file from: relative to it, to the root, to its parent, or by a
// unique name. Leading variables ($ROOT/, ${DIR}/) are dropped.
func (a *assembler) resolve(word, from string) string {
	w := word
	for strings.HasPrefix(w, "$") || strings.HasPrefix(w, "~") {
		i := strings.IndexByte(w, '/')
		if i < 0 {
			return ""
		}
		w = w[i+1:]
	}
	w = strings.TrimPrefix(w, "./")
	if w == "" || strings.ContainsAny(w, "$*{}<>") || strings.HasPrefix(w, "/") {
		return ""
	}
	dir := path.Dir(from)
	for _, c := range []string{path.Join(dir, w), path.Clean(w), path.Join(path.Dir(dir), w)} {
		if a.lst.paths[c] {
			return c
		}
	}
	var found string
	for _, p := range a.byBase[path.Base(w)] {
		if p == w || strings.HasSuffix(p, "/"+w) {
			if found != "" {
				return ""
			}
			found = p
		}
	}
	return found
}

// moduleFile finds the file of a module in the repository: from the
// root, or from a project of the repository's own that is installed from
// its folder (humanoid-bench's tdmpc2/, holding the package tdmpc2).
func (a *assembler) moduleFile(mod string) string {
	rel := strings.ReplaceAll(mod, ".", "/")
	if a.projects == nil {
		a.projects = []string{"", "src/"}
		for _, p := range a.paths {
			if b := path.Base(p); (b == "setup.py" || b == "pyproject.toml") && strings.Contains(p, "/") {
				a.projects = append(a.projects, path.Dir(p)+"/", path.Dir(p)+"/src/")
			}
		}
	}
	for _, prefix := range a.projects {
		for _, c := range []string{prefix + rel + ".py", prefix + rel + "/__main__.py"} {
			if a.lst.paths[c] {
				return c
			}
		}
	}
	return ""
}

// evalName reports a file name one of whose words names held-out data
// (test.csv, val_metrics.jsonl), not one that merely contains the letters
// (values.csv, value_loss.csv, latest.jsonl).
func evalName(name string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if evalSegment(w) {
			return true
		}
	}
	return false
}

// evalWords are names of entry points that evaluate a policy.
func evalWord(w string) bool {
	switch w {
	case "eval", "evaluate", "evaluation", "evaluator", "play", "enjoy", "infer", "inference", "validate", "validation":
		return true
	}
	return strings.HasPrefix(w, "eval")
}

// nameKind classifies an entry point by its path or label: eval words
// first, then the guard's idea of a training script.
func nameKind(words ...string) string {
	for _, w := range words {
		if utilityName(w) {
			return "other"
		}
	}
	for _, w := range words {
		for _, part := range strings.FieldsFunc(strings.ToLower(w), func(r rune) bool { return r == '/' || r == '.' || r == '_' || r == '-' || r == ' ' }) {
			if evalWord(part) {
				return "eval"
			}
		}
	}
	for _, w := range words {
		if dataPrepName(w) {
			return "other"
		}
	}
	for _, w := range words {
		if guard.Trainer([]string{"python", strings.TrimSuffix(w, ".py") + ".py"}, "") != "" || lowerHas(w, "finetune", "fine_tune") {
			return "train"
		}
	}
	return "other"
}

// utilityName reports scripts named for chores: setup, install, lint,
// plotting, conversion.
func utilityName(p string) bool {
	base := strings.ToLower(path.Base(p))
	first, _, _ := strings.Cut(strings.NewReplacer("-", "_", ".", "_").Replace(base), "_")
	switch first {
	case "setup", "install", "source", "reset", "format", "lint", "download", "build", "docker", "clean",
		"deploy", "convert", "export", "prepare", "preprocess", "plot", "check", "test", "tests", "upload", "env":
		return true
	}
	return false
}

// dataPrepName reports a script named for preparing data (gsm8k_dataset.py,
// searchr1_download.py), whatever folder it is in (examples/train/) and
// whatever prose about training is around its command: it prepares a run.
func dataPrepName(p string) bool {
	base := strings.TrimSuffix(strings.ToLower(path.Base(p)), path.Ext(p))
	for _, w := range strings.FieldsFunc(base, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		switch w {
		case "dataset", "datasets", "download", "prepare", "preprocess", "prep", "tokenize", "convert":
			return true
		}
	}
	return false
}

// isTestPath reports test files, which are not entry points.
func isTestPath(p string) bool {
	base := path.Base(p)
	if strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") || base == "conftest.py" || base == "setup.py" || base == "__init__.py" {
		return true
	}
	for _, d := range strings.Split(path.Dir(p), "/") {
		if d == "tests" || d == "test" || d == "testing" {
			return true
		}
	}
	return path.Base(path.Dir(p)) == "docs" && base == "conf.py"
}

func (a *assembler) ep(cmd string) *EntryPoint {
	if e, ok := a.eps[cmd]; ok {
		return e
	}
	e := &EntryPoint{Command: cmd}
	a.eps[cmd] = e
	return e
}

// commandKind classifies what a command runs: training if the guard
// would call it a trainer, eval by name, else other.
func (a *assembler) commandKind(c cmdHit, from string) string {
	if script, mod, _ := pyTarget(c.argv); script != "" || mod != "" {
		if mod == "pip" || mod == "venv" || mod == "ensurepip" || mod == "pytest" || mod == "unittest" {
			return "other"
		}
		name := mod
		if script != "" {
			name = script
			if r := a.resolve(script, from); r != "" {
				name = r
			}
		}
		if k := nameKind(name); k != "other" {
			return k
		}
	}
	if guard.Trainer(c.argv, "") != "" {
		return "train"
	}
	return "other"
}

func (a *assembler) entryPoints() {
	// Python scripts with a main guard.
	for _, f := range a.files {
		if f.kind != kindPython || isTestPath(f.path) {
			continue
		}
		m, ok := f.first(catMain, "")
		if !ok {
			continue
		}
		parser, hasParser := hit{}, false
		for _, h := range f.hits {
			if h.cat == catParser && h.name != "preflight" {
				parser, hasParser = h, true
				break
			}
		}
		flags := append([]flagDef(nil), f.flags...)
		if imported := a.importedFlags(f); len(imported) > 0 {
			flags = append(flags, imported...)
			if !hasParser {
				parser, hasParser = hit{line: imported[0].line, text: imported[0].name}, true
			}
		}
		kind := nameKind(f.path)
		trains, isTrainer := f.first(catTrains, "")
		if kind == "other" && isTrainer {
			kind = "train"
		}
		if kind == "other" && !hasParser {
			continue
		}
		cmd := "python " + f.path
		if path.Base(f.path) == "__main__.py" {
			cmd = "python -m " + strings.ReplaceAll(path.Dir(strings.TrimPrefix(f.path, "src/")), "/", ".")
		}
		e := a.ep(cmd)
		e.Kind, e.Via, e.Target, e.flags = kind, "script", f.path, flags
		e.Confidence = Medium
		e.Evidence = append(e.Evidence, ev(f, m.line, m.text))
		if hasParser {
			e.Confidence = High
			if parser.cat != "" {
				e.Evidence = append(e.Evidence, ev(f, parser.line, parser.text))
			}
		}
		if isTrainer && nameKind(f.path) == "other" {
			e.Evidence = append(e.Evidence, ev(f, trains.line, trains.text))
		}
		for _, fd := range flags {
			if fd.name == "--preflight-only" || fd.name == "--dry-run" || fd.name == "--dry_run" {
				e.preflag = fd.name
			}
		}
	}
	scripts := map[string]*EntryPoint{}
	for _, e := range a.eps {
		scripts[e.Target] = e
	}
	byTarget := func(target string) *EntryPoint { return scripts[target] }
	// What runners, Makefiles, READMEs and docstrings run. Every runner
	// is an entry point before any README names one.
	runners := map[string]map[string]*EntryPoint{} // file -> label -> runner entry
	for _, f := range a.files {
		if (f.kind == kindShell || f.kind == kindMake) && !isTestPath(f.path) {
			runners[f.path] = a.runnerEntries(f)
		}
	}
	for _, e := range a.eps {
		scripts[e.Target] = e
	}
	// Console scripts, which READMEs run by name.
	for _, f := range a.files {
		for _, s := range f.scripts {
			e := a.ep(s.name)
			e.Kind, e.Via, e.Target, e.Confidence = nameKind(s.name, s.detail), "console_script", s.detail, Medium
			e.Evidence = append(e.Evidence, ev(f, s.line, s.text))
		}
	}
	for _, f := range a.files {
		runner := runners[f.path]
		for _, c := range f.commands {
			name := c.argv[0]
			if i := envRunner(c.argv); i > 0 && i < len(c.argv) {
				name = c.argv[i] // uv run NAME: in the project's environment
			}
			if c.byName || c.origin == "readme" && name != c.argv[0] {
				te := a.eps[name]
				if te == nil || te.Via != "console_script" {
					te = a.binScript(name)
				}
				if te != nil {
					a.documented(te, c, f)
					te.refs++
					te.Evidence = append(te.Evidence, ev(f, c.line, c.text))
				}
				if te != nil || c.byName {
					continue
				}
			}
			script, mod, _ := pyTarget(c.argv)
			target := ""
			switch {
			case script != "":
				target = a.resolve(script, f.path)
			case mod != "":
				target = a.moduleFile(mod)
			}
			var te *EntryPoint
			if target != "" {
				te = byTarget(target)
			}
			if te == nil && mod != "" && target == "" && a.knownModule(mod) {
				te = a.ep("python -m " + mod)
				te.Kind, te.Via, te.Target = nameKind(mod), "module", mod
				te.Confidence = High
			}
			if te == nil && target != "" && c.origin == "readme" && a.byPath[target] != nil && a.byPath[target].has(catMain, "") {
				// A module or script the docs run (python -m spinup.run
				// ppo, python sheeprl.py exp=ppo) that parses its
				// arguments by hand or hands them on.
				if mod != "" {
					te = a.ep("python -m " + mod)
					te.Kind, te.Via = nameKind(mod), "module"
				} else {
					te = a.ep("python " + target)
					te.Kind, te.Via = nameKind(target), "script"
				}
				te.Target, te.Confidence = target, Medium
				te.Evidence = append(te.Evidence, ev(a.byPath[target], 0, ""))
				scripts[target] = te
			}
			if te != nil && mod != "" && te.Via == "script" && c.origin != "readme" {
				// Run as a module in the repository's own runners.
				te.Command = "python -m " + mod
			}
			if rs := runnersOf(runner, c); len(rs) > 0 {
				what := strings.Join(c.argv[:min(len(c.argv), 4)], " ")
				if target != "" {
					what = path.Base(c.argv[0]) + " " + target
					if mod != "" {
						what = path.Base(c.argv[0]) + " -m " + mod
					}
				}
				if te != nil {
					te.Evidence = append(te.Evidence, ev(f, c.line, c.text))
				}
				kind := a.commandKind(c, f.path)
				for _, r := range rs {
					r.Runs = appendUnique(r.Runs, what)
					if te != nil && te != r {
						r.wraps = true
					}
					if kind != "other" && r.Kind == "other" && !r.fixed {
						r.Kind = kind
					}
					if te != nil || isLauncher(path.Base(c.argv[0])) {
						r.Confidence = High
					}
				}
				continue
			}
			if c.origin == "shell" || c.origin == "make" {
				continue // a test script's command: neither an entry point nor an example
			}
			// An example or usage line: attach it to what it runs.
			if te == nil {
				if sh, at := shellTarget(c.argv); sh != "" {
					if rel := a.resolve(sh, f.path); rel != "" {
						label := ""
						if at < len(c.argv) {
							label = c.argv[at]
						}
						te = a.eps["bash "+rel+" "+label]
						if te == nil {
							te = a.eps["bash "+rel]
						}
					}
				}
			}
			if te != nil && c.origin == "readme" {
				a.documented(te, c, f)
			}
			if te != nil {
				te.refs++
				if te.Usage == "" || (c.origin == "usage" && !usageLike(te.Usage)) {
					te.Usage = strings.Join(c.argv, " ")
				}
				te.Evidence = append(te.Evidence, ev(f, c.line, c.text))
			}
		}
	}
	var out []EntryPoint
	for _, k := range sortedKeys(a.eps) {
		e := a.eps[k]
		e.Evidence = sortEvidence(e.Evidence, 5)
		if e.Kind == "" {
			e.Kind = "other"
		}
		out = append(out, *e)
	}
	kindOrder := map[string]int{"train": 0, "eval": 1, "other": 2}
	usual := a.usualTargets()
	mentioned := a.mentions()
	for i := range out {
		a.trainEvidence(&out[i], mentioned)
	}
	via := func(e EntryPoint) int {
		switch {
		case e.wraps && e.Via == "shell":
			return 0
		case e.wraps:
			return 1
		case e.Via == "shell" || e.Via == "make":
			return 2
		case e.Via == "module":
			return 3
		case e.Via == "script":
			return 4
		}
		return 5
	}
	sort.SliceStable(out, func(i, j int) bool {
		if kindOrder[out[i].Kind] != kindOrder[out[j].Kind] {
			return kindOrder[out[i].Kind] < kindOrder[out[j].Kind]
		}
		if di, dj := docOrder(out[i]), docOrder(out[j]); di != dj {
			return di < dj
		}
		if ci, cj := out[i].Via == "console_script", out[j].Via == "console_script"; ci != cj && out[i].docRank != 0 {
			// Equally documented, the repository's own file runs as
			// it is; a console script must be installed first.
			return cj
		}
		if ri, rj := rlNamed(out[i]), rlNamed(out[j]); ri != rj && out[i].docRank != 0 {
			return ri
		}
		if fi, fj := out[i].docForm, out[j].docForm; fi != fj && out[i].docRank != 0 {
			// A concrete command before a form to fill in.
			return fj
		}
		if ai, aj := out[i].docAt, out[j].docAt; ai.File == aj.File && ai.File != "" && out[i].docRooted != out[j].docRooted {
			// Of the programs one document shows, one it also runs
			// from the repository's root, as the adapter does, comes
			// before one it runs only from inside its folder.
			return out[i].docRooted
		}
		if ai, aj := out[i].docAt, out[j].docAt; ai != aj {
			if ai.File != aj.File {
				return ai.File < aj.File
			}
			return ai.Line < aj.Line
		}
		if usual[out[i].Target] != usual[out[j].Target] {
			return usual[out[i].Target]
		}
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		if via(out[i]) != via(out[j]) {
			return via(out[i]) < via(out[j])
		}
		if rank(out[i].Confidence) != rank(out[j].Confidence) {
			return rank(out[i].Confidence) > rank(out[j].Confidence)
		}
		if out[i].refs != out[j].refs {
			return out[i].refs > out[j].refs
		}
		return strings.Count(out[i].Command, "/") < strings.Count(out[j].Command, "/")
	})
	for i := range out {
		out[i].Rank = i + 1
		if out[i].docArgv != nil {
			out[i].Documented = strings.Join(out[i].docArgv, " ")
		}
	}
	a.rep.EntryPoints = out
}

// mentions are the stems of the scripts the documents name, with where
// each is first named.
func (a *assembler) mentions() map[string]Evidence {
	out := map[string]Evidence{}
	for _, f := range a.files {
		for _, h := range f.hits {
			if _, ok := out[h.name]; h.cat == catMention && !ok {
				out[h.name] = ev(f, h.line, "")
			}
		}
	}
	return out
}

// trainEvidence weighs what says an entry point is the way to train when
// no document shows its command: the documents name it (or what it
// runs), it wraps a script of the repository, the program trains (a
// backward pass, an optimiser step, a framework's learn or train), it
// parses options, it is named train, main or run, and scripts or usage
// lines run it.
func (a *assembler) trainEvidence(e *EntryPoint, mentioned map[string]Evidence) {
	targets := []string{e.Target}
	for _, r := range e.Runs {
		if f := strings.Fields(r); len(f) > 1 {
			targets = append(targets, f[len(f)-1])
		}
	}
	stem := func(p string) string {
		b := path.Base(p)
		return strings.TrimSuffix(b, path.Ext(b))
	}
	name := e.Target
	if w := strings.Fields(e.Command); name == "" && len(w) > 0 {
		name = w[min(1, len(w)-1)]
	}
	for _, t := range append(targets, name) {
		if at, ok := mentioned[stem(t)]; ok && t != "" {
			e.score += 3
			e.why = append(e.why, "named in "+at.String())
			break
		}
	}
	if e.wraps {
		e.score++
		e.why = append(e.why, "a script that runs "+strings.Join(e.Runs, ", "))
	}
	for _, t := range targets {
		if f := a.byPath[t]; f != nil {
			if h, ok := f.first(catTrains, ""); ok {
				e.score += 2
				e.why = append(e.why, "trains ("+ev(f, h.line, "").String()+")")
				break
			}
		}
	}
	if e.Confidence == High && (e.Via == "script" || e.Via == "module") {
		e.score++
		e.why = append(e.why, "parses its options")
	}
	if b := strings.ToLower(stem(name)); strings.HasPrefix(b, "train") || strings.HasPrefix(b, "main") || strings.HasPrefix(b, "run") {
		e.score++
		e.why = append(e.why, "named "+path.Base(name))
	}
	if e.refs > 0 {
		e.score += min(e.refs, 2)
		e.why = append(e.why, "run by "+strconv.Itoa(e.refs)+" example or usage line(s)")
	}
}

// documented weighs a README or docs command that runs e: the closest
// document wins; at the same distance a concrete command beats a form
// with placeholders to fill in, then an example that trains beats one
// that does something else.
func (a *assembler) documented(e *EntryPoint, c cmdHit, f *facts) {
	if asksHelp(c.argv) {
		return
	}
	trains := a.documentedTrain(c.argv, e)
	form := templated(c.argv)
	r := docRank(f.path)
	if r > 3 && a.linkedDocs()[f.path] {
		r = 3
	}
	script, mod, _ := pyTarget(c.argv)
	if sh, _ := shellTarget(c.argv); script == "" && sh != "" {
		script = sh
	}
	rooted := mod != "" || script != "" && strings.TrimPrefix(script, "./") == e.Target
	switch {
	case e.docRank == 0 || r < e.docRank:
		e.docRooted = rooted
	case r == e.docRank:
		e.docRooted = e.docRooted || rooted
	}
	if e.docRank == 0 || r < e.docRank || r == e.docRank && (e.docForm && !form || e.docForm == form && trains && !e.docTrn) {
		e.docRank, e.docArgv, e.docAt, e.docTrn, e.docForm = r, c.argv, ev(f, c.line, ""), trains, form
	}
	// What the prose says of a program that shows nothing of it itself
	// (python sheeprl.py exp=ppo under "To train an agent").
	if e.Kind == "other" && !e.fixed && (trains || c.trainCtx && !dataPrepName(e.Target)) {
		e.Kind = "train"
	}
}

// linkedDocs are the READMEs the root README links to (a folder's
// README, or the page itself): where its humans send a newcomer, as
// close as the pages of the docs' start folder, after the start pages
// themselves.
func (a *assembler) linkedDocs() map[string]bool {
	if a.linked != nil {
		return a.linked
	}
	a.linked = map[string]bool{}
	for _, f := range a.files {
		if f.kind != kindReadme || strings.Contains(f.path, "/") || !strings.HasPrefix(strings.ToLower(f.path), "readme") {
			continue
		}
		for _, h := range f.hits {
			if h.cat != catLink {
				continue
			}
			if a.byPath[h.name] != nil && a.byPath[h.name].kind == kindReadme {
				a.linked[h.name] = true
			}
			for _, name := range []string{"README.md", "README.rst", "readme.md", "README"} {
				if p := path.Join(h.name, name); a.byPath[p] != nil {
					a.linked[p] = true
				}
			}
		}
	}
	return a.linked
}

// templated reports a documented command with placeholders to fill in
// ([algo], <env>, {path}): a form, not a command to run.
func templated(argv []string) bool {
	for _, w := range argv {
		if placeholder(w) {
			return true
		}
	}
	return false
}

// asksHelp reports a command that only prints its usage.
func asksHelp(argv []string) bool {
	for _, w := range argv {
		if w == "--help" || w == "-h" || w == "help" {
			return true
		}
	}
	return false
}

// isRLAlgorithm reports subcommands that train (spinup.run ppo, tool grpo).
func isRLAlgorithm(w string) bool {
	switch w {
	case "train", "ppo", "grpo", "dpo", "sac", "td3", "ddpg", "dqn", "a2c", "trpo", "vpg", "impala", "appo", "rloo",
		"reinforce", "mappo", "ippo", "qmix", "rlhf", "rl":
		return true
	}
	return false
}

// documentedTrain reports a documented command that trains although its
// program's name does not say so: a train flag or subcommand (runner.py
// --train, tool grpo), or a program that itself uses the repository's
// framework and trains.
func (a *assembler) documentedTrain(argv []string, e *EntryPoint) bool {
	for _, w := range argv[1:] {
		if w == "--train" || !strings.HasPrefix(w, "-") && isRLAlgorithm(strings.ToLower(w)) {
			return true
		}
		// The algorithm chosen by an option's value: --config=qmix,
		// algo=ppo (a path or dotted value names a file, not one).
		if i := strings.LastIndexByte(w, '='); i > 0 && isRLAlgorithm(strings.ToLower(strings.Trim(w[i+1:], `"'`))) {
			return true
		}
	}
	f := a.byPath[e.Target]
	if f == nil {
		return false
	}
	if f.has(catTrains, "") || a.callsTraining(f) {
		return true
	}
	for _, h := range f.hits {
		if h.cat == catParser && h.name == "hydra" && strings.Contains(h.text, "hydra.main") {
			return true
		}
	}
	return false
}

// callsTraining reports a script that trains through the repository's
// own code: it calls a method another file defines that trains
// (agent.update_parameters(memory, batch_size), where update_parameters
// steps an optimiser).
func (a *assembler) callsTraining(f *facts) bool {
	if f.src == "" {
		return false
	}
	if a.trainDefs == nil {
		a.trainDefs = map[string]bool{}
		for _, g := range a.files {
			if g.src == "" || !g.has(catTrains, "") {
				continue
			}
			for _, d := range pyDefs(g) {
				body := g.src[d.body:d.end]
				if strings.HasPrefix(d.name, "__") || d.name == "forward" {
					continue
				}
				for _, lit := range trainCalls {
					if strings.Contains(body, lit) {
						a.trainDefs[d.name] = true
						break
					}
				}
			}
		}
	}
	for _, c := range callsIn(f.src, 0, len(f.src), func(n string) bool { return a.trainDefs[n] }) {
		if strings.Contains(c.callee, ".") && len(c.args) > 0 {
			return true
		}
	}
	return false
}

// rlNamed reports an entry point whose command names an RL algorithm
// (train_ppo_ray, grpo.py): of the documented ways to train, the RL one
// comes before supervised fine-tuning and data preparation.
func rlNamed(e EntryPoint) bool {
	// The documented subcommands count (uv run rl @ x.toml), not the
	// paths and values it passes (configs/rl.toml).
	words := []string{e.Command}
	for _, w := range e.docArgv {
		if !strings.ContainsAny(w, "/.=") {
			words = append(words, w)
		}
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(strings.Join(words, " ")), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if w != "train" && isRLAlgorithm(w) {
			return true
		}
	}
	return false
}

// docRank says how close to its humans a document is: the root README,
// then the docs' start pages (the page itself, a root page named as one,
// then the pages of its folder; the root's other pages rank with these),
// the other docs, other READMEs, and release notes last.
func docRank(p string) int {
	base := strings.ToLower(path.Base(p))
	for _, w := range []string{"changelog", "changes", "history", "news", "release"} {
		if strings.HasPrefix(base, w) {
			// Release notes show what changed, not how to run it.
			return 6
		}
	}
	switch {
	case !strings.Contains(p, "/") && strings.HasPrefix(base, "readme"):
		return 1
	case !strings.Contains(p, "/") && startPage(base):
		return 2
	case !strings.Contains(p, "/"):
		// The root's other pages (contributing, agent instructions)
		// speak to those who change the code, after the start pages.
		return 3
	case inDocs(p) && startPage(path.Base(p)):
		return 2
	case inDocs(p) && startPage(path.Dir(p)):
		return 3
	case inDocs(p):
		return 4
	}
	return 5
}

// startPage reports a page, or a folder of the docs, written for a
// newcomer's first run (docs/start/quickstart.rst,
// docs/getting_started.md): its command is the way in, ahead of the
// advanced pages'.
func startPage(p string) bool {
	for _, part := range strings.Split(strings.ToLower(p), "/") {
		part = strings.TrimSuffix(part, path.Ext(part))
		part = strings.NewReplacer("-", "", "_", "", " ", "").Replace(part)
		switch part {
		case "start", "quickstart", "gettingstarted", "getstarted", "starthere", "firststeps", "usage":
			return true
		}
	}
	return false
}

// docOrder sorts documented entry points first, by their document; a
// console script is run by name and needs no draft.
func docOrder(e EntryPoint) int {
	if e.docRank == 0 {
		return 7
	}
	return e.docRank
}

// trusted lists the matched profiles whose framework is not a low
// confidence guess: only they lend their usual commands and forms.
func (a *assembler) trusted() []int {
	var out []int
	for k, i := range a.matched {
		if a.rep.Frameworks[k].Confidence != Low {
			out = append(out, i)
		}
	}
	return out
}

// usualTargets are the scripts the matched frameworks' usual commands
// run, as repository paths: those entry points come first.
func (a *assembler) usualTargets() map[string]bool {
	out := map[string]bool{}
	for _, i := range a.trusted() {
		for _, cmd := range a.profiles[i].Commands {
			script, mod, _ := pyTarget(strings.Fields(cmd))
			switch {
			case script != "" && a.lst.paths[script]:
				out[script] = true
			case mod != "":
				if f := a.moduleFile(mod); f != "" {
					out[f] = true
				}
			}
		}
	}
	return out
}

// runnersOf lists the runner entries a runner's command belongs to: its
// subcommand's, or every subcommand's for a command outside the dispatch.
func runnersOf(runner map[string]*EntryPoint, c cmdHit) []*EntryPoint {
	if c.origin != "shell" && c.origin != "make" {
		return nil
	}
	if r := runner[c.label]; r != nil {
		return []*EntryPoint{r}
	}
	if c.label != "" {
		return nil
	}
	var rs []*EntryPoint
	for _, k := range sortedKeys(runner) {
		rs = append(rs, runner[k])
	}
	return rs
}

// importedFlags are the options defined by the functions a script imports
// from the repository's own modules (from pkg.cli import train_parser).
func (a *assembler) importedFlags(f *facts) []flagDef {
	var out []flagDef
	for _, h := range f.hits {
		if h.cat != catImport || h.detail == "" {
			continue
		}
		g := a.byPath[a.moduleFile(h.name)]
		if g == nil {
			continue
		}
		names := map[string]bool{}
		for _, n := range strings.Split(h.detail, ",") {
			if w := strings.Fields(n); len(w) > 0 {
				names[w[0]] = true
			}
		}
		for _, fd := range g.flags {
			if fd.fn != "" && names[fd.fn] {
				out = append(out, fd)
			}
		}
	}
	// absl's flags are the process's: app.run parses those of every
	// module imported (bin/learn running brax.training.learner's main).
	if strings.Contains(f.src, "app.run(") {
		for _, h := range f.hits {
			if h.cat != catImport {
				continue
			}
			mods := []string{h.name}
			for _, n := range strings.Split(h.detail, ",") {
				if w := strings.Fields(n); len(w) > 0 {
					mods = append(mods, h.name+"."+w[0])
				}
			}
			for _, m := range mods {
				g := a.byPath[a.moduleFile(m)]
				if g == nil || g == f || !strings.Contains(g.src, "flags.DEFINE_") {
					continue
				}
				for _, fd := range g.flags {
					if fd.fn == "" {
						out = append(out, fd)
					}
				}
			}
		}
	}
	return out
}

// binScript is the entry point of a program a README runs by its name
// alone that is no console script but an executable Python file of the
// repository without an extension (brax's bin/learn), which runs from
// the root as python bin/learn whatever it parses.
func (a *assembler) binScript(name string) *EntryPoint {
	for _, p := range a.byBase[name] {
		f := a.byPath[p]
		if f == nil || f.kind != kindPython || path.Ext(p) != "" || isTestPath(p) {
			continue
		}
		m, ok := f.first(catMain, "")
		if !ok {
			continue
		}
		e := a.ep("python " + p)
		if e.Target == "" {
			e.Kind, e.Via, e.Target, e.Confidence = nameKind(p), "script", p, Medium
			e.flags = append(append([]flagDef(nil), f.flags...), a.importedFlags(f)...)
			e.Evidence = append(e.Evidence, ev(f, m.line, m.text))
		}
		return e
	}
	return nil
}

// knownModule reports a module a framework profile runs with python -m.
func (a *assembler) knownModule(mod string) bool {
	for _, p := range a.profiles {
		if moduleMatch(mod, p.Detect.Modules) {
			return true
		}
	}
	return nameKind(mod) == "train"
}

// runnerEntries makes the entry points of a shell runner or Makefile: one
// per subcommand or target that runs something, else one for the script.
func (a *assembler) runnerEntries(f *facts) map[string]*EntryPoint {
	out := map[string]*EntryPoint{}
	labels := map[string]bool{}
	for _, c := range f.commands {
		if c.origin == "shell" || c.origin == "make" {
			labels[c.label] = true
		}
	}
	if len(labels) == 0 {
		return out
	}
	if f.kind == kindShell {
		for _, s := range f.subcmds {
			labels[s.label] = true
		}
		// Runner-level commands (the preflight, the final exec) belong to
		// every subcommand.
		if len(f.subcmds) > 0 {
			delete(labels, "")
		}
	}
	for _, label := range sortedKeys(labels) {
		var e *EntryPoint
		switch {
		case f.kind == kindMake:
			e = a.ep("make " + label)
			e.Via, e.Target = "make", f.path
		case label == "":
			e = a.ep("bash " + f.path)
			e.Via, e.Target = "shell", f.path
		default:
			e = a.ep("bash " + f.path + " " + label)
			e.Via, e.Target = "shell", f.path
		}
		e.Confidence = Medium
		if label == "" {
			e.Kind = nameKind(f.path)
		} else {
			e.Kind = nameKind(label)
		}
		e.fixed = utilityName(f.path) || label != "" && e.Kind != "other"
		for _, s := range f.subcmds {
			if s.label == label {
				e.Evidence = append(e.Evidence, ev(f, s.line, s.text))
			}
		}
		if label == "" && len(e.Evidence) == 0 {
			e.Evidence = append(e.Evidence, Evidence{File: f.path})
		}
		if h, ok := f.first(catParser, "preflight"); ok {
			switch h.detail {
			case "PREFLIGHT_ONLY":
				if e.preflag == "" {
					e.preflag = "PREFLIGHT_ONLY=1"
				}
			default:
				e.preflag = h.detail
			}
		}
		out[label] = e
	}
	return out
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
