package audit

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A Source is a drafted metrics.sources entry of adapter.yaml.
type Source struct {
	Path   string `json:"path"`
	Format string `json:"format,omitempty"`
	// Tags the code writes there; Guessed until a run is observed
	// (audit --observe).
	Tags    []string `json:"tags,omitempty"`
	Guessed bool     `json:"guessed,omitempty"`
	// Observed says what a run wrote there: file, tags and points.
	Observed string `json:"observed,omitempty"`
}

// Draft is what the audit would write into adapter.yaml. Empty fields are
// left for a person.
type Draft struct {
	Commands map[string]string `json:"commands,omitempty"` // train, eval, preflight
	Config   struct {
		System   string `json:"system,omitempty"`
		Default  string `json:"default,omitempty"`
		Override string `json:"override,omitempty"`
	} `json:"config"`
	Sources map[string]Source `json:"sources,omitempty"`
	Imports []string          `json:"imports,omitempty"`
	// Notes say which drafted values are guesses.
	Notes []string `json:"notes,omitempty"`
}

// Flag roles in a command template.
func seedFlag(name string) bool {
	switch strings.ToLower(name) {
	case "--seed", "--random-seed", "--random_seed", "--rng-seed", "--training.seed", "--seed_value":
		return true
	}
	return false
}

func outFlag(name string) bool {
	return strings.HasPrefix(name, "--") && runDirVar(strings.ReplaceAll(strings.TrimPrefix(name, "--"), "-", "_"))
}

func configFlag(name string) bool {
	switch strings.ToLower(name) {
	case "--config", "--cfg", "--config-file", "--config_file", "--configs", "--config-name", "--config_name", "-c":
		return true
	}
	return false
}

// paramsFlag reports an option that takes KEY=VALUE overrides.
func paramsFlag(fd flagDef) bool {
	switch strings.ToLower(fd.name) {
	case "--set", "--override", "--overrides", "--opts", "--cfg-options", "--cfg_options", "--options", "--hparams", "--hyperparams":
		return true
	}
	return (fd.action == "append" || fd.nargs != "") && strings.Contains(fd.metavar, "=")
}

// overrideSep is how an override option joins a key and its value, from
// its metavar or the example in its help (learning_rate:0.01).
func overrideSep(fd flagDef) string {
	for _, s := range []string{fd.metavar, fd.help} {
		for _, w := range strings.Fields(s) {
			w = strings.Trim(w, "()[],;'\"")
			k, _, ok := strings.Cut(w, "=")
			if ok && isName(k) {
				return "="
			}
			if k, v, ok := strings.Cut(w, ":"); ok && isName(k) && v != "" {
				return ":"
			}
		}
	}
	return " "
}

// metavarRole maps a usage line's placeholder word to a template
// placeholder.
func metavarRole(w string) string {
	w = strings.Trim(strings.ToUpper(w), "<>{}")
	switch w {
	case "CONFIG", "CFG", "CONFIG_FILE", "CONFIG.JSON", "CONFIG.YAML", "YAML", "ENV_FILE", "CONFIG_PATH":
		return "{config}"
	case "SEED", "N_SEED":
		return "{seed}"
	case "DIR", "OUT", "OUTDIR", "OUT_DIR", "OUTPUT", "OUTPUT_DIR", "RUN_DIR", "LOG_DIR", "LOGDIR", "SAVE_DIR":
		return "{run_dir}"
	case "CHECKPOINT", "CKPT", "MODEL", "POLICY", "CHECKPOINT_PATH", "MODEL_PATH":
		return "checkpoint"
	}
	return ""
}

