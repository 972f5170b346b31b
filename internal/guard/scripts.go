package guard

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// projectTasks follows the scripts and tasks a project file gives a
// runner: package.json's scripts (npm run, yarn, pnpm, bun, with their
// pre and post scripts), and pyproject.toml's or pixi.toml's tasks
// (pdm, hatch, pixi, poe, rye) and console scripts (project.scripts,
// tool.poetry.scripts: uv run, poetry run, pdm run). Each command line a
// task runs is judged as the command's own; a console script's entry
// point (train:main) runs as from train import main; main() would.
func (a *analyzer) projectTasks(name string, args []string, exact []bool, text string, sc *scope, depth int) {
	files := []string{"pyproject.toml", "pixi.toml"}
	dirs := sc.dirs
	if name == "npm" || name == "yarn" || name == "pnpm" || name == "bun" {
		files = []string{"package.json"}
		var prefix string
		var ok bool
		if prefix, args, exact, ok = packageDir(args, exact); !ok {
			a.opaque(prefix, "the directory whose package.json "+name+" reads", text, sc)
			return
		}
		if prefix != "" {
			dirs = nil
			for _, d := range sc.dirs {
				if d != "" || filepath.IsAbs(prefix) {
					dirs = append(dirs, resolve(prefix, d))
				}
			}
		}
	}
	task, at := taskName(name, args)
	if task == "" || !exact[at] || a.noDisk {
		return
	}
	// Outside every repository nothing is read: the fast path stays fast.
	if a.settled != nil && a.settled(call{argv: []string{name}, exact: []bool{true}, dirs: dirs}) {
		return
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		for _, f := range files {
			path, data := findUp(d, f)
			if path == "" {
				continue
			}
			var cmds []taskCmd
			if f == "package.json" {
				cmds = packageScripts(data, task)
			} else {
				cmds = tomlTasks(data, name, task)
			}
			inner := sc.with([]string{filepath.Dir(path)})
			inner.stdin = input{}
			inner.via = chain(sc.via, fmt.Sprintf("%s runs the script %s (%s)", quote(text), task, shownPath(path, sc.dirs)))
			for _, c := range cmds {
				if c.entry != "" {
					mod, fn, _ := strings.Cut(c.entry, ":")
					fn, _, _ = strings.Cut(strings.TrimSpace(fn), ".")
					a.code(fmt.Sprintf("from %s import %s\n%s()\n", strings.TrimSpace(mod), fn, fn), true, inner, depth+1)
					continue
				}
				a.source(c.line, depth+1, inner)
			}
		}
	}
}

// packageDir takes out of a package manager's arguments the directory it
// runs in (npm --prefix DIR, -C DIR; yarn --cwd DIR; pnpm -C DIR, --dir
// DIR), and returns the rest; ok is false, with the word, when that
// directory cannot be resolved.
func packageDir(args []string, exact []bool) (dir string, rest []string, restExact []bool, ok bool) {
	for i := 0; i < len(args); i++ {
		opt, val, hasVal := strings.Cut(args[i], "=")
		switch opt {
		case "--prefix", "-C", "--cwd", "--dir":
			n := 1
			if !hasVal {
				if i+1 >= len(args) {
					break
				}
				val, n = args[i+1], 2
				if !exact[i+1] {
					return val, nil, nil, false
				}
			} else if !exact[i] {
				return args[i], nil, nil, false
			}
			dir = val
			rest = append(append([]string{}, args[:i]...), args[i+n:]...)
			restExact = append(append([]bool{}, exact[:i]...), exact[i+n:]...)
			args, exact = rest, restExact
			i--
		}
	}
	return dir, args, exact, true
}

