package builtin

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/goccy/go-yaml"

	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/preflight"
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/suggest"
)

// minDisk is the free space below which the run directory's disk warns.
const minDisk = 1 << 30

// Rules are the generic classes, for every repository, in the order they
// print.
func Rules() []Rule {
	return []Rule{
		{ID: "entry", Checks: "the entry point exists and compiles with the declared interpreter",
			Why: "a missing file or a syntax error fails the run as it starts", Run: entryRule},
		{ID: "imports", Checks: "the entry point's top-level imports resolve in the declared interpreter",
			Why: "a missing module fails the run as it starts", Run: importsRule},
		{ID: "options", Checks: "every --option of the command is one the program or its runner reads: read from its parser definitions (argparse, click, absl, in the repo modules it imports too), or from its --help where those do not name the option; FATAL names the closest accepted one",
			Why: "an option nobody reads is a parameter the run silently ignores, or a failure minutes in", Run: optionsRule},
		{ID: "overrides", Checks: "every --set key=value (config.override) or Hydra/OmegaConf key=value names a key of the config: the one Hydra composes (--cfg job, where Hydra is importable), else the YAML/JSON file (with a Hydra main's default group options)",
			Why: "an override of a key the config does not have changes nothing the program reads", Run: overridesRule},
		{ID: "paths", Checks: "the config exists and parses; config, checkpoint and data options name files that exist",
			Why: "a missing config or checkpoint fails the run after its setup", Run: pathsRule},
		{ID: "run-dir", Checks: "the run directory does not exist (launch refuses one that does) and can be written, with disk for the runs to launch (the largest past run's size each, and 1 GiB)",
			Why: "a run that cannot write its outputs is lost; one that writes over another's mixes their evidence", Run: runDirRule},
		{ID: "seed", Checks: "the training seed is outside the held-out evaluation seeds",
			Why: "training on held-out seeds makes the evaluation meaningless", Run: seedRule},
		{ID: "gpus", Checks: "torchrun/accelerate/deepspeed process counts and CUDA_VISIBLE_DEVICES equal the contract's GPUs per run",
			Why: "a world size that differs from the approved hardware fails at start or runs another experiment", Run: gpusRule},
		{ID: "ports", Checks: "the declared ports are free",
			Why: "a port in use fails the run's rendezvous or server", Run: portsRule},
		{ID: "env", Checks: "a program that imports wandb has a key (WANDB_API_KEY, ~/.netrc) or logs offline",
			Why: "a run that logs online without credentials fails or hangs at its first log", Run: envRule},
	}
}

func fatal(format string, args ...any) Finding {
	return Finding{Level: preflight.Fatal, Message: fmt.Sprintf(format, args...)}
}
func warn(format string, args ...any) Finding {
	return Finding{Level: preflight.Warn, Message: fmt.Sprintf(format, args...)}
}
func ok(format string, args ...any) Finding {
	return Finding{Level: preflight.OK, Message: fmt.Sprintf(format, args...)}
}
func skip(format string, args ...any) Finding {
	return Finding{Level: preflight.Skip, Message: fmt.Sprintf(format, args...)}
}

func entryRule(t *Target) []Finding {
	if len(t.Entries) == 0 {
		return []Finding{skip("no Python entry point found in the command (%s): nothing to read", clip(t.Command))}
	}
	var fs []Finding
	for _, e := range t.Entries {
		if e.Script == "" {
			fs = append(fs, skip("%s starts no Python program rlxp can name; its options are not checked", e.Runner))
			continue
		}
		p := t.program(e)
		switch {
		case p == nil:
			fs = append(fs, skip("%s was not read", e.Script))
		case p.readErr != "":
			fs = append(fs, fatal("%s", p.readErr))
		case !p.Compiles && isNotExist(p.Error):
			fs = append(fs, fatal("entry point %s does not exist", e.Script))
		case !p.Compiles:
			fs = append(fs, fatal("entry point does not compile: %s", p.Error))
		default:
			fs = append(fs, ok("entry point %s compiles", e.Script))
		}
	}
	return fs
}

