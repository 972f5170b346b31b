package audit

import (
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/rlxp/rlxp/internal/pylex"
)

// A scanner holds what every file's scan shares: the profiles' signals
// and compiled expressions. It is built once per audit and only read.
type scanner struct {
	sig        *signals
	pyLits     *literalSet // every literal the Python scan looks for
	gymQuoted  *regexp.Regexp
	gymBare    *regexp.Regexp
	tagShape   *regexp.Regexp
	notTag     *regexp.Regexp
	classEnv   *regexp.Regexp
	dataField  *regexp.Regexp
	hydraWord  *regexp.Regexp
	makeTarget *regexp.Regexp
}

func newScanner(profiles []Profile) *scanner {
	sig := newSignals(profiles)
	return &scanner{
		sig:    sig,
		pyLits: newLiteralSet(pythonAnchors(sig)),
		// Gym-style environment ids: CartPole-v1, ALE/Breakout-v5,
		// Isaac-Velocity-Rough-Anymal-C-v0.
		gymQuoted: regexp.MustCompile(`["']((?:[A-Za-z][\w.-]*[/:])?[A-Z][\w.:-]*?-v\d+)["']`),
		gymBare:   regexp.MustCompile(`(?:^|[^\w/.-])((?:[A-Z]\w*/)?[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*-v\d+)(?:$|[^\w.-])`),
		// group/name[/...]: the shape of a metric tag.
		tagShape: regexp.MustCompile(`^[A-Za-z_*][\w.@%()*-]*(?:/[\w.@%()*-]+)+$`),
		notTag: regexp.MustCompile(`(?i)^(?:application|text|image|audio|video|multipart|font|model)/|` +
			`\.(?:py|json|ya?ml|csv|txt|pt|pth|ckpt|onnx|png|jpe?g|gif|mp4|html?|md|npz|npy|pkl|zip|tar|gz|h5|log|jsonl|sh|cfg|toml|xml|bin|safetensors|so)$|` +
			`^https?:|://|\.\.|^\*(?:/\*)*$`),
		classEnv:   regexp.MustCompile(`^class\s+(\w*Env\w*)\s*[(:]`),
		dataField:  regexp.MustCompile(`^(\s+)(\w+)\s*:\s*[^=]+?(?:=\s*(.+))?$`),
		hydraWord:  regexp.MustCompile(`^\+{0,2}~?[A-Za-z_][\w-]*(?:\.[\w-]+)+=`),
		makeTarget: regexp.MustCompile(`^([A-Za-z0-9][\w.-]*)\s*:([^=]|$)`),
	}
}

// pythonAnchors lists every literal the Python scan searches for, so that
// one pass over a file finds them all.
func pythonAnchors(sig *signals) []string {
	lits := []string{"import ", "__main__", "\ndef ", "add_argument(", "flags.DEFINE_", "@click.option(", "@dataclass",
		" = (", " = [", " = {", "metrics[", "fieldnames=", `":`, `':`, "open(", "os.path.join(", "SummaryWriter(",
		"-v", "class ", "console_scripts", "install_requires"}
	lits = append(lits, sig.lits...)
	lits = append(lits, saveCalls...)
	lits = append(lits, trainCalls...)
	for _, t := range [][]struct{ lit, name string }{parserKinds, backendLits, hardwareLits, launcherLits, configLoads} {
		for _, x := range t {
			lits = append(lits, x.lit)
		}
	}
	lits = append(lits, meterCalls...)
	for _, t := range [][]struct{ lit, backend string }{tagCalls, dictCalls} {
		for _, x := range t {
			lits = append(lits, x.lit)
		}
	}
	return lits
}

// isTag reports a string shaped like a metric tag (group/name).
func (sc *scanner) isTag(s string) bool {
	return len(s) <= 120 && strings.Count(s, "/") <= 8 && sc.tagShape.MatchString(s) && !sc.notTag.MatchString(s)
}

// pyScan is the scan of one Python file.
type pyScan struct {
	sc *scanner
	f  *facts
	t  *text
	s  string
}