// template turns an entry point into an adapter command template, from
// its usage line when it has one, else from the options it defines. ok is
// false when nothing tells how to pass the config or run dir; the note
// says what was guessed.
func (a *assembler) template(e *EntryPoint, ckpt string) (tmpl, note string) {
	if e.docArgv != nil && e.Kind == "train" {
		return a.documentedTemplate(e)
	}
	if usageLike(e.Usage) {
		return usageTemplate(e.Usage, ckpt)
	}
	words := []string{e.Command}
	if e.Via == "shell" && e.Usage != "" {
		words = []string{e.Usage}
	}
	hasParams := false
	for _, fd := range e.flags {
		switch {
		case configFlag(fd.name):
			words = append(words, fd.name+" {config}")
		case seedFlag(fd.name):
			words = append(words, fd.name+" {seed}")
		case outFlag(fd.name):
			words = append(words, fd.name+" {run_dir}")
		case paramsFlag(fd) && !hasParams:
			hasParams = true
			words = append(words, "{params}")
		}
	}
	if !hasParams {
		words = append(words, "{params}")
	}
	t := dedupeWords(strings.Join(words, " "))
	if !strings.Contains(t, "{run_dir}") {
		note = "the " + e.Kind + " command does not say where a run writes: add an option for {run_dir} by hand"
	}
	return t, note
}

// documentedTemplate drafts the command its README or docs show, with
// the documented arguments, run from the repository root (the script as
// a repository path), its seed and run directory as placeholders where
// the entry point takes them.
func (a *assembler) documentedTemplate(e *EntryPoint) (string, string) {
	var words []string
	seeded, placed := false, false
	argv := e.docArgv
	// Options before the program are its launcher's (accelerate's
	// --config_file): only the program's own are placeholders.
	prog := len(argv)
	for i, w := range argv {
		if w == "-m" || w == "--module" {
			prog = i + 1
			break
		}
		if (strings.HasSuffix(w, ".py") || strings.HasSuffix(w, ".sh")) && path.Base(w) == path.Base(e.Target) {
			prog = i
			break
		}
	}
	if prog == len(argv) {
		prog = 0
	}
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		switch {
		case i == 0 && e.Via == "script" && path.Ext(e.Target) == "" && w == path.Base(e.Target):
			// A program run by name (bin/learn), run from the root.
			words = append(words, "python")
			w, placed = e.Target, true
		case i <= prog:
			if e.Via == "script" && !placed && strings.HasSuffix(w, ".py") && path.Base(w) == path.Base(e.Target) {
				w, placed = e.Target, true
			}
		case w == "..." || w == "#" || strings.HasPrefix(w, "#"):
			i = len(argv)
			continue
		case e.Via == "script" && !placed && strings.HasSuffix(w, ".py") && path.Base(w) == path.Base(e.Target):
			w, placed = e.Target, true
		case seedFlag(strings.SplitN(w, "=", 2)[0]) && strings.HasPrefix(w, "-"):
			if strings.Contains(w, "=") {
				w = strings.SplitN(w, "=", 2)[0] + "={seed}"
			} else if i+1 < len(argv) {
				// One seed or a documented sweep (--seed 0 10 20): one run
				// takes one.
				words = append(words, w, "{seed}")
				for i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
					i++
				}
				seeded = true
				continue
			}
			seeded = true
		case !strings.HasPrefix(w, "-") && strings.HasPrefix(w, "seed=") && strings.IndexByte(w, ',') < 0:
			w, seeded = "seed={seed}", true
		case strings.HasPrefix(w, "-") && (outFlag(strings.SplitN(w, "=", 2)[0]) || configFlag(strings.SplitN(w, "=", 2)[0])):
			ph := "{run_dir}"
			if configFlag(strings.SplitN(w, "=", 2)[0]) {
				ph = "{config}"
			}
			if strings.Contains(w, "=") {
				w = strings.SplitN(w, "=", 2)[0] + "=" + ph
			} else if i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
				words = append(words, w, ph)
				i++
				continue
			}
		case !strings.HasPrefix(w, "-") && i > 0 && a.lst.paths[strings.TrimPrefix(w, "./")] && configFile(w):
			w = "{config}"
		case placeholder(w):
			// A value to fill in (wandb_entity=[ENTITY], <env>): left to
			// {params}.
			continue
		case strings.HasPrefix(w, "-") && !strings.Contains(w, "=") && i+1 < len(argv) && placeholder(argv[i+1]):
			i++
			continue
		}
		words = append(words, w)
	}
	out := ""
	for _, fd := range slices.Concat(e.flags, a.subcommandFlags(e)) {
		switch {
		case seedFlag(fd.name) && !seeded:
			words = append(words, fd.name+" {seed}")
			seeded = true
		case outFlag(fd.name) && out == "" && !containsFlag(argv, fd.name):
			out = fd.name + " {run_dir}"
			words = append(words, out)
		}
	}
	words = append(words, "{params}")
	t := dedupeWords(strings.Join(words, " "))
	note := "commands." + e.Kind + " is the command the repository documents (" + e.Documented + "); check its arguments"
	if !strings.Contains(t, "{run_dir}") {
		note += "; it does not say where a run writes: add an option for {run_dir} by hand"
	}
	return t, note
}