func isNotExist(msg string) bool {
	return strings.Contains(msg, "No such file")
}

func importsRule(t *Target) []Finding {
	var fs []Finding
	for _, e := range t.Entries {
		p := t.program(e)
		if p == nil || !p.Compiles {
			continue
		}
		if len(p.Missing) > 0 {
			fs = append(fs, fatal("%s imports %s, which %s cannot find", e.Script, strings.Join(p.Missing, ", "), t.python(e)))
		} else {
			fs = append(fs, ok("%s's top-level imports resolve in %s", e.Script, t.python(e)))
		}
	}
	return fs
}

func (t *Target) python(e Entry) string {
	switch {
	case t.Python != "":
		return t.Python
	case e.Interpreter != "":
		return e.Interpreter
	}
	return "python3"
}

// optionsRule checks the command's long options against those the
// program's parsers define and its runner names: read from the parser
// definitions, or, where those do not name an option, from the program's
// --help.
func optionsRule(t *Target) []Finding {
	var fs []Finding
	for i, e := range t.Entries {
		p := t.program(e)
		if p == nil || !p.Compiles {
			continue
		}
		accepted := append(slices.Clone(p.Options), e.RunnerOptions...)
		source := strings.Join(p.Parsers, ", ") + ", read from its parser definitions"
		if h := t.help[i]; h != nil && h.Err == "" {
			accepted = append(slices.Clone(h.Options), e.RunnerOptions...)
			source = h.Format + ", from its --help"
		} else if h != nil {
			source += "; " + h.Err
		}
		if dc := dataclassParsers(p); len(dc) > 0 && (t.help[i] == nil || t.help[i].Err != "") && len(optionsOf(e.Args)) > 0 {
			// What the parser definitions name is only part of what
			// the dataclasses add: a name missing from it proves nothing.
			why := ""
			if h := t.help[i]; h != nil {
				why = "; " + h.Err
			}
			fs = append(fs, skip("%s builds its options from dataclasses (%s), which only its --help lists%s: its options are not checked", e.Script, strings.Join(dc, ", "), why))
			continue
		}
		if len(accepted) == len(e.RunnerOptions) {
			if slices.Contains(p.Parsers, "hydra") || slices.Contains(p.Parsers, "omegaconf") {
				continue // key=value overrides, read by the overrides rule
			}
			if len(optionsOf(e.Args)) > 0 {
				why := ""
				if h := t.help[i]; h != nil {
					why = "; " + h.Err
				}
				fs = append(fs, skip("%s defines no options rlxp can read (no argparse, click or absl definitions%s): its options are not checked", e.Script, why))
			}
			continue
		}
		seen := map[string]int{}
		for _, o := range optionsOf(e.Args) {
			if seen[o]++; seen[o] == 2 && slices.Contains(p.Single, o) {
				fs = append(fs, fatal("option %s is given more than once, and %s keeps only its last value (its argparse action stores one): the values before it are dropped; pass them after a single %s", o, e.Script, o))
			}
		}
		bad := 0
		for _, o := range optionsOf(e.Args) {
			if accepts(accepted, o) {
				continue
			}
			if full := prefixOf(accepted, o); full != "" && strings.Contains(source, "argparse") {
				fs = append(fs, warn("option %s is an abbreviation argparse expands to %s unless the parser sets allow_abbrev=False; spell it out", o, full))
				continue
			}
			bad++
			fs = append(fs, fatal("option %s is not read by %s (closest accepted: %s; %s)", o, e.Script, closest(o, accepted), source))
		}
		if bad == 0 {
			fs = append(fs, ok("every option given to %s is one it reads (%s)", e.Script, source))
		}
	}
	return fs
}