func (sc *scanner) scanPython(f *facts, t *text) {
	sc.sig.scan(f, t)
	p := &pyScan{sc: sc, f: f, t: t, s: t.s}
	p.imports()
	if isTestPath(f.path) && path.Base(f.path) != "setup.py" {
		// Tests tell which libraries a repository uses, nothing more.
		return
	}
	f.src = t.s
	p.mainGuard()
	p.parsers()
	p.backends()
	p.constants()
	p.tags()
	p.outputs()
	p.envIDs()
	p.hardware()
	p.launchers()
	p.trains()
	p.customEnv()
	p.docstring()
	if path.Base(f.path) == "setup.py" {
		p.setupPy()
	}
	p.dropIdleBackends()
}

// dropIdleBackends forgets file-format backends (CSV, JSON) of a file that
// writes no metric file in that format: json.dump of a checkpoint is not
// metric logging. A logging module that writes CSV rows keeps its CSV.
func (p *pyScan) dropIdleBackends() {
	kept := p.f.hits[:0]
	for _, h := range p.f.hits {
		if h.cat == catBackend && (h.name == "csv" || h.name == "json" || h.name == "jsonl") {
			// A metrics file named in the code (log_dir / "eval.csv").
			writes := strings.Contains(p.s, "."+h.name+`"`) || strings.Contains(p.s, "."+h.name+"'")
			// A logging module's CSV rows are metrics whatever it names
			// the file (f"{prefix}.{suffix}").
			writes = writes || h.name == "csv" && strings.Contains(p.s, ".writerow(") &&
				(strings.Contains(strings.ToLower(path.Base(p.f.path)), "log") || strings.Contains(p.s, "Logger"))
			for _, o := range p.f.outputs {
				writes = writes || (o.kind == "metrics" && (o.format == h.name || h.name == "json" && o.format == "jsonl"))
			}
			writes = writes || h.name == "json" && strings.Contains(h.text, "FileStorageObserver")
			if !writes {
				continue
			}
		}
		kept = append(kept, h)
	}
	p.f.hits = kept
}

func (p *pyScan) add(cat, name, detail string, off int, conf Confidence) {
	p.f.add(cat, name, detail, p.t.lineOf(off), p.t.line(off), conf)
}

// code reports whether off is in code: not in a comment on its line (a
// # in a string literal before it opens none).
func (p *pyScan) code(off int) bool {
	start, _ := p.t.lineAt(off)
	start = max(start, off-1024)
	return strings.IndexByte(p.s[start:off], '#') < 0 || pylex.CommentOn(p.s[start:off]) < 0
}

func (p *pyScan) imports() {
	seen := map[string]bool{}
	p.t.each("import ", func(off int) bool {
		line := strings.TrimSpace(p.t.line(off))
		var mods []string
		names := ""
		switch {
		case strings.HasPrefix(line, "import "):
			for _, part := range strings.Split(line[len("import "):], ",") {
				if w := strings.Fields(part); len(w) > 0 {
					mods = append(mods, strings.Trim(w[0], "(\\"))
				}
			}
		case strings.HasPrefix(line, "from "):
			if mod, rest, ok := strings.Cut(line[len("from "):], " import"); ok {
				mods = append(mods, strings.TrimSpace(mod))
				names = strings.Trim(strings.TrimSpace(rest), "()\\")
			}
		}
		for _, m := range mods {
			if m == "" || m[0] == '.' || seen[m] || strings.TrimFunc(m, func(r rune) bool { return r == '.' || r == '_' || r < 128 && isIdent(byte(r)) }) != "" {
				continue
			}
			seen[m] = true
			p.add(catImport, m, names, off, High)
		}
		return true
	})
}