// runAll follows npm-run-all, run-s, run-p and concurrently: the
// package.json scripts their patterns name (fit, 'fit:*', and
// concurrently's npm:fit) run as npm run would run them, and
// concurrently's other arguments are command lines.
func (a *analyzer) runAll(name string, args []string, exact []bool, text string, sc *scope, depth int) {
	inner := sc.with(sc.dirs)
	inner.stdin = input{}
	inner.via = chain(sc.via, quote(text)+" runs")
	valued := " --max-parallel --npm-path -n --names -c --prefix-colors -p --prefix -s --success --restart-tries --restart-after -t --timestamp-format -l --prefix-length -m --max-processes --default-input-target --names-separator --teardown --hide "
	if name != "concurrently" {
		valued = " --max-parallel --npm-path "
	}
	for i := 1; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			return // the rest are arguments for the scripts
		case strings.HasPrefix(arg, "-"):
			if !strings.Contains(arg, "=") && strings.Contains(valued, " "+arg+" ") {
				i++
			}
			continue
		case !exact[i]:
			a.opaque(arg, "what "+name+" runs", text, sc)
			continue
		}
		pattern := arg
		if name == "concurrently" {
			runner, script, ok := strings.Cut(arg, ":")
			if !ok || runner != "npm" && runner != "yarn" && runner != "pnpm" && runner != "bun" || strings.ContainsAny(runner, " \t") {
				a.source(arg, depth+1, inner)
				continue
			}
			pattern = script
		}
		// A pattern may carry the script's arguments: "fit -- --seed 1".
		f := strings.Fields(pattern)
		if len(f) == 0 {
			continue
		}
		for _, s := range a.matchScripts(f[0], sc.dirs) {
			a.source("npm run "+shellQuote(s)+" "+strings.Join(f[1:], " "), depth+1, inner)
		}
	}
}

// matchScripts is the names of package.json's scripts that an
// npm-run-all pattern matches (* within one :-separated part, ** across
// them), in the nearest package.json of each directory; the pattern
// itself when it has no wildcard.
func (a *analyzer) matchScripts(pattern string, dirs []string) []string {
	if !strings.Contains(pattern, "*") || a.noDisk {
		return []string{pattern}
	}
	var out []string
	seen := map[string]bool{}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		_, data := findUp(d, "package.json")
		var pkg struct {
			Scripts map[string]string `json:"scripts"`
		}
		if data == "" || json.Unmarshal([]byte(data), &pkg) != nil {
			continue
		}
		for n := range pkg.Scripts {
			if scriptMatch(pattern, n) && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// scriptMatch matches a script's name against an npm-run-all pattern.
func scriptMatch(pattern, name string) bool {
	if strings.Contains(pattern, "**") {
		prefix, _, _ := strings.Cut(pattern, "**")
		return strings.HasPrefix(name, prefix)
	}
	m, _ := path.Match(strings.ReplaceAll(pattern, ":", "/"), strings.ReplaceAll(name, ":", "/"))
	return m
}

// A taskCmd is what a task runs: a command line, or a console script's
// entry point (module:function).
type taskCmd struct {
	line, entry string
}

// taskName is the script or task a runner's command line names, and its
// index: npm run NAME, npm test, yarn NAME, pdm run NAME, hatch run
// ENV:NAME, poe NAME.
func taskName(name string, args []string) (string, int) {
	first := func(from int) int {
		for i := from; i < len(args); i++ {
			if !strings.HasPrefix(args[i], "-") {
				return i
			}
		}
		return -1
	}
	i := first(1)
	if i < 0 {
		return "", 0
	}
	switch name {
	case "npm":
		switch args[i] {
		case "run", "run-script", "rum", "urn":
			if j := first(i + 1); j >= 0 {
				return args[j], j
			}
		case "test", "t", "tst":
			return "test", i
		case "start", "stop", "restart":
			return args[i], i
		}
	case "yarn", "pnpm", "bun":
		switch args[i] {
		case "run":
			if j := first(i + 1); j >= 0 {
				return args[j], j
			}
		case "install", "add", "remove", "i", "exec", "dlx", "x", "create", "init", "link", "unlink", "up", "upgrade", "why", "info", "outdated", "audit", "build", "publish", "pack", "config", "cache", "list", "ls", "store", "update", "workspace", "workspaces", "set", "node", "dedupe", "import", "rebuild", "prune", "fetch", "patch":
		default:
			return args[i], i
		}
	case "poe":
		return args[i], i
	case "pdm", "hatch", "pixi", "poetry", "rye", "uv":
		if args[i] != "run" {
			return "", 0
		}
		w, _ := wrapperFor(name, args)
		if j := w.commandAt(args); j >= 0 && j < len(args) {
			return args[j], j
		}
	}
	return "", 0
}

// findUp finds file in dir or the nearest directory above it, as the
// runners look for their project file.
func findUp(dir, file string) (string, string) {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, file)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Size() <= maxScript {
			if b, err := os.ReadFile(p); err == nil {
				return p, string(b)
			}
		}
		if filepath.Dir(d) == d {
			return "", ""
		}
	}
}

