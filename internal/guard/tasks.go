package guard

import (
	"fmt"
	"github.com/rlxp/rlxp/internal/pylex"
	"os"
	"path/filepath"
	"strings"
)

// tasks follows a task runner through its task file: the command lines of
// the tox environments (tox.ini commands), nox sessions (session.run),
// invoke tasks (c.run), doit tasks (actions) and snakemake rules (shell)
// that it runs are command lines the command runs. A task named on the
// command line runs its own commands; without one, or with one the guard
// cannot find in the file, every task's commands count. Listing and dry
// runs run none.
func (a *analyzer) tasks(name string, args []string, exact []bool, text string, sc *scope, depth int) {
	if name == "inv" {
		name = "invoke"
	}
	names, file, ok := taskArgs(name, args, exact)
	if !ok {
		return
	}
	candidates := map[string][]string{
		"tox": {"tox.ini", "tox.toml"}, "nox": {"noxfile.py"}, "invoke": {"tasks.py"},
		"doit": {"dodo.py"}, "snakemake": {"Snakefile", "snakefile", "workflow/Snakefile"},
	}[name]
	if file != "" {
		candidates = []string{file}
	}
	for _, d := range sc.dirs {
		if d == "" && !filepath.IsAbs(file) {
			continue
		}
		for _, f := range candidates {
			path := resolve(f, d)
			data, err := os.ReadFile(path)
			if err != nil || len(data) > maxScript {
				continue
			}
			a.parsed += len(data)
			inner := sc.with([]string{d})
			inner.stdin = input{}
			for _, t := range taskCommands(name, filepath.Base(path), string(data), names) {
				inner.via = chain(sc.via, fmt.Sprintf("%s runs the commands of %s (%s)", quote(text), t.task, f))
				a.source(t.cmd, depth+1, inner)
			}
			break
		}
	}
}

// taskArgs reads a task runner's command line: the tasks it names, the
// task file it is given, and false when it runs no task (a listing, a dry
// run, help).
func taskArgs(name string, args []string, exact []bool) (names []string, file string, ok bool) {
	valued := map[string]string{
		"tox":       " -e --envlist -c --conf --root --workdir -x --override --installpkg -m --labels -f --factors -p --parallel ",
		"nox":       " -s --sessions --session -e -f --noxfile -t --tags -k --keywords -p --python --envdir --extra-pythons ",
		"invoke":    " -c --collection -r --search-root -f --config -p --pty ",
		"doit":      " -f --file -d --dir --db-file --backend -n --process -P --parallel-type --reporter -o --output-file ",
		"snakemake": " -s --snakefile --cores -c --jobs -j --configfile --configfiles -C --config --directory -d --profile --resources --set-threads --default-resources --executor -e --latency-wait -w --until --forcerun -R --rerun-triggers --conda-prefix ",
	}[name]
	for i := 1; i < len(args); i++ {
		a, v := args[i], ""
		if !exact[i] {
			return nil, file, true // a task the guard cannot name: all of them
		}
		if a == "--" {
			break // what follows goes to the tasks
		}
		switch a {
		case "-l", "--list", "--help", "-h", "--version", "--dry-run", "--dryrun", "-a", "--listenvs", "--listenvs-all", "--list-sessions", "--summary", "--dag", "--rulegraph", "--filegraph", "--lint":
			return nil, "", false
		case "-n":
			if name == "snakemake" {
				return nil, "", false
			}
		}
		if k, val, found := strings.Cut(a, "="); found && strings.HasPrefix(a, "--") {
			a, v = k, val
		} else if strings.Contains(valued, " "+a+" ") && i+1 < len(args) {
			i++
			v = args[i]
		}
		switch {
		case a == "-e" || a == "--envlist" || a == "-s" && name == "nox" || a == "--sessions" || a == "--session" || a == "--until" || a == "--forcerun" || a == "-R":
			names = append(names, strings.Split(v, ",")...)
		case a == "-t" || a == "--tags" || a == "-k" || a == "--keywords" || a == "-m" || a == "--labels" || a == "-f" && name == "tox":
			return nil, file, true // tasks chosen by a pattern: any of them
		case a == "-s" && name == "snakemake", a == "--snakefile", a == "--noxfile", a == "-f" && (name == "nox" || name == "doit"), a == "--file", a == "-c" && name == "tox", a == "--conf":
			file = v
		case (a == "-c" || a == "--collection") && name == "invoke":
			file = v + ".py"
		case strings.HasPrefix(a, "-") || v != "" || strings.Contains(a, "="):
		case name == "tox" && (a == "run" || a == "r" || a == "p" || a == "run-parallel" || a == "exec" || a == "e"):
		case name == "tox" && (a == "list" || a == "l" || a == "config" || a == "c" || a == "quickstart" || a == "depends" || a == "de"):
			return nil, "", false
		case name == "doit" && a == "run":
		case name == "doit" && (a == "list" || a == "help" || a == "info" || a == "clean" || a == "forget" || a == "ignore" || a == "dumpdb" || a == "strace" || a == "tabcompletion" || a == "reset-dep"):
			return nil, "", false
		case name == "tox" || name == "nox":
			// not a task: tox and nox name theirs with options
		case name == "invoke" && i > 1 && strings.HasPrefix(args[i-1], "--") && !strings.Contains(args[i-1], "="):
			// the value of a task's own option (invoke prep --split train)
		default:
			names = append(names, a)
		}
	}
	return names, file, true
}