func (p *pyScan) mainGuard() {
	p.t.each("__main__", func(off int) bool {
		line := strings.TrimSpace(p.t.line(off))
		if strings.HasPrefix(line, "if") && strings.Contains(line, "__name__") {
			p.add(catMain, "__main__", "", off, High)
			return false
		}
		return true
	})
	if p.f.has(catMain, "") {
		return
	}
	// A script without the guard: it parses its command line at module
	// level (args = parser.parse_args() in column 0).
	p.t.each(".parse_args(", func(off int) bool {
		ls := strings.LastIndexByte(p.s[:off], '\n') + 1
		if p.code(off) && ls < len(p.s) && p.s[ls] != ' ' && p.s[ls] != '\t' {
			p.add(catMain, "script", "", off, Medium)
			return false
		}
		return true
	})
}

// call returns the argument list of the call whose name ends just before
// s[open] == '('.
func (p *pyScan) call(open int) ([]string, bool) {
	inside, ok := balanced(p.s, open, 8192)
	if !ok {
		return nil, false
	}
	return splitTop(inside[1:len(inside)-1], ','), true
}

// enclosingDef names the top-level function holding off.
func (p *pyScan) enclosingDef(off int) string {
	defs := p.t.offsets("\ndef ")
	k := sort.SearchInts(defs, off) - 1
	i := -1
	switch {
	case k >= 0:
		i = defs[k]
	case !strings.HasPrefix(p.s, "def "):
		return ""
	}
	rest := p.s[i+len("\ndef "):]
	if j := strings.IndexByte(rest, '('); j > 0 {
		return strings.TrimSpace(rest[:j])
	}
	return ""
}

// parserKinds maps what a line starts a command-line parser with to the
// parser's name.
var parserKinds = []struct{ lit, name string }{
	{"ArgumentParser(", "argparse"},
	{"HfArgumentParser(", "hf_argparser"},
	{"tyro.cli(", "tyro"},
	{"tyro.extras.", "tyro"},
	{"@hydra.main(", "hydra"},
	{"hydra.compose(", "hydra"},
	{"flags.DEFINE_", "absl"},
	{"config_flags.DEFINE_config", "ml_collections"},
	{"@click.command", "click"},
	{"@click.group", "click"},
	{"fire.Fire(", "fire"},
	{"LightningCLI(", "jsonargparse"},
	{"TrlParser(", "hf_argparser"},
	{"gin.parse_config", "gin"},
}

func (p *pyScan) parsers() {
	for _, k := range parserKinds {
		p.t.eachWord(k.lit, func(off int) bool {
			if !p.code(off) {
				return true
			}
			name := k.name
			detail := ""
			if name == "hydra" && k.lit == "@hydra.main(" {
				if args, ok := p.call(off + len(k.lit) - 1); ok {
					var parts []string
					for _, key := range []string{"config_path", "config_name"} {
						if v, ok := kwarg(args, key); ok {
							if sv, ok := stringValue(v); ok {
								parts = append(parts, key+"="+sv)
							}
						}
					}
					detail = strings.Join(parts, " ")
				}
			}
			p.add(catParser, name, detail, off, High)
			return false
		})
	}
	p.t.each("add_argument(", func(off int) bool {
		if !p.code(off) {
			return true
		}
		args, ok := p.call(off + len("add_argument(") - 1)
		if !ok {
			return true
		}
		var names []string
		for _, a := range args {
			if v, ok := stringValue(a); ok && strings.HasPrefix(v, "-") {
				names = append(names, v)
			}
		}
		if len(names) == 0 {
			if len(args) > 0 {
				if v, ok := stringValue(args[0]); ok {
					names = append(names, v) // a positional argument
				}
			}
			if len(names) == 0 {
				return true
			}
		}
		name := names[0]
		for _, n := range names {
			if strings.HasPrefix(n, "--") {
				name = n
				break
			}
		}
		fd := flagDef{name: name, fn: p.enclosingDef(off), line: p.t.lineOf(off)}
		fd.dflt, _ = kwarg(args, "default")
		if v, ok := kwarg(args, "action"); ok {
			fd.action, _ = stringValue(v)
		}
		if v, ok := kwarg(args, "metavar"); ok {
			fd.metavar, _ = stringValue(v)
		}
		fd.nargs, _ = kwarg(args, "nargs")
		if v, ok := kwarg(args, "help"); ok {
			fd.help, _ = literalExpr(v)
		}
		p.f.flags = append(p.f.flags, fd)
		return true
	})
	for _, lit := range []string{"flags.DEFINE_", "@click.option("} {
		p.t.each(lit, func(off int) bool {
			open := strings.IndexByte(p.s[off:], '(')
			if open < 0 || !p.code(off) {
				return true
			}
			args, ok := p.call(off + open)
			if !ok || len(args) == 0 {
				return true
			}
			if v, ok := stringValue(args[0]); ok {
				if !strings.HasPrefix(v, "-") {
					v = "--" + v
				}
				fd := flagDef{name: v, line: p.t.lineOf(off)}
				if len(args) > 1 && lit == "flags.DEFINE_" {
					fd.dflt = strings.TrimSpace(args[1])
				}
				p.f.flags = append(p.f.flags, fd)
			}
			return true
		})
	}
	p.dataclassFields()
	p.parsedHFClasses()
	for _, c := range configLoads {
		p.t.each(c.lit, func(off int) bool {
			if p.code(off) {
				p.add(catConfigLoad, c.name, "", off, Medium)
				return false
			}
			return true
		})
	}
}