// placeholder reports a word with a value to fill in: [NAME], <name> or
// {name} (not a shell expansion, ${NAME}).
func placeholder(w string) bool {
	for _, p := range [][2]string{{"[", "]"}, {"<", ">"}, {"{", "}"}} {
		if i := strings.Index(w, p[0]); i >= 0 && strings.Contains(w[i:], p[1]) && (p[0] != "{" || i == 0 || w[i-1] != '$') {
			return true
		}
	}
	return false
}

// configFile reports a file name a config is kept in.
func configFile(p string) bool {
	switch path.Ext(p) {
	case ".json", ".yaml", ".yml", ".toml", ".gin", ".cfg":
		return true
	}
	return false
}

func containsFlag(argv []string, name string) bool {
	for _, w := range argv {
		if w == name || strings.HasPrefix(w, name+"=") {
			return true
		}
	}
	return false
}

// usageLike reports a usage line rather than a concrete command: it has
// optional groups ([--seed N]) or placeholders (CONFIG).
func usageLike(s string) bool {
	for _, w := range strings.Fields(s) {
		if strings.HasPrefix(w, "[-") || len(w) > 1 && w[0] == '[' && w[1] >= 'A' && w[1] <= 'Z' {
			return true
		}
	}
	return hasMetavar(s)
}

func hasMetavar(s string) bool {
	for _, w := range strings.Fields(s) {
		if metavarRole(w) != "" && strings.ToUpper(w) == w {
			return true
		}
	}
	return false
}

// usageTemplate turns a usage line (bash scripts/run.sh train CONFIG
// [--seed N] [--out DIR] [--set KEY=VALUE ...]) into a template: known
// placeholders become {config} {seed} {run_dir} {params}, other optional
// parts are dropped.
func usageTemplate(usage, ckpt string) (string, string) {
	var out []string
	note := ""
	words := strings.Fields(usage)
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "[") {
			// An optional group: up to the word that closes it.
			group := []string{strings.TrimPrefix(w, "[")}
			for !strings.HasSuffix(words[i], "]") && i+1 < len(words) {
				i++
				group = append(group, words[i])
			}
			last := len(group) - 1
			group[last] = strings.TrimSuffix(group[last], "]")
			flag := group[0]
			switch {
			case seedFlag(flag):
				out = append(out, flag+" {seed}")
			case outFlag(flag):
				out = append(out, flag+" {run_dir}")
			case configFlag(flag):
				out = append(out, flag+" {config}")
			case paramsFlag(flagDef{name: flag, metavar: strings.Join(group[1:], " "), nargs: "*"}):
				out = append(out, "{params}")
			}
			continue
		}
		switch metavarRole(w) {
		case "":
			out = append(out, w)
		case "checkpoint":
			if ckpt == "" {
				ckpt = "CHECKPOINT"
				note = "the eval command's checkpoint is not known: replace CHECKPOINT in commands.eval"
			}
			out = append(out, "{run_dir}/"+ckpt)
		default:
			if strings.ToUpper(w) == w {
				out = append(out, metavarRole(w))
			} else {
				out = append(out, w)
			}
		}
	}
	t := strings.Join(out, " ")
	if !strings.Contains(t, "{params}") && strings.Contains(t, "{config}") {
		t += " {params}"
	}
	return t, note
}

