package audit

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/rlxp/rlxp/internal/guard"
)

// An assembler turns every file's facts into the report.
type assembler struct {
	lst      *listing
	files    []*facts
	byPath   map[string]*facts
	byBase   map[string][]string // base name -> paths, for resolving script words
	paths    []string            // every listed path, sorted
	profiles []Profile
	matched  []int // profiles with evidence, best first
	rep      *Report
	eps      map[string]*EntryPoint
}

func assemble(root string, lst *listing, files []*facts, profiles []Profile) *Report {
	a := &assembler{lst: lst, files: files, profiles: profiles, byPath: map[string]*facts{}, byBase: map[string][]string{},
		eps: map[string]*EntryPoint{}}
	for _, f := range files {
		a.byPath[f.path] = f
	}
	a.paths = sortedKeys(lst.paths)
	for _, p := range a.paths {
		a.byBase[path.Base(p)] = append(a.byBase[path.Base(p)], p)
	}
	a.rep = &Report{Schema: Schema, Root: root}
	a.fileStats()
	a.frameworks()
	a.entryPoints()
	a.outputs()
	a.tags()
	a.config()
	a.logging()
	a.launchers()
	a.simulators()
	a.hardware()
	a.draft()
	a.scope()
	a.candidates()
	a.questions()
	a.guesses()
	a.rep.emptyLists()
	return a.rep
}

// emptyLists makes absent lists empty, so that JSON readers see [] and
// not null.
func (r *Report) emptyLists() {
	for _, l := range []*[]Finding{&r.Frameworks, &r.Config, &r.Logging, &r.Launchers, &r.Simulators, &r.Hardware} {
		if *l == nil {
			*l = []Finding{}
		}
	}
	for _, l := range []*[]Candidate{&r.MetricCandidates, &r.Guardrails} {
		if *l == nil {
			*l = []Candidate{}
		}
	}
	if r.EntryPoints == nil {
		r.EntryPoints = []EntryPoint{}
	}
	if r.Tags == nil {
		r.Tags = []Tag{}
	}
	if r.Outputs == nil {
		r.Outputs = []Output{}
	}
	if r.Scope == nil {
		r.Scope = []Param{}
	}
	if r.Guesses == nil {
		r.Guesses = []string{}
	}
	for _, l := range [][]Finding{r.Frameworks, r.Config, r.Logging, r.Launchers, r.Simulators, r.Hardware} {
		for i := range l {
			if l[i].Evidence == nil {
				l[i].Evidence = []Evidence{}
			}
		}
	}
}

func (a *assembler) fileStats() {
	a.rep.Files = Files{Listed: len(a.lst.paths), Scanned: len(a.files), Skipped: a.lst.skipped, SkippedDirs: a.lst.skipDir}
}

// ev is evidence from a fact.
func ev(f *facts, line int, text string) Evidence {
	return Evidence{File: f.path, Line: line, Text: text}
}

// collector gathers evidence per name, keeping the best confidence.
type collector struct {
	order  []string
	conf   map[string]Confidence
	ev     map[string][]Evidence
	detail map[string]string
	kind   map[string]string
}

func newCollector() *collector {
	return &collector{conf: map[string]Confidence{}, ev: map[string][]Evidence{}, detail: map[string]string{}, kind: map[string]string{}}
}

func (c *collector) add(name string, conf Confidence, e Evidence) {
	if _, ok := c.conf[name]; !ok {
		c.order = append(c.order, name)
		c.conf[name] = conf
	}
	if rank(conf) > rank(c.conf[name]) {
		c.conf[name] = conf
	}
	if len(c.ev[name]) < 50 {
		c.ev[name] = append(c.ev[name], e)
	}
}

// findings lists what was collected, best confidence first, then in the
// order first seen.
func (c *collector) findings(maxEv int) []Finding {
	out := make([]Finding, 0, len(c.order))
	for _, n := range c.order {
		out = append(out, Finding{Name: n, Kind: c.kind[n], Detail: c.detail[n], Confidence: c.conf[n], Evidence: sortEvidence(c.ev[n], maxEv)})
	}
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i].Confidence) > rank(out[j].Confidence) })
	return out
}