// packageScripts is what npm runs for a script: pre<name>, the script,
// post<name>.
func packageScripts(data, task string) []taskCmd {
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal([]byte(data), &pkg) != nil {
		return nil
	}
	var out []taskCmd
	for _, n := range []string{"pre" + task, task, "post" + task} {
		if s := pkg.Scripts[n]; s != "" {
			out = append(out, taskCmd{line: s})
		}
	}
	return out
}

// tomlTasks reads the commands of a task from pyproject.toml or
// pixi.toml, in the tables the runner reads: pdm's, hatch's, pixi's,
// poe's and rye's scripts and tasks, and the console scripts every
// Python runner finds on its PATH. A task's value is a command line, a
// list of them, or a table whose cmd, shell, composite, sequence or
// depends-on name command lines or other tasks, and whose call or script
// names an entry point.
func tomlTasks(data, runner, task string) []taskCmd {
	if hatchEnv, name, ok := strings.Cut(task, ":"); ok && runner == "hatch" && hatchEnv != "" {
		task = name
	}
	tables := tomlTables(data)
	var out []taskCmd
	seen := map[string]bool{}
	var visit func(task string, depth int)
	visit = func(task string, depth int) {
		if seen[task] || depth > 16 {
			return
		}
		seen[task] = true
		for _, t := range tables {
			if !taskTable(t.name, runner) {
				continue
			}
			val, ok := t.entries[task]
			if !ok {
				continue
			}
			if strings.HasSuffix(t.name, "scripts") && (t.name == "project.scripts" || t.name == "tool.poetry.scripts") {
				for _, l := range literals(val, true) {
					out = append(out, taskCmd{entry: l.text})
				}
				continue
			}
			for _, c := range taskValue(val) {
				switch {
				case c.entry != "":
					out = append(out, c)
				case !strings.ContainsAny(c.line, " \t") && c.line != task && hasTask(tables, runner, c.line):
					visit(c.line, depth+1) // another task, by its name
				default:
					out = append(out, c)
				}
			}
		}
	}
	visit(task, 0)
	return out
}

func hasTask(tables []tomlTable, runner, task string) bool {
	for _, t := range tables {
		if _, ok := t.entries[task]; ok && taskTable(t.name, runner) {
			return true
		}
	}
	return false
}

// taskTable reports a table whose entries are tasks for the runner.
func taskTable(name, runner string) bool {
	switch {
	case name == "project.scripts" || name == "tool.poetry.scripts":
		return true
	case strings.HasPrefix(name, "tool.pdm.scripts"):
		return runner == "pdm"
	case strings.HasPrefix(name, "tool.hatch.envs.") && strings.HasSuffix(name, ".scripts"):
		return runner == "hatch"
	case name == "tasks" || strings.HasSuffix(name, ".tasks") && (strings.HasPrefix(name, "tool.pixi.") || strings.HasPrefix(name, "feature.")):
		return runner == "pixi"
	case strings.HasPrefix(name, "tool.poe.tasks"):
		return runner == "poe"
	case strings.HasPrefix(name, "tool.rye.scripts"):
		return runner == "rye"
	}
	return false
}

