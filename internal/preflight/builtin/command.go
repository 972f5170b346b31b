package builtin

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// A Call is one simple command of the resolved command line.
type Call struct {
	Env  map[string]string // assignments before the command
	Args []string          // its words; a word that needs the shell to expand is "" and Dynamic
	// Dynamic says some word could not be read without running the shell.
	Dynamic bool
}

// An Entry is the Python program one call runs, and what it is handed.
type Entry struct {
	Call *Call
	// Interpreter runs it ("" means the runtime's declared one).
	Interpreter string
	// Script is the program's file, relative to the repo root, and Module
	// the module name when it runs as "python -m".
	Script string
	Module string
	// Console is the console script of the repository's packaging that
	// the call names (trl → trl.cli:main), run as that function.
	Console *ConsoleScript
	// Args are the program's own arguments.
	Args []string
	// Launcher names what started it (torchrun, accelerate, deepspeed) and
	// NProc how many processes it asks for (0: not said).
	Launcher string
	NProc    int
	// Runner is the shell script in between, when the call runs one; its
	// own options are read too.
	Runner string
	// RunnerOptions are the long options the runner's text names.
	RunnerOptions []string
}

// parseCommand splits a command line into its simple commands.
func parseCommand(cmd string) ([]Call, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil, err
	}
	var calls []Call
	syntax.Walk(f, func(n syntax.Node) bool {
		ce, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		c := Call{Env: map[string]string{}}
		for _, a := range ce.Assigns {
			v, ok := literal(a.Value)
			if !ok {
				c.Dynamic = true
			}
			c.Env[a.Name.Value] = v
		}
		for _, w := range ce.Args {
			v, ok := literal(w)
			if !ok {
				c.Dynamic = true
			}
			c.Args = append(c.Args, v)
		}
		calls = append(calls, c)
		return true
	})
	return calls, nil
}

// literal reads a word that needs no expansion.
func literal(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// lazyRegexp compiles on first use: every rlxp command links this
// package, and few run the preflight.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

var pythonName = lazyRegexp(`^python(\d+(\.\d+)*)?$`)

// isWrapper reports commands that run the rest of their arguments as a command.
func isWrapper(base string) bool {
	switch base {
	case "env", "nohup", "exec", "time", "setsid", "nice":
		return true
	}
	return false
}

// entryOf finds the Python program a call runs, if any.
func entryOf(root string, c *Call) (Entry, bool) {
	args := c.Args
	for len(args) > 0 {
		base := filepath.Base(args[0])
		switch {
		case isWrapper(base):
			args = args[1:]
			for len(args) > 0 && (strings.HasPrefix(args[0], "-") || (base == "env" && strings.Contains(args[0], "="))) {
				if base == "env" && strings.Contains(args[0], "=") {
					k, v, _ := strings.Cut(args[0], "=")
					c.Env[k] = v
				}
				args = args[1:]
			}
			continue
		case pythonName().MatchString(base):
			return pythonEntry(root, c, args)
		case base == "torchrun" || base == "accelerate" || base == "deepspeed":
			return launcherEntry(root, c, base, args[1:])
		case base == "bash" || base == "sh":
			return runnerEntry(root, c, args[1:])
		case strings.HasSuffix(base, ".py"):
			return Entry{Call: c, Script: rel(root, args[0]), Args: args[1:]}, true
		case len(args) > 1 && args[1] == "run" && projectRunners[base] != nil:
			rest, module := skipRunnerOptions(projectRunners[base], args[2:])
			if module {
				// uv run -m pkg.mod: python -m in the project's environment.
				return pythonEntry(root, c, append([]string{"python", "-m"}, rest...))
			}
			args = rest
			continue
		}
		if cs, ok := consoleScripts(root)[args[0]]; ok {
			if script := packageFile(root, cs.Module); script != "" {
				return Entry{Call: c, Script: script, Module: cs.Module, Console: &cs, Args: args[1:]}, true
			}
		}
		return Entry{}, false
	}
	return Entry{}, false
}

// pythonEntry reads "python [options] script.py args" and "python -m mod args".
func pythonEntry(root string, c *Call, args []string) (Entry, bool) {
	e := Entry{Call: c, Interpreter: args[0]}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-m" && i+1 < len(args):
			mod := args[i+1]
			if mod == "torch.distributed.run" || mod == "torch.distributed.launch" {
				l, ok := launcherEntry(root, c, "torchrun", args[i+2:])
				l.Interpreter = args[0]
				return l, ok
			}
			e.Script, e.Module = moduleFile(root, mod), mod
			e.Args = args[i+2:]
			return e, e.Script != ""
		case a == "-c":
			return Entry{}, false
		case a == "-X" || a == "-W":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			e.Script, e.Args = rel(root, a), args[i+1:]
			return e, true
		}
	}
	return Entry{}, false
}