// dataclassParsers are the parsers of p whose options are dataclass
// fields (tyro, HfArgumentParser): none of them is named in the source.
func dataclassParsers(p *Program) []string {
	var out []string
	for _, name := range p.Parsers {
		if name == "tyro" || name == "HfArgumentParser" {
			out = append(out, name)
		}
	}
	return out
}

// prefixOf is the one accepted long option that o abbreviates, "" when
// none or several do.
func prefixOf(accepted []string, o string) string {
	full := ""
	for _, a := range accepted {
		if strings.HasPrefix(a, o) && strings.HasPrefix(a, "--") {
			if full != "" && full != a {
				return ""
			}
			full = a
		}
	}
	return full
}

// accepts says whether option o is among the accepted ones, a --no-x
// being the negation of --x.
func accepts(accepted []string, o string) bool {
	return slices.Contains(accepted, o) || (strings.HasPrefix(o, "--no-") && slices.Contains(accepted, "--"+o[5:]))
}

// optionsOf are the long options among a program's arguments.
func optionsOf(args []string) []string {
	var opts []string
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "--") && len(a) > 2 {
			name, _, _ := strings.Cut(a, "=")
			opts = append(opts, name)
		}
	}
	return opts
}

// overridesRule checks key=value overrides against the config's keys:
// those passed with the adapter's override option (--set k=v), and the bare
// k=v arguments of a Hydra or OmegaConf program.
func overridesRule(t *Target) []Finding {
	setOpt := ""
	if f := strings.Fields(t.Override); len(f) == 2 && strings.HasPrefix(f[0], "-") && strings.HasPrefix(f[1], "{name}=") && (t.List == nil || t.List.Flag != f[0]) {
		setOpt = f[0]
	}
	var fs []Finding
	for i, e := range t.Entries {
		p := t.program(e)
		dotlist := p != nil && (slices.Contains(p.Parsers, "hydra") || slices.Contains(p.Parsers, "omegaconf"))
		var keys []string
		if l := t.List; l != nil && l.Separator() == "=" {
			// key=value items of the list's option (--set a=1 b=2); the
			// zoo's key:value ones are its profile's.
			keys = append(keys, l.Keys(e.Args)...)
		}
		for i, a := range e.Args {
			switch {
			case setOpt != "" && a == setOpt && i+1 < len(e.Args):
				k, _, _ := strings.Cut(e.Args[i+1], "=")
				keys = append(keys, k)
			case setOpt != "" && strings.HasPrefix(a, setOpt+"="):
				k, _, _ := strings.Cut(strings.TrimPrefix(a, setOpt+"="), "=")
				keys = append(keys, k)
			case dotlist && !strings.HasPrefix(a, "-") && strings.Contains(a, "=") && (i == 0 || !strings.HasPrefix(e.Args[i-1], "-") || strings.Contains(e.Args[i-1], "=")):
				k, _, _ := strings.Cut(a, "=")
				if _, group := hydraGroup(p, k); group {
					continue // a config group: the hydra profile's rule
				}
				if !strings.HasPrefix(k, "+") && !strings.HasPrefix(k, "hydra.") {
					keys = append(keys, strings.TrimPrefix(k, "~"))
				}
			}
		}
		if len(keys) == 0 {
			continue
		}
		cfgKeys, cfg, err := t.configFor(e, p, t.composed[i])
		if err != nil {
			fs = append(fs, skip("overrides %s not checked: %v", strings.Join(keys, ", "), err))
			continue
		}
		bad := 0
		for _, k := range keys {
			if !slices.Contains(cfgKeys, k) {
				bad++
				fs = append(fs, fatal("override %s names no key of %s (closest: %s)", k, cfg, closest(k, cfgKeys)))
			}
		}
		if bad == 0 {
			fs = append(fs, ok("every override (%s) is a key of %s", strings.Join(keys, ", "), cfg))
		}
	}
	return fs
}