// configLoads are calls that read a config file.
var configLoads = []struct{ lit, name string }{
	{"json.load(", "json"}, {"yaml.safe_load(", "yaml"}, {"yaml.load(", "yaml"},
	{"OmegaConf.load(", "omegaconf"}, {"toml.load(", "toml"}, {"tomllib.load(", "toml"},
}

// dataclassFields reads the fields of dataclasses that tyro or an HF
// argument parser turns into options (CleanRL's Args: seed: int = 1).
func (p *pyScan) dataclassFields() {
	p.t.each("@dataclass", func(off int) bool {
		_, end := p.t.lineAt(off)
		rest := p.s[min(end+1, len(p.s)):]
		lines := strings.SplitN(rest, "\n", 300)
		i := 0
		for i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), "@") {
			i++
		}
		if i >= len(lines) {
			return false
		}
		cls := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(cls, "class ") {
			return true
		}
		words := strings.FieldsFunc(cls[len("class "):], func(r rune) bool { return r == '(' || r == ':' })
		if len(words) == 0 {
			return true
		}
		name := strings.TrimSpace(words[0])
		uses := p.f.has(catParser, "tyro") || p.f.has(catParser, "hf_argparser") || lowerHas(name, "args", "arguments", "config")
		if !uses {
			return true
		}
		line := p.t.lineOf(off) + i + 1
		if open := strings.IndexByte(cls, '('); open > 0 {
			bases, _, _ := strings.Cut(cls[open+1:], ")")
			for _, b := range strings.Split(bases, ",") {
				if p.hfLibrary(strings.TrimSpace(b)) {
					p.inherit(name, line)
					break
				}
			}
		}
		for j := i + 1; j < len(lines); j++ {
			l := lines[j]
			ts := strings.TrimSpace(l)
			if ts == "" || strings.HasPrefix(ts, "#") || strings.HasPrefix(ts, `"""`) || strings.HasPrefix(ts, "'''") {
				continue
			}
			if l[0] != ' ' && l[0] != '\t' {
				break
			}
			m := p.sc.dataField.FindStringSubmatch(l)
			if m == nil || strings.HasPrefix(ts, "def ") || strings.HasPrefix(ts, "@") {
				continue
			}
			if len(m[1]) > 8 {
				continue // a nested block, not a field
			}
			p.f.flags = append(p.f.flags, flagDef{name: "--" + m[2], fn: name, dflt: strings.TrimSpace(m[3]), line: line + j - i})
		}
		return true
	})
}