// launcherEntry reads torchrun, accelerate launch and deepspeed: their own
// options up to the script, the number of processes they ask for.
func launcherEntry(root string, c *Call, name string, args []string) (Entry, bool) {
	e := Entry{Call: c, Launcher: name}
	if name == "accelerate" && len(args) > 0 && args[0] == "launch" {
		args = args[1:]
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			e.Script, e.Args = rel(root, a), args[i+1:]
			return e, strings.HasSuffix(a, ".py")
		}
		k, v, has := strings.Cut(a, "=")
		if !has && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") && !strings.HasSuffix(args[i+1], ".py") {
			v = args[i+1]
			i++
		}
		switch strings.ReplaceAll(k, "-", "_") {
		case "__nproc_per_node", "__num_processes", "__num_gpus":
			e.NProc, _ = strconv.Atoi(v)
		case "__config_file":
			if n := acceleratePrograms(root, v); n > 0 {
				e.NProc = n
			}
		}
	}
	return Entry{}, false
}

// acceleratePrograms reads num_processes from an accelerate config file.
func acceleratePrograms(root, path string) int {
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(`(?m)^num_processes:\s*(\d+)`).FindSubmatch(data)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

var (
	pyRef   = lazyRegexp(`[A-Za-z0-9_./-]+\.py\b`)
	longOpt = lazyRegexp(`--[A-Za-z][A-Za-z0-9_-]*`)
)

// runnerEntry follows a shell runner to the Python program it starts: one
// the runner names whose name is one of the runner's arguments (run.sh
// train → train.py), or the only one it names. The arguments after that
// go through to the program; the runner's own options are those its text
// names.
func runnerEntry(root string, c *Call, args []string) (Entry, bool) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return Entry{}, false
	}
	runner := rel(root, args[0])
	data, err := os.ReadFile(filepath.Join(root, runner))
	if err != nil {
		return Entry{Call: c, Runner: runner}, false
	}
	var scripts []string
	seen := map[string]bool{}
	for _, ref := range pyRef().FindAllString(string(data), -1) {
		ref = strings.TrimPrefix(ref, "/")
		for _, cand := range []string{ref, filepath.Join(filepath.Dir(runner), ref), filepath.Base(ref)} {
			if st, err := os.Stat(filepath.Join(root, cand)); err == nil && st.Mode().IsRegular() && !seen[cand] {
				seen[cand] = true
				scripts = append(scripts, filepath.Clean(cand))
				break
			}
		}
	}
	e := Entry{Call: c, Runner: runner, RunnerOptions: longOpt().FindAllString(string(data), -1)}
	rest := args[1:]
	for i, a := range rest {
		for _, s := range scripts {
			if strings.TrimSuffix(filepath.Base(s), ".py") == a {
				e.Script, e.Args = s, rest[i+1:]
				return e, true
			}
		}
	}
	if len(scripts) == 1 {
		e.Script, e.Args = scripts[0], rest
		return e, true
	}
	return e, false
}

// moduleFile is the repository file "python -m mod" runs.
func moduleFile(root, mod string) string {
	p := filepath.Join(strings.Split(mod, ".")...)
	for _, cand := range []string{p + ".py", filepath.Join(p, "__main__.py")} {
		if _, err := os.Stat(filepath.Join(root, cand)); err == nil {
			return cand
		}
	}
	return ""
}

func rel(root, p string) string {
	if filepath.IsAbs(p) {
		if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return p
	}
	return filepath.Clean(p)
}