// configFor is the config a program's overrides apply to: the one a Hydra
// main composes (its --cfg job, or else its primary config file), or the
// adapter's.
func (t *Target) configFor(e Entry, p *Program, composed *Answer) ([]string, string, error) {
	if composed != nil && composed.Err == "" {
		return composed.Keys, "the config " + filepath.Base(p.Script) + " composes (--cfg job)", nil
	}
	if p != nil && p.Hydra != nil && p.Hydra.ConfigName != "" {
		rel, _ := filepath.Rel(t.Root, p.Hydra.ConfigPath)
		name := filepath.Join(rel, strings.TrimSuffix(p.Hydra.ConfigName, ".yaml")+".yaml")
		keys, err := t.yamlTree(p, name, groupChoices(e.Args, p))
		if err != nil {
			return nil, name, err
		}
		why := "Hydra is not importable in " + t.python(e)
		if composed != nil {
			why = composed.Err
		}
		return keys, name + " and its defaults' YAML (" + why + ")", nil
	}
	if t.Config == "" {
		return nil, "", errors.New("adapter.yaml names no config.default")
	}
	if t.configErr != nil {
		return nil, t.Config, t.configErr
	}
	return t.ConfigKeys, t.Config, nil
}

// groupChoices are the command's group=option overrides of a Hydra main.
func groupChoices(args []string, p *Program) map[string]string {
	m := map[string]string{}
	for _, a := range args {
		k, v, has := strings.Cut(a, "=")
		if _, group := hydraGroup(p, k); has && group {
			m[strings.TrimLeft(k, "+~")] = v
		}
	}
	return m
}

// yamlTree is what Hydra would compose without Hydra: the keys of the
// primary config and of each config its defaults list (or the command)
// chooses, at its package: a group option under the group's name or the
// package written after '@' (verl's "actor@actor_rollout_ref.actor:
// dp_actor"), and so on down the chosen configs' own defaults lists,
// whose groups lie beside them ("../optim@optim: fsdp").
func (t *Target) yamlTree(p *Program, name string, choices map[string]string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(t.Root, name))
	if err != nil {
		return nil, err
	}
	var primary map[string]any
	if err := yaml.Unmarshal(data, &primary); err != nil {
		return nil, document.SyntaxError(name, data, err)
	}
	c := composer{root: p.Hydra.ConfigPath, seen: map[string]bool{}}
	c.compose(primary, "", "", choices, 0)
	for group, option := range choices {
		if !c.chosen[group] {
			c.add(group, option, strings.ReplaceAll(group, "/", "."), 1)
		}
	}
	sort.Strings(c.keys)
	return slices.Compact(c.keys), nil
}

// A composer gathers the keys of a config and of what its defaults list
// brings in. A config it cannot read adds nothing: the hydra-groups rule
// says what is missing.
type composer struct {
	root   string
	keys   []string
	seen   map[string]bool
	chosen map[string]bool
}

// compose adds the keys of cfg, the config in group dir (relative to the
// config root) at package pkg, and of its defaults list's choices; the
// command's choices replace the primary config's own (depth 0).
func (c *composer) compose(cfg map[string]any, dir, pkg string, choices map[string]string, depth int) {
	if depth > 8 {
		return
	}
	for k, v := range cfg {
		if k != "defaults" {
			c.keys = append(c.keys, flatten(join(pkg, k), v)...)
			c.keys = append(c.keys, join(pkg, k))
		}
	}
	defaults, _ := cfg["defaults"].([]any)
	for _, d := range defaults {
		switch d := d.(type) {
		case string:
			// A config of this group, merged here ("actor", "x@pkg").
			name, at, _ := strings.Cut(strings.TrimSpace(d), "@")
			if name != "_self_" {
				c.add(dir+"/"+name, "", packageOf(pkg, at, ""), depth+1)
			}
		case map[string]any:
			for spec, option := range d {
				opt, ok := option.(string)
				if !ok {
					continue // null or a list of options
				}
				spec = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(spec, "override "), "optional "))
				group, at, _ := strings.Cut(spec, "@")
				if depth == 0 {
					if ch := choices[group]; ch != "" {
						opt = ch
					}
					if c.chosen == nil {
						c.chosen = map[string]bool{}
					}
					c.chosen[group] = true
				}
				c.add(dir+"/"+group, opt, packageOf(pkg, at, groupPackage(group)), depth+1)
			}
		}
	}
}