// dedupeWords drops a repeated option template (--seed {seed} twice).
func dedupeWords(s string) string {
	seen := map[string]bool{}
	var out []string
	words := strings.Fields(s)
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.HasPrefix(w, "--") && i+1 < len(words) && strings.HasPrefix(words[i+1], "{") {
			if seen[w] {
				i++
				continue
			}
			seen[w] = true
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

// draft fills the adapter fields the audit can stand behind.
// builtinPreflight is rlxp's own preflight, for repositories without one.
const builtinPreflight = "rlxp preflight {experiment} --seed {seed}"

// chosenTrain says why commands.train is the entry point it is when no
// document shows how to train: the evidence it has, how sure the choice
// is, and the next candidates.
func (a *assembler) chosenTrain(train *EntryPoint, n int) string {
	var alts []string
	next := 0
	for _, e := range a.rep.EntryPoints {
		if e.Kind != "train" || e.Via == "console_script" || e.Command == train.Command {
			continue
		}
		if len(alts) == 0 {
			next = e.score
		}
		if len(alts) < 3 {
			alts = append(alts, e.Command)
		}
	}
	conf := Low
	if train.score >= next+2 {
		conf = Medium
	}
	why := "no more evidence than the others"
	if len(train.why) > 0 {
		why = strings.Join(train.why, "; ")
	}
	more := ""
	if n-1 > len(alts) {
		more = fmt.Sprintf(" and %d more", n-1-len(alts))
	}
	return fmt.Sprintf("no README or docs command shows how to train: commands.train uses %s, of %d training entry points, by its evidence (%s); confidence %s; alternatives: %s%s",
		train.Command, n, why, conf, strings.Join(alts, ", "), more)
}

func (a *assembler) draft() {
	d := &a.rep.Adapter
	d.Commands = map[string]string{}
	var train, eval *EntryPoint
	for i := range a.rep.EntryPoints {
		e := &a.rep.EntryPoints[i]
		switch {
		case e.Kind == "train" && train == nil && (e.Via != "console_script" || e.docArgv != nil):
			// A console script is drafted only as its docs run it.
			train = e
		case e.Kind == "eval" && eval == nil && e.Via != "console_script":
			eval = e
		}
	}
	ckpt := ""
	for _, o := range a.rep.Outputs {
		if o.Kind == "checkpoint" && strings.HasPrefix(o.Path, "{run_dir}/") && ckpt == "" {
			ckpt = strings.TrimPrefix(o.Path, "{run_dir}/")
		}
	}
	if n := a.countKind("train"); n > 1 && train != nil && train.docRank == 0 {
		d.Notes = append(d.Notes, a.chosenTrain(train, n))
	} else if n > 1 && train != nil {
		d.Notes = append(d.Notes, strconv.Itoa(n)+" training entry points: commands.train uses "+train.Command+"; pick the one under study")
	}
	if train != nil {
		t, note := a.template(train, ckpt)
		// A framework's usual form replaces a guessed command, and a
		// documented one only where it places the seed that the
		// documented command cannot (a run per seed needs it).
		if u, name := a.usualCommand(train, "train"); u != "" && note != "" &&
			(train.docArgv == nil || strings.Contains(u, "{seed}") && !strings.Contains(t, "{seed}")) {
			t, note = u, "commands.train follows "+name+"'s usual form, not a command read from this repository; check it"
		}
		d.Commands["train"] = t
		if note != "" {
			d.Notes = append(d.Notes, note)
		}
		switch {
		case strings.HasPrefix(train.preflag, "PREFLIGHT_ONLY"):
			d.Commands["preflight"] = train.preflag + " " + t
		case train.preflag != "":
			d.Commands["preflight"] = t + " " + train.preflag
		default:
			// The repository validates nothing before a run starts:
			// rlxp's own preflight checks the resolved command instead.
			d.Commands["preflight"] = builtinPreflight
			d.Notes = append(d.Notes, "the repository has no preflight of its own: commands.preflight runs rlxp's built-in one ("+builtinPreflight+")")
		}
	}
	if eval != nil {
		t, note := a.template(eval, ckpt)
		d.Commands["eval"] = t
		if note != "" {
			d.Notes = append(d.Notes, note)
		}
		if ckpt != "" && strings.Contains(t, "{run_dir}/"+ckpt) {
			d.Notes = append(d.Notes, "commands.eval loads {run_dir}/"+ckpt+", the checkpoint the training code writes into its run directory (inferred)")
		}
	}
	a.draftConfig(train)
	a.draftSources()
	a.draftImports()
	if len(d.Commands) == 0 {
		d.Commands = nil
	}
}

// usualCommand is a matched framework's usual command for kind when it
// runs the entry point's target and uses only adapter placeholders.
func (a *assembler) usualCommand(e *EntryPoint, kind string) (string, string) {
	for _, i := range a.trusted() {
		p := a.profiles[i]
		cmd := p.Commands[kind]
		if cmd == "" || !adapterPlaceholders(cmd) {
			continue
		}
		script, mod, _ := pyTarget(strings.Fields(cmd))
		if (script != "" && script == e.Target) || (mod != "" && a.moduleFile(mod) == e.Target) {
			return cmd, p.Name
		}
	}
	return "", ""
}

// adapterPlaceholders reports a template using only {config} {seed}
// {run_dir} {params}.
func adapterPlaceholders(cmd string) bool {
	for _, part := range strings.Split(cmd, "{")[1:] {
		name, _, _ := strings.Cut(part, "}")
		switch name {
		case "config", "seed", "run_dir", "params":
		default:
			return false
		}
	}
	return true
}

func (a *assembler) countKind(kind string) int {
	n := 0
	for _, e := range a.rep.EntryPoints {
		if e.Kind == kind && e.Via != "console_script" {
			n++
		}
	}
	return n
}

func (a *assembler) draftConfig(train *EntryPoint) {
	d := &a.rep.Adapter
	systems := map[string]bool{}
	for _, c := range a.rep.Config {
		systems[c.Name] = true
	}
	var flags []flagDef
	if train != nil {
		flags = train.flags
		for _, r := range train.Runs {
			// A runner passes its options through to what it runs.
			parts := strings.Fields(r)
			if len(parts) == 2 {
				for _, e := range a.rep.EntryPoints {
					if e.Target == parts[1] {
						flags = append(flags, e.flags...)
					}
				}
			}
		}
	}
	for _, fd := range flags {
		if paramsFlag(fd) {
			d.Config.Override = fd.name + " {name}" + overrideSep(fd) + "{value}"
			break
		}
	}
	jsonFiles, yamlFiles := 0, 0
	for _, c := range a.rep.Config {
		if c.Kind == "file" {
			switch extOf(c.Name) {
			case "json":
				jsonFiles++
			case "yaml", "yml":
				yamlFiles++
			}
		}
	}
	switch {
	case systems["hydra"] || systems["hydra overrides"]:
		d.Config.System = "hydra"
		if d.Config.Override == "" {
			d.Config.Override = "{name}={value}"
		}
	case systems["json"] && jsonFiles > 0:
		d.Config.System = "json"
	case (systems["yaml"] || systems["omegaconf"]) && yamlFiles > 0:
		d.Config.System = "yaml"
	case systems["env files"]:
		d.Config.System = "env"
	case systems["tyro"]:
		d.Config.System = "tyro"
		if d.Config.Override == "" {
			d.Config.Override = "--{name} {value}"
		}
	case systems["absl"]:
		d.Config.System = "absl"
		if d.Config.Override == "" {
			d.Config.Override = "--{name}={value}"
		}
	case systems["argparse"]:
		d.Config.System = "argparse"
		if d.Config.Override == "" {
			d.Config.Override = "--{name} {value}"
		}
	}
	if d.Config.Override == "" {
		for _, i := range a.trusted() {
			if o := a.profiles[i].Override; o != "" {
				d.Config.Override = o
				d.Notes = append(d.Notes, "config.override is "+a.profiles[i].Name+"'s usual form, not read from this repository")
				break
			}
		}
	}
	// The default config: an example command's config argument, else an
	// option's default, else a config file named like a baseline.
	if train != nil {
		d.Config.Default = a.exampleConfig(train, flags)
		for _, c := range a.rep.Config {
			for _, e := range c.Evidence {
				if d.Config.Default == "" && c.Kind == "main_config" && c.Confidence == High && a.runs(train, e.File) {
					d.Config.Default = c.Name
				}
			}
		}
	}
	if d.Config.Default == "" {
		for _, c := range a.rep.Config {
			if c.Kind == "main_config" && c.Confidence == High {
				d.Config.Default = c.Name
				break
			}
		}
	}
	if d.Config.Default == "" && train != nil {
		for _, c := range a.rep.Config {
			base := strings.TrimSuffix(path.Base(c.Name), path.Ext(c.Name))
			if c.Kind == "file" && (base == "baseline" || base == "default" || base == "base") {
				d.Config.Default = c.Name
				d.Notes = append(d.Notes, "config.default "+c.Name+" is chosen by its name")
				break
			}
		}
	}
}

// runs reports whether an entry point is, or runs, the file.
func (a *assembler) runs(e *EntryPoint, file string) bool {
	if e.Target == file {
		return true
	}
	for _, r := range e.Runs {
		if strings.HasSuffix(r, " "+file) || strings.HasSuffix(r, " -m "+strings.ReplaceAll(strings.TrimSuffix(file, ".py"), "/", ".")) {
			return true
		}
	}
	return false
}

// exampleConfig finds the config a usage or example line passes.
func (a *assembler) exampleConfig(e *EntryPoint, flags []flagDef) string {
	for _, fd := range flags {
		if configFlag(fd.name) {
			if v, ok := stringValue(fd.dflt); ok && a.lst.paths[v] {
				return v
			}
		}
	}
	for _, f := range a.files {
		for _, c := range f.commands {
			if c.origin != "readme" && c.origin != "docstring" && c.origin != "usage" {
				continue
			}
			for i, w := range c.argv {
				if i == 0 || !a.lst.paths[strings.TrimPrefix(w, "./")] || !configDir(w) {
					continue
				}
				prev := c.argv[i-1]
				if configFlag(prev) || !strings.HasPrefix(prev, "-") {
					script, _, _ := pyTarget(c.argv)
					sh, _ := shellTarget(c.argv)
					if (script != "" && strings.HasSuffix(e.Target, strings.TrimPrefix(script, "./"))) ||
						(sh != "" && strings.HasSuffix(e.Target, strings.TrimPrefix(sh, "./"))) {
						return strings.TrimPrefix(w, "./")
					}
				}
			}
		}
	}
	return ""
}

// draftSources drafts metric sources for files written inside the run
// directory: eval files are "eval", training files "train", then
// "<role>_<format>"; files known to hold tags come first.
func (a *assembler) draftSources() {
	d := &a.rep.Adapter
	tagged := map[string]bool{}
	for _, t := range a.rep.Tags {
		tagged[t.Output] = true
	}
	var outs []Output
	for _, o := range a.rep.Outputs {
		if o.Kind == "metrics" && strings.HasPrefix(o.Path, "{run_dir}/") && !strings.ContainsAny(o.Path[len("{run_dir}/"):], "*{") &&
			(o.Format == "csv" || o.Format == "jsonl" || o.Format == "json") {
			outs = append(outs, o)
		}
	}
	sort.SliceStable(outs, func(i, j int) bool { return tagged[outs[i].Path] && !tagged[outs[j].Path] })
	for _, o := range outs {
		role := o.Role
		if role == "" {
			role = "train"
		}
		name := role
		if _, taken := d.Sources[name]; taken {
			name = role + "_" + o.Format
		}
		if _, taken := d.Sources[name]; taken {
			continue
		}
		if d.Sources == nil {
			d.Sources = map[string]Source{}
		}
		var tags []string
		for _, t := range a.rep.Tags {
			if t.Output == o.Path {
				tags = append(tags, t.Tag)
			}
		}
		sort.Strings(tags)
		d.Sources[name] = Source{Path: o.Path, Format: o.Format, Tags: tags, Guessed: len(tags) > 0}
	}
	if len(d.Sources) == 0 {
		for _, o := range a.rep.Outputs {
			if o.Kind == "logdir" {
				d.Notes = append(d.Notes, "metrics go to "+o.Path+" ("+o.Format+"), a directory named per run: declare metrics.sources by hand once a run shows the file names")
				break
			}
		}
	}
}

// draftImports lists the framework modules the runner must import.
func (a *assembler) draftImports() {
	d := &a.rep.Adapter
	for _, i := range a.trusted() {
		p := a.profiles[i]
		for _, imp := range p.Detect.Imports {
			root := strings.Split(imp, ".")[0]
			if a.lst.dirs[root] || a.lst.dirs["src/"+root] {
				continue // the repository's own package
			}
			for _, f := range a.files {
				for _, h := range f.hits {
					if h.cat == catImport && moduleMatch(h.name, []string{imp}) {
						d.Imports = appendUnique(d.Imports, imp)
					}
				}
			}
		}
	}
}