// taskValue reads a task's value: a string is a command line, a list a
// list of them, and an inline table's cmd, shell, composite, sequence,
// depends-on and chain are, while its call or script is an entry point.
func taskValue(val string) []taskCmd {
	val = strings.TrimSpace(val)
	if !strings.HasPrefix(val, "{") {
		// a command line, or a list of them (hatch)
		var out []taskCmd
		for _, l := range literals(val, true) {
			out = append(out, taskCmd{line: l.text})
		}
		return out
	}
	var out []taskCmd
	for _, m := range taskKeyRe().FindAllStringSubmatchIndex(val, -1) {
		key := val[m[2]:m[3]]
		rest := val[m[1]:]
		var lits []lit
		if strings.HasPrefix(rest, "[") {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				end = len(rest)
			}
			lits = literals(rest[:end], true)
			if key == "cmd" && len(lits) > 1 {
				out = append(out, taskCmd{line: strings.Join(vector(lits), "")})
				continue
			}
		} else if ls := literals(rest, true); len(ls) > 0 {
			lits = ls[:1]
		}
		for _, l := range lits {
			if key == "call" || key == "script" {
				out = append(out, taskCmd{entry: strings.TrimSuffix(strings.TrimSpace(l.text), "()")})
			} else {
				out = append(out, taskCmd{line: l.text})
			}
		}
	}
	return out
}

var taskKeyRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[{,\s])"?(cmd|shell|composite|sequence|depends-on|depends_on|chain|call|script)"?\s*=\s*`)
})

// A tomlTable is a TOML table's name and its entries' raw values.
type tomlTable struct {
	name    string
	entries map[string]string
}

// tomlTables reads the tables of a TOML file as far as tasks need:
// [a.b] headers, key = value lines (a value continues over the lines
// its brackets and triple quotes stay open), and [a.b.NAME] sub-tables,
// whose keys become the inline table of entry NAME of [a.b].
func tomlTables(data string) []tomlTable {
	var out []tomlTable
	cur := -1
	sub := ""
	lines := strings.Split(data, "\n")
	for n := 0; n < len(lines); n++ {
		line := strings.TrimSpace(strings.TrimRight(lines[n], "\r"))
		if line == "" || line[0] == '#' {
			continue
		}
		if strings.HasPrefix(line, "[") && !strings.HasPrefix(line, "[[") {
			name, _, _ := strings.Cut(line[1:], "]")
			name = strings.TrimSpace(name)
			name = strings.ReplaceAll(name, `"`, "")
			sub = ""
			for i, t := range out {
				if strings.HasPrefix(name, t.name+".") && !strings.Contains(name[len(t.name)+1:], ".") && tasky(t.name) {
					cur, sub = i, name[len(t.name)+1:]
					break
				}
			}
			if sub == "" {
				out = append(out, tomlTable{name: name, entries: map[string]string{}})
				cur = len(out) - 1
			}
			continue
		}
		if cur < 0 {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		// the value goes on while its brackets or triple quotes are open
		for openValue(v) && n+1 < len(lines) {
			n++
			v += "\n" + lines[n]
		}
		key := strings.Trim(strings.TrimSpace(k), `"'`)
		if sub != "" {
			out[cur].entries[sub] += "{" + key + " = " + v + "}"
			continue
		}
		out[cur].entries[key] = v
	}
	return out
}

// tasky reports a table whose sub-tables are tasks: [tool.pdm.scripts.fit].
func tasky(name string) bool {
	for _, r := range []string{"pdm", "hatch", "pixi", "poe", "rye"} {
		if taskTable(name, r) {
			return true
		}
	}
	return false
}