// add composes the config group/option (option "" for a config named
// group itself) at package pkg.
func (c *composer) add(group, option, pkg string, depth int) {
	file := path.Clean(strings.TrimPrefix(group, "/"))
	if option != "" {
		file += "/" + option
	}
	if strings.HasPrefix(file, "../") || c.seen[file+"@"+pkg] {
		return
	}
	c.seen[file+"@"+pkg] = true
	data, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(file)+".yaml"))
	var sub map[string]any
	if err != nil || yaml.Unmarshal(data, &sub) != nil {
		return
	}
	if pkg != "" {
		c.keys = append(c.keys, pkg)
	}
	c.compose(sub, path.Dir(file), pkg, nil, depth)
}

// packageOf is the package of a defaults entry written in a config at
// package parent: the one after '@' (_global_ is the root), else the
// group's own name under the parent.
func packageOf(parent, at, group string) string {
	switch at {
	case "_global_":
		return ""
	case "":
		return join(parent, group)
	}
	return join(parent, at)
}

// groupPackage is a group's default package: its path with dots, or its
// last name for a path that climbs ("../optim").
func groupPackage(group string) string {
	if strings.Contains(group, "..") {
		return path.Base(group)
	}
	return strings.ReplaceAll(strings.Trim(group, "/"), "/", ".")
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	if key == "" {
		return prefix
	}
	return prefix + "." + key
}

// pathOption names an option whose value is an input that must exist.
func pathOption(name string) bool {
	name = strings.TrimLeft(strings.ToLower(name), "-")
	// A name or an id (--dataset_name org/ds, --model_name_or_path) is
	// what a hub or a registry resolves, not a file that must exist.
	for _, w := range []string{"name", "id", "names", "ids", "name_or_path", "name-or-path"} {
		if strings.HasSuffix(name, "_"+w) || strings.HasSuffix(name, "-"+w) {
			return false
		}
	}
	for _, w := range []string{"config", "cfg", "resume", "checkpoint", "ckpt", "load", "data", "dataset", "init"} {
		if name == w || strings.HasPrefix(name, w+"_") || strings.HasPrefix(name, w+"-") || strings.HasSuffix(name, "_"+w) || strings.HasSuffix(name, "-"+w) {
			return true
		}
	}
	return false
}

func pathsRule(t *Target) []Finding {
	var out []Finding
	if t.Config != "" && t.usesConfig() {
		if _, err := os.Stat(filepath.Join(t.Root, t.Config)); err != nil {
			out = append(out, fatal("config %s does not exist", t.Config))
		} else if t.configErr != nil {
			out = append(out, fatal("config does not parse: %v", t.configErr))
		} else {
			out = append(out, ok("config %s exists and parses", t.Config))
		}
	}
	for _, e := range t.Entries {
		for i, a := range e.Args {
			name, val, has := strings.Cut(a, "=")
			if !strings.HasPrefix(name, "--") || !pathOption(name) {
				continue
			}
			if !has {
				if i+1 >= len(e.Args) || strings.HasPrefix(e.Args[i+1], "-") {
					continue
				}
				val = e.Args[i+1]
			}
			if val == "" || val == t.Config || within(t.RunDir, val) {
				continue // the run's own outputs do not exist yet
			}
			if _, err := os.Stat(filepath.Join(t.Root, val)); errors.Is(err, iofs.ErrNotExist) {
				out = append(out, fatal("%s %s does not exist", name, val))
			}
		}
	}
	return out
}