// backendLits are the calls that say a file writes metrics with a backend.
var backendLits = []struct{ lit, name string }{
	{"SummaryWriter(", "tensorboard"},
	{"tf.summary.", "tensorboard"},
	{"wandb.init(", "wandb"},
	{"wandb.log(", "wandb"},
	{"mlflow.log_metric", "mlflow"},
	{"csv.DictWriter(", "csv"},
	{"csv.writer(", "csv"},
	{".to_csv(", "csv"},
	{"log_tabular(", "tsv"},
	{"json.dumps(", "jsonl"},
	{"json.dump(", "json"},
	{"logger.record(", "sb3"},
	{"Tracking(", "tracking"},
	{"swanlab.log(", "swanlab"},
	// Sacred's file observer writes every logged scalar to metrics.json.
	{"FileStorageObserver(", "json"},
	{"FileStorageObserver.create(", "json"},
}

func (p *pyScan) backends() {
	for _, b := range backendLits {
		p.t.eachWord(b.lit, func(off int) bool {
			if !p.code(off) {
				return true
			}
			name := b.name
			if name == "jsonl" && !strings.Contains(p.s, ".jsonl") && !strings.Contains(p.s, `+ "\n"`) {
				name = "json"
			}
			p.add(catBackend, name, "", off, High)
			return false
		})
	}
}

// fileBackend is the backend tags found as dict keys most likely go to.
func (p *pyScan) fileBackend() string {
	for _, b := range []string{"jsonl", "json", "wandb", "tensorboard", "mlflow", "csv", "tracking"} {
		if p.f.has(catBackend, b) {
			return b
		}
	}
	return ""
}

// constants reads module-level collections of strings (COLUMNS = (...)),
// which CSV headers and tag lists are often kept in.
func (p *pyScan) constants() {
	for _, lit := range []string{" = (", " = [", " = {"} {
		p.t.each(lit, func(off int) bool {
			start, _ := p.t.lineAt(off)
			name, _, _ := strings.Cut(p.s[start:off], ":") // NAME: tuple = (...)
			name = strings.TrimSpace(name)
			if start == off || p.s[start] == ' ' || p.s[start] == '\t' || !isName(name) {
				return true
			}
			open := off + strings.IndexAny(p.s[off:], "([{")
			inside, ok := balanced(p.s, open, 16384)
			if !ok {
				return true
			}
			var vals []string
			for _, part := range splitTop(inside[1:len(inside)-1], ',') {
				if k, _, ok := strings.Cut(part, ":"); ok && p.s[open] == '{' {
					part = k
				}
				if v, ok := stringValue(part); ok {
					vals = append(vals, v)
				}
			}
			if len(vals) > 0 {
				if p.f.consts == nil {
					p.f.consts = map[string][]string{}
				}
				p.f.consts[name] = vals
			}
			return true
		})
	}
}

func (p *pyScan) envIDs() {
	p.t.each("-v", func(off int) bool {
		if off+2 >= len(p.s) || !isDigit(p.s[off+2]) {
			return true
		}
		line := p.t.line(off)
		inCode := p.code(off)
		if inCode {
			for _, m := range p.sc.gymQuoted.FindAllStringSubmatch(line, -1) {
				conf := Medium
				if lowerHas(line, "make(", "env_id", "env-id", "env_name", "register(", "--env", "--task", "task_name") {
					conf = High
				}
				p.add(catEnvID, m[1], "", off, conf)
			}
			return true
		}
		for _, m := range p.sc.gymBare.FindAllStringSubmatch(line, -1) {
			p.add(catEnvID, m[1], "mentioned in a comment", off, Low)
		}
		return true
	})
}

// hardwareLits are code that says what hardware a run wants.
var hardwareLits = []struct{ lit, name string }{
	{"torch.cuda", "cuda"},
	{".cuda(", "cuda"},
	{`"cuda`, "cuda"},
	{"'cuda", "cuda"},
	{"nproc_per_node", "nproc_per_node"},
	{"num_gpus", "num_gpus"},
	{"n_gpus", "num_gpus"},
	{"gpus_per_node", "gpus_per_node"},
	{"CUDA_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"},
	{"world_size", "world_size"},
	{"jax.devices(", "jax devices"},
	{"num_envs", "num_envs"},
	{"num_nodes", "num_nodes"},
}