// openValue reports a TOML value whose brackets or triple quotes are still
// open at its end.
func openValue(v string) bool {
	if strings.Count(v, `"""`)%2 == 1 || strings.Count(v, `'''`)%2 == 1 {
		return true
	}
	depth := 0
	for _, l := range []byte(stripLiterals(v)) {
		switch l {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		}
	}
	return depth > 0
}

func stripLiterals(v string) string {
	b := []byte(v)
	for _, l := range literals(v, true) {
		for i := l.start; i < l.end && i < len(b); i++ {
			b[i] = ' '
		}
	}
	return string(b)
}

// crontab follows the jobs crontab installs (crontab FILE, crontab - or
// its standard input): each job's command runs later, with nobody asking,
// in the home directory or wherever it moves to; it is judged here as if
// it ran now. Listing and removing (-l, -r) install nothing.
func (a *analyzer) crontab(args []string, exact []bool, text string, sc *scope, depth int) {
	file := ""
	for i := 1; i < len(args); i++ {
		switch {
		case args[i] == "-l" || args[i] == "-r" || args[i] == "-e" || args[i] == "-V":
			return
		case args[i] == "-u" || args[i] == "-c":
			i++
		case args[i] == "-" || !strings.HasPrefix(args[i], "-"):
			if !exact[i] {
				a.opaque(args[i], "the jobs crontab installs", text, sc)
				return
			}
			file = args[i]
		}
	}
	inner := sc.with(sc.dirs)
	if a.home != "" {
		inner.chdir(a.home)
	}
	inner.stdin = input{}
	inner.via = chain(sc.via, quote(text)+" installs cron jobs, which run later")
	var texts []string
	switch {
	case file == "" || file == "-":
		switch sc.stdin.kind {
		case inText:
			texts = append(texts, sc.stdin.text)
		case inFile:
			file = sc.stdin.path
		case inUnknown:
			a.opaque("crontab", "the jobs crontab reads from a pipe", text, sc)
			return
		}
	}
	if file != "" && file != "-" {
		for _, d := range sc.dirs {
			if d == "" && !filepath.IsAbs(file) {
				continue
			}
			p := resolve(file, d)
			if o := a.files[p]; o != nil {
				texts = append(texts, o.text...)
				for _, f := range o.from {
					if t, st := a.readScript(f); st == fileText {
						texts = append(texts, t)
					}
				}
				if o.unknown {
					a.opaque(file, "the jobs crontab installs (the command line writes them from a program's output)", text, sc)
				}
				continue
			}
			if t, st := a.readScript(p); st == fileText {
				texts = append(texts, t)
			}
		}
	}
	for _, t := range texts {
		a.source(cronJobs(t), depth+1, inner)
	}
}

// cronJobs is the commands of a crontab's jobs, one a line: each line
// without its schedule (five fields, or @reboot and the like) and
// without what follows an unescaped %, which cron passes as input.
// Comments and environment settings stay as they are.
func cronJobs(text string) string {
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if k, _, ok := strings.Cut(line, "="); ok && !strings.ContainsAny(strings.TrimSpace(k), " \t") {
			b.WriteString(line + "\n")
			continue
		}
		f := strings.Fields(line)
		skip := 5
		if strings.HasPrefix(f[0], "@") {
			skip = 1
		}
		if len(f) <= skip {
			continue
		}
		cmd := line
		for i := 0; i < skip; i++ {
			cmd = strings.TrimLeft(cmd, " \t")
			cmd = cmd[strings.IndexAny(cmd+" ", " \t"):]
		}
		for i := 0; i < len(cmd); i++ {
			if cmd[i] == '%' && (i == 0 || cmd[i-1] != '\\') {
				cmd = cmd[:i]
				break
			}
		}
		b.WriteString(strings.TrimSpace(cmd) + "\n")
	}
	return b.String()
}