// moduleMatch reports a dotted module equal to or inside one of prefixes.
func moduleMatch(mod string, prefixes []string) bool {
	for _, p := range prefixes {
		if mod == p || strings.HasPrefix(mod, p+".") {
			return true
		}
	}
	return false
}

func depMatch(dep string, names []string) bool {
	for _, n := range names {
		if depName(n) == dep || strings.ReplaceAll(strings.ToLower(n), "_", "-") == dep {
			return true
		}
	}
	return false
}

func (a *assembler) frameworks() {
	type match struct {
		idx   int
		conf  Confidence
		score int
		ev    []Evidence
	}
	// A library only imported (a hub client loading models, a dataset
	// package listing it among its extras) is not the framework a
	// repository trains with: a framework needs a file that imports it
	// and trains or runs as a program, a runner of its module, or a code
	// signal of its own. A custom loop needs something that trains.
	trainsAny := false
	for _, f := range a.files {
		trainsAny = trainsAny || f.has(catTrains, "") && !isTestPath(f.path)
	}
	var ms []match
	for i, p := range a.profiles {
		m := match{idx: i}
		used := false
		add := func(c Confidence, e Evidence) {
			m.score += rank(c)
			if rank(c) > rank(m.conf) {
				m.conf = c
			}
			m.ev = append(m.ev, e)
		}
		for _, f := range a.files {
			for _, h := range f.hits {
				switch {
				case h.cat == catImport && moduleMatch(h.name, p.Detect.Imports):
					add(High, ev(f, h.line, h.text))
					used = used || f.has(catTrains, "") || f.has(catMain, "")
				case h.cat == catDep && depMatch(h.name, p.Detect.Packages):
					add(High, ev(f, h.line, h.text))
				case h.cat == catSignal && h.name == strconv.Itoa(i):
					add(h.conf, ev(f, h.line, h.text))
					used = used || p.Generic && trainsAny || !p.Generic && rank(h.conf) >= rank(Medium)
				}
			}
			for _, c := range f.commands {
				if _, mod, _ := pyTarget(c.argv); mod != "" && moduleMatch(mod, p.Detect.Modules) {
					add(High, ev(f, c.line, c.text))
					used = true
				}
			}
		}
		if !used {
			continue
		}
		for _, g := range p.Detect.Paths {
			for _, pth := range a.paths {
				if wildmatch(g, pth) {
					add(Medium, Evidence{File: pth})
					break
				}
			}
		}
		if m.conf != "" {
			ms = append(ms, m)
		}
	}
	sort.SliceStable(ms, func(i, j int) bool {
		if rank(ms[i].conf) != rank(ms[j].conf) {
			return rank(ms[i].conf) > rank(ms[j].conf)
		}
		return ms[i].score > ms[j].score
	})
	kept := ms[:0]
	for _, m := range ms {
		files := map[string]bool{}
		for _, e := range m.ev {
			files[e.File] = true
		}
		switch {
		case !a.profiles[m.idx].Generic && m.conf != High && len(files) < 2:
			// Without an import, dependency or runner, one file's pattern
			// is a coincidence, not a framework.
		case m.conf == Low && m.score < 2:
			// A lone low-confidence hint is not a framework either.
		default:
			kept = append(kept, m)
		}
	}
	specific := false
	for _, m := range kept {
		specific = specific || !a.profiles[m.idx].Generic && m.conf != Low
	}
	var lead *match
	for _, m := range kept {
		p := a.profiles[m.idx]
		if p.Generic && specific {
			continue
		}
		detail := p.Notes
		// A framework the code barely touches next to the main one (verl
		// importing trl in one helper) is a dependency, not the framework.
		if lead != nil && m.score*10 < lead.score {
			m.conf = Low
			detail = fmt.Sprintf("few references next to %s: likely a dependency, not the framework in use", a.profiles[lead.idx].Name)
		}
		if lead == nil {
			lead = &m
		}
		a.matched = append(a.matched, m.idx)
		a.rep.Frameworks = append(a.rep.Frameworks, Finding{Name: p.Name, Kind: p.ID, Detail: detail, Confidence: m.conf, Evidence: sortEvidence(m.ev, 5)})
	}
	if len(a.rep.Frameworks) == 0 {
		a.rep.Frameworks = []Finding{{Name: "unknown", Kind: "unknown", Confidence: Low, Evidence: []Evidence{},
			Detail: "no RL framework recognised: no known RL library import or dependency, no known runner, no environment-stepping loop"}}
	}
}