// projectRunners run a command in a project's environment ("uv run python
// train.py", "poetry run train"): their own options come first, and these
// are the ones that take a value.
var projectRunners = map[string]map[string]bool{
	"uv": {"--with": true, "--with-editable": true, "--with-requirements": true, "--python": true, "-p": true,
		"--extra": true, "--group": true, "--only-group": true, "--no-group": true, "--no-extra": true, "--project": true,
		"--directory": true, "--env-file": true, "--package": true, "--index": true, "--default-index": true,
		"--index-url": true, "--extra-index-url": true, "--find-links": true, "-f": true, "--config-file": true, "--cache-dir": true},
	"poetry":     {"-C": true, "--directory": true, "-P": true, "--project": true},
	"pipenv":     {},
	"pdm":        {"-p": true, "--project": true, "-L": true, "--lockfile": true},
	"hatch":      {"-e": true, "--env": true},
	"rye":        {"--pyproject": true},
	"pixi":       {"-e": true, "--environment": true, "--manifest-path": true},
	"conda":      {"-n": true, "--name": true, "-p": true, "--prefix": true, "--cwd": true},
	"mamba":      {"-n": true, "--name": true, "-p": true, "--prefix": true, "--cwd": true},
	"micromamba": {"-n": true, "--name": true, "-p": true, "--prefix": true, "--cwd": true},
}

// skipRunnerOptions drops a project runner's own options (valued ones
// with their value) and a "--" after them; module says the runner was
// asked for a module (uv run -m).
func skipRunnerOptions(valued map[string]bool, args []string) (rest []string, module bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return args[i+1:], false
		case a == "-m" || a == "--module":
			return args[i+1:], true
		case !strings.HasPrefix(a, "-"):
			return args[i:], false
		case valued[a]:
			i++
		}
	}
	return nil, false
}

// A ConsoleScript is a command the repository's packaging installs: its
// name runs Func of Module.
type ConsoleScript struct {
	Name, Module, Func string
}

var (
	scriptsTable  = lazyRegexp(`(?m)^\[(project\.scripts|tool\.poetry\.scripts)\][ \t]*$`)
	scriptLine    = lazyRegexp(`^\s*"?([A-Za-z0-9_.-]+)"?\s*=\s*["']([A-Za-z0-9_.]+):([A-Za-z0-9_.]+)["']`)
	consoleInList = lazyRegexp(`["']\s*([A-Za-z0-9_.-]+)\s*=\s*([A-Za-z0-9_.]+):([A-Za-z0-9_.]+)\s*["']`)
)

// consoleScripts are the console scripts pyproject.toml ([project.scripts],
// [tool.poetry.scripts]) or setup.py (entry_points console_scripts)
// declares at the repository root.
func consoleScripts(root string) map[string]ConsoleScript {
	out := map[string]ConsoleScript{}
	if data, err := os.ReadFile(filepath.Join(root, "pyproject.toml")); err == nil {
		text := string(data)
		for _, loc := range scriptsTable().FindAllStringIndex(text, -1) {
			for _, line := range strings.Split(text[loc[1]:], "\n")[1:] {
				if strings.HasPrefix(strings.TrimSpace(line), "[") {
					break
				}
				if m := scriptLine().FindStringSubmatch(line); m != nil {
					out[m[1]] = ConsoleScript{Name: m[1], Module: m[2], Func: m[3]}
				}
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(root, "setup.py")); err == nil {
		text := string(data)
		if i := strings.Index(text, "console_scripts"); i >= 0 {
			list := text[i:]
			if j := strings.Index(list, "]"); j >= 0 {
				list = list[:j]
			}
			for _, m := range consoleInList().FindAllStringSubmatch(list, -1) {
				if _, ok := out[m[1]]; !ok {
					out[m[1]] = ConsoleScript{Name: m[1], Module: m[2], Func: m[3]}
				}
			}
		}
	}
	return out
}

// packageFile is the repository file that importing mod runs: a module
// file or a package's __init__.py.
func packageFile(root, mod string) string {
	p := filepath.Join(strings.Split(mod, ".")...)
	for _, cand := range []string{p + ".py", filepath.Join(p, "__init__.py")} {
		if st, err := os.Stat(filepath.Join(root, cand)); err == nil && st.Mode().IsRegular() {
			return cand
		}
	}
	return ""
}