// usesConfig says whether the command hands the program the config file:
// only then must it exist.
func (t *Target) usesConfig() bool {
	for _, c := range t.Calls {
		for _, a := range c.Args {
			_, v, _ := strings.Cut(a, "=")
			if a == t.Config || v == t.Config {
				return true
			}
		}
	}
	return false
}

func within(dir, p string) bool {
	if dir == "" {
		return false
	}
	r, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(p))
	return err == nil && r != ".." && !strings.HasPrefix(r, "../")
}

// runDirRule agrees with launch, which refuses a run directory that
// exists (a relaunch never writes among another run's files), and asks
// for the disk the runs to launch need: what the largest past run of the
// repo wrote, per run, and minDisk on top.
func runDirRule(t *Target) []Finding {
	if t.RunDir == "" {
		return nil
	}
	dir := t.RunDir
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(t.Root, dir)
	}
	var fs []Finding
	if !strings.Contains(t.Command, t.RunDir) {
		// Its files land where the next run of the experiment finds them.
		fs = append(fs, warn("the command does not name its run directory %s: the program writes elsewhere, where a later run finds this one's files; pass {run_dir} with its output option if it has one", t.RunDir))
	}
	if _, err := os.Lstat(dir); err == nil {
		fs = append(fs, fatal("run directory %s exists: a run wrote there before, and launch never writes among its files; choose a new --run-dir", t.RunDir))
	}
	parent := dir
	for {
		if _, err := os.Stat(parent); err == nil {
			break
		}
		next := filepath.Dir(parent)
		if next == parent {
			break
		}
		parent = next
	}
	if err := syscall.Access(parent, 2 /* W_OK */); err != nil {
		return append(fs, fatal("run directory %s cannot be written: %s is not writable (%v)", t.RunDir, rel(t.Root, parent), err))
	}
	runs := max(t.Runs, 1)
	past, pastDir := largestRun(t.Root, t.RunDir)
	need := uint64(minDisk) + uint64(runs)*past
	s, err := probe.Disk(probe.System(), parent)
	pastText := "no past run to size"
	if past > 0 {
		pastText = fmt.Sprintf("%d run%s of up to %s, as %s", runs, plural(runs), probe.Bytes(past), pastDir)
	}
	switch {
	case err != nil:
		fs = append(fs, warn("run directory %s: disk space unknown (%v)", t.RunDir, err))
	case s.Free < minDisk:
		fs = append(fs, warn("run directory %s: disk nearly full (%s)", t.RunDir, s))
	case s.Free < need:
		fs = append(fs, warn("run directory %s: disk short for %s, plus %s headroom (%s)", t.RunDir, pastText, probe.Bytes(minDisk), s))
	default:
		fs = append(fs, ok("run directory %s is writable (%s; %s)", t.RunDir, s, pastText))
	}
	return fs
}

// maxSized bounds the files largestRun reads the size of.
const maxSized = 20000

// largestRun sizes the directories at the run directory's depth under its
// top folder (runs/*/* for runs/exp/seed0): what past runs wrote.
func largestRun(root, runDir string) (uint64, string) {
	if filepath.IsAbs(runDir) {
		return 0, ""
	}
	parts := strings.Split(filepath.ToSlash(filepath.Clean(runDir)), "/")
	if len(parts) < 2 {
		return 0, ""
	}
	for i := 1; i < len(parts); i++ {
		parts[i] = "*"
	}
	dirs, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(strings.Join(parts, "/"))))
	var best uint64
	var bestDir string
	files := 0
	for _, d := range dirs {
		var size uint64
		_ = filepath.WalkDir(d, func(_ string, de iofs.DirEntry, err error) error {
			if err != nil || files >= maxSized {
				return iofs.SkipAll
			}
			if de.Type().IsRegular() {
				files++
				if info, err := de.Info(); err == nil {
					size += uint64(info.Size())
				}
			}
			return nil
		})
		if size > best {
			best, bestDir = size, rel(root, d)
		}
	}
	return best, bestDir
}