// pyTarget finds what a command runs in Python: the script word or the
// module, and the index of its first argument. Launchers (torchrun,
// accelerate launch, deepspeed, srun, mpirun) are looked through.
func pyTarget(argv []string) (script, module string, argsAt int) {
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		name := path.Base(w)
		switch {
		case isPythonName(name):
			for j := i + 1; j < len(argv); j++ {
				a := argv[j]
				switch {
				case a == "-m" && j+1 < len(argv):
					return "", argv[j+1], j + 2
				case a == "-W" || a == "-X":
					j++
				case strings.HasPrefix(a, "-"):
				default:
					return a, "", j + 1
				}
			}
			return "", "", len(argv)
		case (w == "-m" || w == "--module") && i > 0 && i+1 < len(argv) && isLauncher(path.Base(argv[0])):
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

// moduleFile finds the file of a module in the repository.
func (a *assembler) moduleFile(mod string) string {
	rel := strings.ReplaceAll(mod, ".", "/")
	for _, prefix := range []string{"", "src/"} {
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
	for _, f := range a.files {
		runner := runners[f.path]
		for _, c := range f.commands {
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
			if te == nil && mod != "" && target != "" && c.origin == "readme" && a.byPath[target] != nil && a.byPath[target].has(catMain, "") {
				// A module the docs run (python -m spinup.run ppo) that
				// parses its arguments by hand.
				te = a.ep("python -m " + mod)
				te.Kind, te.Via, te.Target = nameKind(mod), "module", target
				te.Confidence = Medium
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
			if te != nil && c.origin == "readme" && !asksHelp(c.argv) && !templated(c.argv) {
				// The closest document wins; at the same distance, an
				// example that trains beats one that does something else.
				trains := a.documentedTrain(c.argv, te)
				if r := docRank(f.path); te.docRank == 0 || r < te.docRank || r == te.docRank && trains && !te.docTrn {
					te.docRank, te.docArgv, te.docAt, te.docTrn = r, c.argv, ev(f, c.line, ""), trains
				}
				if te.Kind == "other" && !te.fixed && trains {
					te.Kind = "train"
				}
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
	// Console scripts.
	for _, f := range a.files {
		for _, s := range f.scripts {
			e := a.ep(s.name)
			e.Kind, e.Via, e.Target, e.Confidence = nameKind(s.name, s.detail), "console_script", s.detail, Medium
			e.Evidence = append(e.Evidence, ev(f, s.line, s.text))
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
		if ri, rj := rlNamed(out[i]), rlNamed(out[j]); ri != rj && out[i].docRank != 0 {
			return ri
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

// templated reports a documented command with placeholders to fill in
// ([algo], <env>, {path}): a form, not a command to run.
func templated(argv []string) bool {
	for _, w := range argv {
		if strings.ContainsAny(w, "[<{") {
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

// rlAlgorithms are subcommands that train (spinup.run ppo, tool grpo).
var rlAlgorithms = map[string]bool{
	"train": true, "ppo": true, "grpo": true, "dpo": true, "sac": true, "td3": true, "ddpg": true, "dqn": true,
	"a2c": true, "trpo": true, "vpg": true, "impala": true, "appo": true, "rloo": true, "reinforce": true,
	"mappo": true, "ippo": true, "qmix": true, "rlhf": true,
}

// documentedTrain reports a documented command that trains although its
// program's name does not say so: a train flag or subcommand (runner.py
// --train, tool grpo), or a program that itself uses the repository's
// framework and trains.
func (a *assembler) documentedTrain(argv []string, e *EntryPoint) bool {
	for _, w := range argv[1:] {
		if w == "--train" || !strings.HasPrefix(w, "-") && rlAlgorithms[strings.ToLower(w)] {
			return true
		}
	}
	f := a.byPath[e.Target]
	if f == nil {
		return false
	}
	if f.has(catTrains, "") {
		return true
	}
	for _, h := range f.hits {
		if h.cat == catParser && h.name == "hydra" && strings.Contains(h.text, "hydra.main") {
			return true
		}
	}
	return false
}

// rlNamed reports an entry point whose command names an RL algorithm
// (train_ppo_ray, grpo.py): of the documented ways to train, the RL one
// comes before supervised fine-tuning and data preparation.
func rlNamed(e EntryPoint) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(e.Command+" "+e.Documented), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if w != "train" && rlAlgorithms[w] {
			return true
		}
	}
	return false
}

// docRank says how close to its humans a document is: the root README,
// then the docs, then other READMEs.
func docRank(p string) int {
	switch {
	case !strings.Contains(p, "/"):
		return 1
	case inDocs(p):
		return 2
	}
	return 3
}

// docOrder sorts documented entry points first, by their document; a
// console script is run by name and needs no draft.
func docOrder(e EntryPoint) int {
	if e.docRank == 0 {
		return 4
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
	return out
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

// outputs merges what the code writes.
func (a *assembler) outputs() {
	type key struct{ path, kind string }
	seen := map[key]int{}
	for _, f := range a.files {
		fileKind := nameKind(f.path)
		for _, o := range f.outputs {
			p := o.name
			if runDirVar(o.dirVar) {
				p = "{run_dir}/" + o.name
			} else if o.dirVar != "" {
				p = "{" + o.dirVar + "}/" + o.name
			}
			role := "train"
			if nameKind(o.name) == "eval" || fileKind == "eval" || evalName(o.name) {
				role = "eval"
			}
			if o.kind == "checkpoint" || o.kind == "config" || o.kind == "logdir" && role == "train" {
				if o.kind != "logdir" {
					role = ""
				}
			}
			k := key{p, o.kind}
			if i, ok := seen[k]; ok {
				a.rep.Outputs[i].Evidence = append(a.rep.Outputs[i].Evidence, ev(f, o.line, o.text))
				continue
			}
			seen[k] = len(a.rep.Outputs)
			a.rep.Outputs = append(a.rep.Outputs, Output{Path: p, Kind: o.kind, Format: o.format, Role: role, Confidence: o.conf,
				Evidence: []Evidence{ev(f, o.line, o.text)}})
		}
	}
	for _, d := range a.lst.skipDir {
		if d.Reason == skipOutputs {
			a.rep.Outputs = append(a.rep.Outputs, Output{Path: d.Path, Kind: "existing", Confidence: High,
				Evidence: []Evidence{{File: d.Path}}})
		}
	}
	for i := range a.rep.Outputs {
		a.rep.Outputs[i].Evidence = sortEvidence(a.rep.Outputs[i].Evidence, 3)
	}
}

// tags merges the metric tags the code logs and ties each to the file it
// is written to when the writing file names one of that format.
func (a *assembler) tags() {
	idx := map[string]int{}
	for _, f := range a.files {
		for _, t := range f.tags {
			out := ""
			var match []string
			for _, o := range f.outputs {
				if o.format == t.backend || (t.backend == "tensorboard" && o.kind == "logdir") {
					p := o.name
					if runDirVar(o.dirVar) {
						p = "{run_dir}/" + o.name
					}
					match = append(match, p)
				}
			}
			if len(match) == 1 {
				out = match[0]
			}
			if i, ok := idx[t.tag]; ok {
				x := &a.rep.Tags[i]
				if rank(t.conf) > rank(x.Confidence) {
					x.Confidence, x.Backend = t.conf, t.backend
				}
				if x.Output == "" {
					x.Output = out
				}
				x.Evidence = append(x.Evidence, ev(f, t.line, t.text))
				continue
			}
			idx[t.tag] = len(a.rep.Tags)
			a.rep.Tags = append(a.rep.Tags, Tag{Tag: t.tag, Backend: t.backend, Role: tagRole(t.tag), Output: out, Confidence: t.conf,
				Evidence: []Evidence{ev(f, t.line, t.text)}})
		}
	}
	for i := range a.rep.Tags {
		a.rep.Tags[i].Evidence = sortEvidence(a.rep.Tags[i].Evidence, 3)
	}
	a.frameworkTags(idx)
	sort.SliceStable(a.rep.Tags, func(i, j int) bool {
		ri, rj := roleOrder(a.rep.Tags[i].Role), roleOrder(a.rep.Tags[j].Role)
		if ri != rj {
			return ri < rj
		}
		if rank(a.rep.Tags[i].Confidence) != rank(a.rep.Tags[j].Confidence) {
			return rank(a.rep.Tags[i].Confidence) > rank(a.rep.Tags[j].Confidence)
		}
		return a.rep.Tags[i].Tag < a.rep.Tags[j].Tag
	})
}

// frameworkTags adds the tags a matched framework writes itself (its
// profile), as written by it: confirmed where an installed copy of the
// library in or beside the repository writes the tag literally, guessed
// otherwise.
func (a *assembler) frameworkTags(idx map[string]int) {
	for k, i := range a.matched {
		if a.rep.Frameworks[k].Confidence == Low {
			continue
		}
		p := a.profiles[i]
		var fw Evidence
		if ev := a.rep.Frameworks[k].Evidence; len(ev) > 0 {
			fw = ev[0]
		}
		backend := ""
		if len(p.Backends) > 0 {
			backend = p.Backends[0]
		}
		lib := a.installed(p)
		add := func(tag, role string) {
			if strings.Contains(tag, "*") {
				return
			}
			if _, ok := idx[tag]; ok {
				return
			}
			t := Tag{Tag: tag, Backend: backend, Role: role, WrittenBy: p.ID, Guessed: true, Confidence: Low,
				Evidence: []Evidence{{File: fw.File, Line: fw.Line, Text: "written by " + p.Name + " (profile)"}}}
			if e, ok := lib.find(tag); ok {
				t.Guessed, t.Confidence, t.Evidence = false, Medium, []Evidence{e}
			}
			idx[tag] = len(a.rep.Tags)
			a.rep.Tags = append(a.rep.Tags, t)
		}
		for _, t := range p.Tags.Eval {
			add(t, roleEval)
		}
		for _, t := range p.Tags.Train {
			add(t, roleTrainReward)
		}
		for _, g := range p.Guardrails {
			add(g.Tag, g.Kind)
		}
	}
}

// configDir reports directories that hold configuration files.
func configDir(p string) bool {
	for _, d := range strings.Split(path.Dir(p), "/") {
		switch strings.ToLower(d) {
		case "config", "configs", "conf", "cfg", "cfgs", "hyperparams", "hparams", "presets", "experiments", "exp", "recipes", "recipe":
			return true
		}
	}
	return false
}

func (a *assembler) config() {
	sys := newCollector()
	for _, f := range a.files {
		for _, h := range f.hits {
			switch {
			case h.cat == catParser && h.name != "preflight":
				sys.add(h.name, High, ev(f, h.line, h.text))
				sys.kind[h.name] = "system"
			case h.cat == catConfigLoad:
				name := h.name
				if name == "hydra" {
					name = "hydra config tree"
				}
				line := h.line
				conf := h.conf
				if name == "env" {
					line = 0
					name = "env files"
				}
				sys.add(name, conf, ev(f, line, h.text))
				sys.kind[name] = "loader"
			case h.cat == catHydra:
				sys.add("hydra overrides", High, ev(f, h.line, h.text))
				sys.kind["hydra overrides"] = "overrides"
				if d := sys.detail["hydra overrides"]; strings.Count(d, ",") < 5 && !strings.Contains(d, h.name) {
					sys.detail["hydra overrides"] = strings.TrimPrefix(d+", "+h.name, ", ")
				}
			case h.cat == catEnvTemplate:
				name := "fill in " + f.path
				sys.add(name, High, ev(f, h.line, h.text))
				sys.kind[name] = "env_template"
			}
		}
	}
	a.rep.Config = sys.findings(3)
	// Hydra's main config, from @hydra.main(config_path, config_name).
	mains := map[string]int{}
	for _, f := range a.files {
		for _, h := range f.hits {
			if h.cat != catParser || h.name != "hydra" || h.detail == "" {
				continue
			}
			var dir, name string
			for _, kv := range strings.Fields(h.detail) {
				k, v, _ := strings.Cut(kv, "=")
				if k == "config_path" {
					dir = v
				} else {
					name = v
				}
			}
			p := path.Join(path.Dir(f.path), dir, name+".yaml")
			conf := High
			if !a.lst.paths[p] {
				conf = Low
			}
			if i, ok := mains[p]; ok {
				a.rep.Config[i].Evidence = append(a.rep.Config[i].Evidence, ev(f, h.line, h.text))
				continue
			}
			mains[p] = len(a.rep.Config)
			a.rep.Config = append(a.rep.Config, Finding{Name: p, Kind: "main_config", Detail: "@hydra.main config", Confidence: conf, Evidence: []Evidence{ev(f, h.line, h.text)}})
		}
	}
	var files []string
	for _, p := range a.paths {
		switch extOf(p) {
		case "yaml", "yml", "json", "toml", "env", "gin", "ini":
			if configDir(p) {
				files = append(files, p)
			}
		case "py":
			if configDir(p) && !strings.HasSuffix(p, "__init__.py") || strings.HasSuffix(p, "_config.py") || strings.HasSuffix(p, "_cfg.py") {
				files = append(files, p)
			}
		}
	}
	for i, p := range files {
		if i == 15 {
			a.rep.Config = append(a.rep.Config, Finding{Name: fmt.Sprintf("%d more config files", len(files)-15), Kind: "file", Confidence: High})
			break
		}
		a.rep.Config = append(a.rep.Config, Finding{Name: p, Kind: "file", Confidence: High, Evidence: []Evidence{{File: p}}})
	}
}

// loggingImports maps modules to the logging backends they are.
var loggingImports = []struct{ mod, id string }{
	{"torch.utils.tensorboard", "tensorboard"}, {"tensorboardX", "tensorboard"}, {"tensorboard", "tensorboard"},
	{"wandb", "wandb"}, {"mlflow", "mlflow"}, {"swanlab", "swanlab"}, {"clearml", "clearml"},
	{"neptune", "neptune"}, {"comet_ml", "comet"}, {"aim", "aim"}, {"trackio", "trackio"}, {"dvclive", "dvclive"},
}

// backendNames names the backends facts record, by id.
var backendNames = map[string]string{
	"tensorboard": "TensorBoard", "wandb": "Weights & Biases", "mlflow": "MLflow", "csv": "CSV files",
	"jsonl": "JSONL files", "json": "JSON files", "sb3": "Stable-Baselines3 logger", "tracking": "verl Tracking",
	"console": "console lines", "swanlab": "SwanLab", "clearml": "ClearML", "trackio": "Trackio",
	"neptune": "Neptune", "comet": "Comet", "aim": "Aim", "dvclive": "DVCLive", "tsv": "tab-separated text files",
}

// backendID is the id of a backend as facts and configs spell it.
func backendID(b string) string {
	switch b = strings.ToLower(b); b {
	case "file":
		return "jsonl"
	case "tb", "tensorboardx":
		return "tensorboard"
	case "mflow":
		return "mlflow"
	}
	return b
}

func backendName(id string) string {
	if n, ok := backendNames[id]; ok {
		return n
	}
	return id
}

func (a *assembler) logging() {
	c := newCollector()
	add := func(id string, conf Confidence, e Evidence) {
		name := backendName(id)
		c.kind[name] = id
		c.add(name, conf, e)
	}
	for k, i := range a.matched {
		if a.rep.Frameworks[k].Confidence == Low {
			continue
		}
		p := a.profiles[i]
		for _, b := range p.Backends {
			e := Evidence{Text: "written by " + p.Name + " (profile)"}
			if ev := a.rep.Frameworks[k].Evidence; len(ev) > 0 {
				e.File, e.Line = ev[0].File, ev[0].Line
			}
			add(b, Medium, e)
		}
	}
	for _, f := range a.files {
		for _, h := range f.hits {
			switch h.cat {
			case catImport:
				for _, l := range loggingImports {
					if moduleMatch(h.name, []string{l.mod}) {
						add(l.id, Medium, ev(f, h.line, h.text))
						break
					}
				}
			case catBackend:
				add(backendID(h.name), h.conf, ev(f, h.line, h.text))
			case catHydra:
				if strings.HasSuffix(h.name, "logger") {
					for _, b := range strings.FieldsFunc(h.detail, func(r rune) bool { return strings.ContainsRune("[]'\", ", r) }) {
						add(backendID(b), High, ev(f, h.line, h.text))
					}
				}
			}
		}
	}
	a.rep.Logging = c.findings(3)
}

func (a *assembler) launchers() {
	c := newCollector()
	for _, f := range a.files {
		for _, h := range f.hits {
			switch {
			case h.cat == catLauncher:
				c.add(h.name, h.conf, ev(f, h.line, h.text))
			case h.cat == catImport && moduleMatch(h.name, []string{"submitit"}):
				c.add("Slurm (submitit)", Medium, ev(f, h.line, h.text))
			}
		}
		for _, cmd := range f.commands {
			if cmd.origin == "readme" || cmd.origin == "docstring" {
				continue
			}
			name := path.Base(cmd.argv[0])
			what := ""
			switch name {
			case "torchrun":
				what = "torchrun"
			case "deepspeed":
				what = "DeepSpeed"
			case "accelerate":
				what = "accelerate"
			case "srun", "sbatch":
				what = "Slurm"
			case "mpirun", "mpiexec", "horovodrun":
				what = "MPI"
			case "ray":
				what = "Ray"
			}
			if _, mod, _ := pyTarget(cmd.argv); mod == "torch.distributed.run" || mod == "torch.distributed.launch" {
				what = "torchrun"
			}
			if what != "" {
				c.add(what, High, ev(f, cmd.line, cmd.text))
			}
		}
	}
	a.rep.Launchers = c.findings(3)
}

// simImports maps modules to the simulators they are.
var simImports = []struct{ mod, name string }{
	{"gymnasium", "Gymnasium"}, {"gym", "OpenAI Gym"}, {"isaacgym", "Isaac Gym"}, {"isaacgymenvs", "Isaac Gym"},
	{"isaaclab", "Isaac Lab"}, {"omni.isaac.lab", "Isaac Lab"}, {"omni.isaac.orbit", "Isaac Lab (Orbit)"},
	{"omni.isaac", "Isaac Sim"}, {"isaacsim", "Isaac Sim"}, {"mujoco.mjx", "MuJoCo MJX"}, {"mujoco_warp", "MuJoCo Warp"},
	{"mujoco", "MuJoCo"}, {"mujoco_py", "MuJoCo (mujoco-py)"}, {"brax", "Brax"}, {"dm_control", "dm_control"},
	{"pybullet", "PyBullet"}, {"mani_skill", "ManiSkill"}, {"mani_skill2", "ManiSkill"}, {"procgen", "Procgen"},
	{"ale_py", "Arcade Learning Environment"}, {"envpool", "EnvPool"}, {"metaworld", "Meta-World"},
	{"genesis", "Genesis"}, {"habitat_sim", "Habitat"}, {"habitat", "Habitat"}, {"minigrid", "MiniGrid"},
	{"pettingzoo", "PettingZoo"}, {"vmas", "VMAS"}, {"jumanji", "Jumanji"}, {"gymnax", "Gymnax"},
	{"craftax", "Craftax"}, {"sapien", "SAPIEN"}, {"robosuite", "robosuite"}, {"vizdoom", "ViZDoom"},
	{"nle", "NetHack"}, {"minerl", "MineRL"}, {"carla", "CARLA"}, {"highway_env", "highway-env"},
	{"safety_gymnasium", "Safety-Gymnasium"}, {"smac", "SMAC"}, {"smacv2", "SMACv2"}, {"dm_env", "dm_env"},
}

func (a *assembler) simulators() {
	c := newCollector()
	ids := newCollector()
	for _, f := range a.files {
		for _, h := range f.hits {
			switch h.cat {
			case catImport:
				for _, s := range simImports {
					if moduleMatch(h.name, []string{s.mod}) {
						c.add(s.name, High, ev(f, h.line, h.text))
						c.kind[s.name] = "simulator"
						break
					}
				}
			case catEnvID:
				ids.add(h.name, h.conf, ev(f, h.line, h.text))
				ids.kind[h.name] = "env_id"
				if h.detail != "" && ids.conf[h.name] == Low {
					ids.detail[h.name] = h.detail
				}
			case catCustomEnv:
				name := "custom environment " + h.name
				c.add(name, h.conf, ev(f, h.line, h.text))
				c.kind[name] = "custom_env"
				c.detail[name] = h.detail
			}
		}
	}
	a.rep.Simulators = c.findings(3)
	envs := ids.findings(2)
	if len(envs) > 20 {
		envs = envs[:20]
	}
	a.rep.Simulators = append(a.rep.Simulators, envs...)
}

// hardwareKey reports a config key that sets hardware: GPUs, nodes,
// processes per node.
func hardwareKey(k string) bool {
	if i := strings.LastIndexByte(k, '.'); i >= 0 {
		k = k[i+1:]
	}
	switch strings.ToLower(k) {
	case "n_gpus_per_node", "nnodes", "num_gpus", "gpus", "gpus_per_node", "nproc_per_node", "num_nodes", "n_gpus", "ngpus",
		"world_size", "device", "num_processes", "tensor_model_parallel_size":
		return true
	}
	return false
}

func (a *assembler) hardware() {
	c := newCollector()
	for _, f := range a.files {
		for _, h := range f.hits {
			switch {
			case h.cat == catHardware:
				c.add(h.name, h.conf, ev(f, h.line, h.text))
				if h.detail != "" && c.detail[h.name] == "" {
					c.detail[h.name] = h.detail
				}
			case h.cat == catHydra && hardwareKey(h.name):
				c.add(h.name, High, ev(f, h.line, h.text))
				if c.detail[h.name] == "" {
					c.detail[h.name] = h.detail
				}
			}
		}
		for _, cmd := range f.commands {
			for i, w := range cmd.argv {
				for _, flag := range []string{"--nproc_per_node", "--nproc-per-node", "--num_gpus", "--num_processes", "--gpus", "--nnodes", "--num_nodes"} {
					v := ""
					switch {
					case strings.HasPrefix(w, flag+"="):
						v = w[len(flag)+1:]
					case w == flag && i+1 < len(cmd.argv):
						v = cmd.argv[i+1]
					default:
						continue
					}
					name := strings.TrimLeft(strings.ReplaceAll(flag, "-", "_"), "_")
					c.add(name, High, ev(f, cmd.line, cmd.text))
					if c.detail[name] == "" {
						c.detail[name] = v
					}
				}
			}
		}
	}
	a.rep.Hardware = c.findings(3)
}