// A taskCommand is one command line a task runs.
type taskCommand struct {
	task string
	cmd  string
}

// taskCommands lists the command lines the tasks named run, read from a
// task file; every task's when names is empty or names one the file does
// not hold.
func taskCommands(runner, file, data string, names []string) []taskCommand {
	var tasks map[string][]string
	var order []string
	switch runner {
	case "tox":
		if strings.HasSuffix(file, ".toml") {
			tasks, order = toxToml(data)
		} else {
			tasks, order = toxIni(data)
		}
	case "nox", "invoke", "doit":
		tasks, order = pyTasks(runner, data)
	case "snakemake":
		tasks, order = snakeRules(data)
	}
	if runner == "tox" && len(names) == 0 {
		names = tasks["\x00envlist"] // tox runs its envlist
	}
	pick := order
	if len(names) > 0 {
		pick = nil
		for _, n := range names {
			key := strings.TrimSpace(n)
			if runner != "tox" {
				key = strings.ReplaceAll(key, "-", "_")
			}
			if runner == "doit" {
				key, _, _ = strings.Cut(key, ":")
			}
			if _, ok := tasks[key]; !ok && runner == "tox" {
				pick = append(pick, key) // an environment of [testenv]'s commands (py311)
				continue
			} else if !ok {
				pick = order // a task the file does not show: it may be any
				break
			}
			pick = append(pick, key)
		}
	}
	var out []taskCommand
	for _, t := range pick {
		for _, c := range tasks[t] {
			out = append(out, taskCommand{task: t, cmd: c})
		}
		if runner == "tox" && len(tasks[t]) == 0 {
			for _, c := range tasks[""] { // commands inherited from [testenv]
				out = append(out, taskCommand{task: t, cmd: c})
			}
		}
	}
	if len(names) == 0 && runner == "tox" {
		for _, c := range tasks[""] {
			out = append(out, taskCommand{task: "testenv", cmd: c})
		}
	}
	return out
}

// toxIni reads the commands of tox.ini's environments ([testenv] is the
// one named "").
func toxIni(data string) (map[string][]string, []string) {
	tasks := map[string][]string{}
	var order []string
	env, inCommands := "-", false
	for _, line := range strings.Split(data, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "["):
			section := strings.Trim(trimmed, "[] \t")
			env, inCommands = "-", false
			if section == "tox" {
				env = "\x00tox"
			} else if section == "testenv" {
				env = ""
			} else if n, ok := strings.CutPrefix(section, "testenv:"); ok {
				env = n
				order = append(order, n)
			}
		case env == "-" || trimmed == "" || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, ";"):
		case env == "\x00tox":
			// envlist = a, b (also on the lines below): what tox runs.
			key, val, _ := strings.Cut(trimmed, "=")
			if line[0] != ' ' && line[0] != '\t' {
				inCommands = strings.TrimSpace(key) == "envlist" || strings.TrimSpace(key) == "env_list"
				if !inCommands {
					continue
				}
			} else {
				val = trimmed
			}
			if inCommands {
				for _, e := range strings.FieldsFunc(val, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
					tasks["\x00envlist"] = append(tasks["\x00envlist"], e)
				}
			}
		case line[0] != ' ' && line[0] != '\t':
			key, val, _ := strings.Cut(trimmed, "=")
			key = strings.TrimSpace(key)
			inCommands = key == "commands" || key == "commands_pre" || key == "commands_post"
			if inCommands && strings.TrimSpace(val) != "" {
				tasks[env] = append(tasks[env], toxLine(val))
			}
		case inCommands:
			tasks[env] = append(tasks[env], toxLine(trimmed))
		}
	}
	return tasks, order
}

// toxLine is a tox command as shell: a leading - (ignore the exit status)
// dropped; {posargs} and other substitutions stay words.
func toxLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.TrimPrefix(strings.TrimPrefix(s, "- "), "-")
}

// toxToml reads the commands of tox.toml's environments: [env.NAME] and
// [env_run_base] (the one named ""), each an array of argument vectors.
func toxToml(data string) (map[string][]string, []string) {
	tasks := map[string][]string{}
	var order []string
	env := "-"
	lines := strings.Split(data, "\n")
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		switch {
		case strings.HasPrefix(trimmed, "["):
			section := strings.Trim(trimmed, "[] \t")
			env = "-"
			if section == "env_run_base" {
				env = ""
			} else if n, ok := strings.CutPrefix(section, "env."); ok {
				env = strings.Trim(n, `"'`)
				order = append(order, env)
			}
		case env != "-" && (strings.HasPrefix(trimmed, "commands") || strings.HasPrefix(trimmed, "commands_pre") || strings.HasPrefix(trimmed, "commands_post")):
			_, val, _ := strings.Cut(trimmed, "=")
			// The array may span lines: gather to its closing bracket.
			for depth := strings.Count(val, "[") - strings.Count(val, "]"); depth > 0 && i+1 < len(lines); depth = strings.Count(val, "[") - strings.Count(val, "]") {
				i++
				val += "\n" + lines[i]
			}
			tasks[env] = append(tasks[env], tomlVectors(val)...)
		}
	}
	return tasks, order
}