func seedRule(t *Target) []Finding {
	if len(t.HeldOut) == 0 {
		return []Finding{skip("the contract names no held-out evaluation seeds")}
	}
	if slices.Contains(t.HeldOut, t.Seed) {
		return []Finding{fatal("seed %d is one of the held-out evaluation seeds %v", t.Seed, t.HeldOut)}
	}
	if low := slices.Min(t.HeldOut); t.Seed >= low {
		return []Finding{warn("seed %d is at or above the first held-out evaluation seed %d", t.Seed, low)}
	}
	return []Finding{ok("seed %d is outside the held-out evaluation seeds", t.Seed)}
}

func gpusRule(t *Target) []Finding {
	var fs []Finding
	for _, c := range t.Calls {
		if v, has := c.Env["CUDA_VISIBLE_DEVICES"]; has {
			n := 0
			for _, d := range strings.Split(v, ",") {
				if strings.TrimSpace(d) != "" {
					n++
				}
			}
			if n != t.GPUsPerRun {
				fs = append(fs, fatal("CUDA_VISIBLE_DEVICES=%s gives the run %d GPU%s; the contract approves %d per run", v, n, plural(n), t.GPUsPerRun))
			}
		}
	}
	for _, e := range t.Entries {
		if e.Launcher == "" || e.NProc == 0 {
			continue
		}
		if e.NProc != t.GPUsPerRun {
			fs = append(fs, fatal("%s asks for %d processes (one per GPU); the contract approves %d GPU%s per run", e.Launcher, e.NProc, t.GPUsPerRun, plural(t.GPUsPerRun)))
		} else {
			fs = append(fs, ok("%s asks for %d GPU%s, as the contract approves", e.Launcher, e.NProc, plural(e.NProc)))
		}
	}
	return fs
}

func portsRule(t *Target) []Finding {
	if t.Live || len(t.Ports) == 0 {
		return nil
	}
	var fs []Finding
	for _, p := range probe.Ports(probe.System(), t.Ports) {
		switch p.Status {
		case probe.PortFree:
			fs = append(fs, ok("%s", p))
		case probe.PortInUse:
			fs = append(fs, fatal("%s", p))
		default:
			fs = append(fs, warn("%s", p))
		}
	}
	return fs
}

func envRule(t *Target) []Finding {
	usesWandb := false
	for _, p := range t.Programs {
		usesWandb = usesWandb || slices.Contains(p.Uses, "wandb")
	}
	if !usesWandb {
		return nil
	}
	env := map[string]string{}
	for _, kv := range t.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	switch mode := env["WANDB_MODE"]; {
	case mode == "offline" || mode == "disabled" || mode == "dryrun":
		return []Finding{ok("W&B logs %s (WANDB_MODE)", mode)}
	case env["WANDB_API_KEY"] != "":
		return []Finding{ok("W&B key set (WANDB_API_KEY)")}
	}
	if home, err := os.UserHomeDir(); err == nil {
		if data, err := os.ReadFile(filepath.Join(home, ".netrc")); err == nil && strings.Contains(string(data), "api.wandb.ai") {
			return []Finding{ok("W&B key in ~/.netrc")}
		}
	}
	return []Finding{warn("the program imports wandb but WANDB_API_KEY is not set, ~/.netrc has no api.wandb.ai entry and WANDB_MODE is not offline")}
}

// closest is the accepted name nearest to name, by edit distance.
func closest(name string, accepted []string) string {
	best, bestD := "none", -1
	for _, a := range accepted {
		if d := suggest.Distance(name, a); bestD < 0 || d < bestD {
			best, bestD = a, d
		}
	}
	return best
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func clip(s string) string {
	if len(s) <= 80 {
		return s
	}
	return strings.ToValidUTF8(s[:80], "") + "…"
}
