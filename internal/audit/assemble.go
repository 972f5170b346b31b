package audit

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
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
	// trainDefs names the functions of the repository that train, once
	// a documented command needs them (callsTraining).
	trainDefs map[string]bool
	linked    map[string]bool // READMEs the root README links to
	projects  []string        // where modules are found: the root, src/, projects of their own
}

func assemble(root string, lst *listing, files []*facts, profiles []Profile, sc *scanner) *Report {
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
	fl := newFlow(sc, files)
	fl.derive()
	fl.calls(files)
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

// versionOnly reports an "import X [as Y]" whose every use in the file
// reads the library's version (a script checking what is installed
// before it trains with code of its own).
func versionOnly(f *facts, h hit) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(h.text), "import ")
	w := strings.Fields(rest)
	if !ok || f.src == "" || strings.Contains(rest, ",") || len(w) != 1 && (len(w) != 3 || w[1] != "as") {
		return false
	}
	alias := w[len(w)-1]
	uses := 0
	for i := strings.Index(f.src, alias+"."); i >= 0; {
		if i == 0 || !isIdent(f.src[i-1]) && f.src[i-1] != '.' {
			if !strings.HasPrefix(f.src[i+len(alias)+1:], "__version__") {
				return false
			}
			uses++
		}
		j := strings.Index(f.src[i+1:], alias+".")
		if j < 0 {
			break
		}
		i += j + 1
	}
	return uses > 0
}

// definesOutside reports a call signal ("Name(") whose name a Python
// file of the repository defines as a class or function, outside a copy
// of the profile's own package.
func (a *assembler) definesOutside(lit string, p Profile) bool {
	name, ok := strings.CutSuffix(lit, "(")
	if !ok || !isName(name) {
		return false
	}
	own := append(append([]string{}, p.Vendor...), p.Detect.Imports...)
	for _, f := range a.files {
		if f.kind != kindPython || !strings.Contains(f.src, name) || inPackage(f.path, own) {
			continue
		}
		for _, kw := range [...]string{"class ", "def "} {
			for i := strings.Index(f.src, kw+name); i >= 0; {
				end := i + len(kw) + len(name)
				lineStart := i == 0 || f.src[i-1] == '\n' || f.src[i-1] == ' ' || f.src[i-1] == '\t'
				if lineStart && (end == len(f.src) || !isIdent(f.src[end])) {
					return true
				}
				j := strings.Index(f.src[end:], kw+name)
				if j < 0 {
					break
				}
				i = end + j
			}
		}
	}
	return false
}

// inPackage reports a path inside a directory named as one of the
// (top-level) package names.
func inPackage(path string, pkgs []string) bool {
	for _, d := range strings.Split(path, "/") {
		for _, p := range pkgs {
			if top, _, _ := strings.Cut(p, "."); d == top {
				return true
			}
		}
	}
	return false
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
	// signal of its own. A custom loop needs something that trains
	// outside tests and documentation: an environment library's docs
	// tutorials train agents, but the library itself does not.
	trainsAny := false
	for _, f := range a.files {
		trainsAny = trainsAny || f.has(catTrains, "") && !isTestPath(f.path) && !inDocs(f.path)
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
				case h.cat == catImport && (moduleMatch(h.name, p.Detect.Helpers) || moduleMatch(h.name, p.Detect.Imports) && versionOnly(f, h)):
					add(Low, ev(f, h.line, h.text))
				case h.cat == catImport && moduleMatch(h.name, p.Detect.Imports):
					add(High, ev(f, h.line, h.text))
					used = used || f.has(catTrains, "") || f.has(catMain, "")
				case h.cat == catDep && depMatch(h.name, p.Detect.Packages):
					add(High, ev(f, h.line, h.text))
				case h.cat == catSignal && h.name == strconv.Itoa(i) && a.definesOutside(h.detail, p):
					// The repository's own class of that name (SkyRL's
					// RayPPOTrainer) says nothing of the framework.
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
	specificFiles := map[string]bool{}
	specificScore := 0
	for _, m := range kept {
		if !a.profiles[m.idx].Generic && m.conf != Low {
			specific = true
			specificScore += m.score
			for _, e := range m.ev {
				specificFiles[e.File] = true
			}
		}
	}
	// A custom loop is named next to a library when the repository's
	// own loop outweighs it in files the library is not in (a framework
	// of its own, with one benchmark script against Stable-Baselines3).
	ownLoop := func(m match) bool {
		score := 0
		for _, e := range m.ev {
			if !specificFiles[e.File] {
				score++
			}
		}
		return score > specificScore
	}
	var lead *match
	for _, m := range kept {
		p := a.profiles[m.idx]
		if p.Generic && specific && !ownLoop(m) {
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
				if t.eval {
					x.Role = evalPathRole(t.tag, x.Role)
				}
				if rank(t.conf) > rank(x.Confidence) {
					x.Confidence, x.Backend = t.conf, t.backend
				}
				if x.Output == "" {
					x.Output = out
				}
				x.Evidence = append(x.Evidence, ev(f, t.line, t.text))
				continue
			}
			role := tagRole(t.tag)
			if t.eval {
				role = evalPathRole(t.tag, role)
			} else if r, ok := valueTagRole(t); ok {
				role = r
			}
			idx[t.tag] = len(a.rep.Tags)
			a.rep.Tags = append(a.rep.Tags, Tag{Tag: t.tag, Backend: t.backend, Role: role, Output: out, Confidence: t.conf,
				Evidence: []Evidence{ev(f, t.line, t.text)}})
		}
	}
	for i := range a.rep.Tags {
		a.rep.Tags[i].Evidence = sortEvidence(a.rep.Tags[i].Evidence, 3)
	}
	a.frameworkTags(idx)
	a.episodeTags(idx)
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
			if j, ok := idx[tag]; ok {
				// The code shows the tag; the profile knows what it is.
				if a.rep.Tags[j].Role == roleOther {
					a.rep.Tags[j].Role = role
				}
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
func backendNames() [17][2]string {
	return [...][2]string{
		{"tensorboard", "TensorBoard"}, {"wandb", "Weights & Biases"}, {"mlflow", "MLflow"}, {"csv", "CSV files"},
		{"jsonl", "JSONL files"}, {"json", "JSON files"}, {"sb3", "Stable-Baselines3 logger"}, {"tracking", "verl Tracking"},
		{"console", "console lines"}, {"swanlab", "SwanLab"}, {"clearml", "ClearML"}, {"trackio", "Trackio"},
		{"neptune", "Neptune"}, {"comet", "Comet"}, {"aim", "Aim"}, {"dvclive", "DVCLive"}, {"tsv", "tab-separated text files"},
	}
}

// knownBackend reports an id backendNames names.
func knownBackend(id string) bool { return backendName(id) != id }

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
	for _, b := range backendNames() {
		if b[0] == id {
			return b[1]
		}
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
	// A metrics file the code writes is a backend of its format
	// (Monitor's *.monitor.csv).
	for _, o := range a.rep.Outputs {
		if o.Kind == "metrics" && knownBackend(o.Format) && len(o.Evidence) > 0 {
			add(o.Format, o.Confidence, o.Evidence[0])
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