// tomlVectors reads an array of arrays of strings as command lines.
func tomlVectors(val string) []string {
	var out []string
	for i := 0; i < len(val); i++ {
		if val[i] == '[' && pyStringStart(val, skipSpace(val, i+1)) {
			if cmd := pyVector(val, i+1); cmd != "" {
				out = append(out, cmd)
			}
		}
	}
	return out
}

// pyTasks reads the command lines of a Python task file's tasks: nox
// sessions and invoke tasks by their function (session.run, c.run and
// the like, with what the function calls), doit tasks by task_NAME's
// actions.
func pyTasks(runner, data string) (map[string][]string, []string) {
	tasks := map[string][]string{}
	var order []string
	for _, b := range pyBlocks(data) {
		if b.name == "" || strings.HasPrefix(b.name, "_") {
			continue
		}
		name := b.name
		if runner == "doit" {
			n, ok := strings.CutPrefix(name, "task_")
			if !ok {
				continue
			}
			name = n
		} else if !strings.Contains(b.text, "@") {
			continue // not decorated: a helper, not a session or task
		}
		body := reachable(data, []string{b.name}, false)
		var cmds []string
		if runner == "doit" {
			cmds = doitActions(body)
		} else {
			cmds = runCalls(body)
		}
		cmds = append(cmds, spawnCalls(body)...)
		tasks[name] = cmds
		order = append(order, name)
	}
	return tasks, order
}

// runCalls lists the command lines of the run calls of nox and invoke:
// session.run("python", "train.py"), c.run("python train.py").
func runCalls(code string) []string {
	var out []string
	toks := pylex.Tokens(code)
	for _, c := range pyCalls(code, toks) {
		_, last := lastParts(c.name)
		if !strings.Contains(c.name, ".") || last != "run" && last != "run_always" && last != "run_install" && last != "sudo" {
			continue
		}
		i := c.args
		k := skipSpace(code, i)
		if pyStringStart(code, k) {
			if s, end, ok := pyString(code, k); ok && strings.ContainsAny(strings.TrimSpace(s), " \t\n") {
				if next := skipSpace(code, end); next < len(code) && (code[next] == ')' || code[next] == ',') {
					out = append(out, s)
					continue
				}
			}
		}
		if cmd := pyCommand(code, toks, i, i); cmd != "" {
			if v := pyVector(code, i); v != "" && pyStringStart(code, k) {
				cmd = v
			}
			out = append(out, cmd)
		}
	}
	return out
}

// doitActions lists the command lines of doit's actions: strings are
// shell commands, lists argument vectors.
func doitActions(code string) []string {
	var out []string
	for i := 0; ; {
		j := strings.Index(code[i:], "actions")
		if j < 0 {
			return out
		}
		i += j + len("actions")
		k := skipSpace(code, i)
		for k < len(code) && (code[k] == '"' || code[k] == '\'' || code[k] == ':' || code[k] == '=' || code[k] == ' ') {
			k++
		}
		if k >= len(code) || code[k] != '[' {
			continue
		}
		for k++; k < len(code) && code[k] != ']'; k++ {
			switch {
			case code[k] == '[':
				if v := pyVector(code, k+1); v != "" {
					out = append(out, v)
				}
				for k < len(code) && code[k] != ']' {
					k++
				}
			case pyStringStart(code, k):
				s, end, ok := pyString(code, k)
				if !ok {
					k = len(code)
					break
				}
				out = append(out, s)
				k = end - 1
			}
		}
	}
}

// snakeRules reads the shell commands of a Snakefile's rules.
func snakeRules(data string) (map[string][]string, []string) {
	tasks := map[string][]string{}
	var order []string
	rule := ""
	lines := strings.Split(data, "\n")
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		if r, ok := strings.CutPrefix(trimmed, "rule "); ok && lines[i][0] != ' ' && lines[i][0] != '\t' {
			rule = strings.TrimSpace(strings.TrimSuffix(r, ":"))
			order = append(order, rule)
			tasks[rule] = nil
			continue
		}
		rest, ok := strings.CutPrefix(trimmed, "shell:")
		if !ok || rule == "" {
			continue
		}
		// The command is the string after shell:, here or on the next lines.
		text := rest + "\n" + strings.Join(lines[i+1:min(i+40, len(lines))], "\n")
		k := skipSpace(text, 0)
		var parts []string
		for pyStringStart(text, k) {
			s, end, ok := pyString(text, k)
			if !ok {
				break
			}
			parts = append(parts, s)
			k = skipSpace(text, end)
		}
		if len(parts) > 0 {
			tasks[rule] = append(tasks[rule], strings.Join(parts, ""))
		}
	}
	return tasks, order
}