func (p *pyScan) hardware() {
	for _, h := range hardwareLits {
		p.t.each(h.lit, func(off int) bool {
			if p.f.has(catHardware, h.name) {
				return false
			}
			if !p.code(off) {
				return true
			}
			p.add(catHardware, h.name, "", off, Medium)
			return false
		})
	}
}

// launcherLits are Python calls that start distributed or cluster runs.
var launcherLits = []struct{ lit, name string }{
	{"ray.init(", "Ray"},
	{"init_process_group(", "torch.distributed"},
	{"submitit.", "Slurm (submitit)"},
	{"Accelerator(", "accelerate"},
	{"deepspeed.initialize(", "DeepSpeed"},
	{"mp.spawn(", "torch.multiprocessing"},
}

func (p *pyScan) launchers() {
	for _, l := range launcherLits {
		p.t.eachWord(l.lit, func(off int) bool {
			if !p.code(off) {
				return true
			}
			p.add(catLauncher, l.name, "", off, Medium)
			return false
		})
	}
}

// trainCalls are what a script that trains calls: a backward pass, an
// optimiser step, or a framework's learn/train/fit.
var trainCalls = []string{".backward(", "optimizer.step(", "optim.step(", ".learn(", "trainer.train(", "trainer.fit(", "runner.learn(", ".fit(", "jax.grad(", "value_and_grad(", "Trainer("}

func (p *pyScan) trains() {
	for _, lit := range trainCalls {
		found := false
		p.t.each(lit, func(off int) bool {
			if !p.code(off) {
				return true
			}
			p.add(catTrains, lit, "", off, Medium)
			found = true
			return false
		})
		if found {
			return
		}
	}
	// An agent's own training step: agent.train(batch), policy.train(
	// replay_buffer, batch_size); not a module's mode switch
	// (model.train(), model.train(False)).
	p.t.each(".train(", func(off int) bool {
		rest := strings.TrimLeft(p.s[off+len(".train("):min(len(p.s), off+64)], " ")
		if !p.code(off) || rest == "" || rest[0] == ')' || strings.HasPrefix(rest, "True") || strings.HasPrefix(rest, "False") || strings.HasPrefix(rest, "mode") {
			return true
		}
		if ls := strings.LastIndexByte(p.s[:off], '\n') + 1; strings.HasPrefix(strings.TrimSpace(p.s[ls:off]), "def ") {
			return true
		}
		p.add(catTrains, ".train(", "", off, Medium)
		return false
	})
}

// customEnv finds environment classes a repository writes itself.
func (p *pyScan) customEnv() {
	if !strings.Contains(p.s, "def step(") || !strings.Contains(p.s, "def reset(") {
		return
	}
	p.t.each("class ", func(off int) bool {
		if m := p.sc.classEnv.FindStringSubmatch(p.t.line(off)); m != nil {
			p.add(catCustomEnv, m[1], "defines step() and reset()", off, Medium)
		}
		return true
	})
}

// docstring reads command lines out of the module docstring: usage
// examples of an entry point.
func (p *pyScan) docstring() {
	s := p.s
	i := 0
	for i < len(s) {
		// Skip the shebang, comments and blank lines before it.
		if s[i] == '#' || s[i] == '\n' || s[i] == ' ' || s[i] == '\r' {
			nl := strings.IndexByte(s[i:], '\n')
			if nl < 0 {
				return
			}
			i += nl + 1
			continue
		}
		break
	}
	if i >= len(s) || !isQuoteStart(s, i) {
		return
	}
	lit, ok := pyString(s[:min(len(s), i+16384)], i)
	if !ok {
		return
	}
	first := p.t.lineOf(i)
	p.f.commands = append(p.f.commands, commandLines(lit.val, first, "docstring")...)
}
