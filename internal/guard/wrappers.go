package guard

import "strings"

// run peels assignments, wrappers and shells off one simple command and
// records what is left.
func (a *analyzer) run(env map[string]string, args []string, exact []bool, text string, sc *scope, depth int) {
	open := false
	dirs := sc.dirs
	for len(args) > 0 {
		if exact[0] {
			if k, v, ok := assignment(args[0]); ok {
				env[k] = v
				args, exact = args[1:], exact[1:]
				continue
			}
		}
		name := programName(args[0], exact[0])
		if name == "" {
			break // judge refuses a program it cannot name
		}
		if isShell(name) {
			a.shell(env, args, exact, text, sc.with(dirs), depth)
			return
		}
		next, ok := a.unwrap(name, args, exact, text, sc.with(dirs), depth)
		if !ok {
			break
		}
		if next.done {
			return
		}
		args, exact = next.args, next.exact
		open = open || next.open
		if next.dir != "" {
			dirs = append(append([]string(nil), dirs...), next.dir)
		}
		if next.marks != nil {
			sc = sc.with(dirs)
			sc.marks = append(append([]string(nil), sc.marks...), next.marks...)
			args, exact = remark(args, exact, sc.marks)
		}
	}
	if len(args) > 0 {
		a.add(call{env: env, argv: args, exact: exact, text: text, dirs: dirs, stdin: sc.stdin, open: open}, sc, depth)
	}
}

// with is the scope with other working directories.
func (s *scope) with(dirs []string) *scope {
	c := *s
	c.dirs = dirs
	return &c
}

// remark marks the words that hold a placeholder as inexact.
func remark(args []string, exact []bool, marks []string) ([]string, []bool) {
	ex := append([]bool(nil), exact...)
	for i, a := range args {
		if marked(a, marks) {
			ex[i] = false
		}
	}
	return args, ex
}

// opaque records a command the guard cannot see through: what runs is in
// word, which it cannot resolve or read.
func (a *analyzer) opaque(word, why, text string, sc *scope) {
	a.cmds = append(a.cmds, call{argv: []string{word}, exact: []bool{false}, text: text, dirs: sc.dirs, stdin: input{kind: inUnknown}, opaqueWhy: why, via: sc.via, fromDisk: sc.fromDisk})
}

// programName is the name of the program a command word runs: its base
// name, also for a word whose directory is an expansion
// ("${CLAUDE_PLUGIN_ROOT}/scripts/rlxp"); "" when the name itself is not
// known.
func programName(word string, exact bool) string {
	base := word
	if i := strings.LastIndexByte(word, '/'); i >= 0 {
		base = word[i+1:]
	}
	if exact {
		return base
	}
	if base == "" || strings.ContainsAny(base, "$`*?[{}()<>\\'\"") || !strings.Contains(word, "/") {
		return ""
	}
	return base
}

// isShell reports the shells whose -c string, script or standard input
// the guard follows.
func isShell(name string) bool {
	switch name {
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "yash", "fish", "tcsh", "csh", "busybox", "source", ".":
		return true
	}
	return false
}

// shell follows a shell invocation: the string of -c, else the script and
// its arguments, else the commands it reads on standard input.
func (a *analyzer) shell(env map[string]string, args []string, exact []bool, text string, sc *scope, depth int) {
	name := programName(args[0], exact[0])
	if name == "busybox" {
		if len(args) < 2 || !isShell(args[1]) {
			a.add(call{env: env, argv: args[1:], exact: exact[1:], text: text, dirs: sc.dirs, stdin: sc.stdin}, sc, depth)
			return
		}
		args, exact = args[1:], exact[1:]
		name = args[0]
	}
	i, command, fromStdin := 1, false, false
	// source and . take no options: the script comes first.
	if name != "source" && name != "." {
	opts:
		for i < len(args) {
			w := args[i]
			switch {
			case !exact[i]:
				a.opaque(w, "a shell option or script", text, sc)
				return
			case w == "--" || w == "-":
				i++
				break opts
			case !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "+"):
				break opts
			case w == "-o" || w == "+o" || w == "-O" || w == "+O" || w == "--rcfile" || w == "--init-file":
				i += 2
				continue
			case w == "--command":
				command = true
			case w == "-n" || w == "--noexec" || w == "--no-execute" || strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.ContainsRune(w[1:], 'n'):
				return // reads the script without running it
			case !strings.HasPrefix(w, "--"):
				command = command || strings.ContainsRune(w[1:], 'c')
				fromStdin = fromStdin || strings.ContainsRune(w[1:], 's')
			}
			i++
		}
	}
	switch {
	case command:
		// Words after the -c string become $0, $1, ...: not commands.
		if i < len(args) {
			if !exact[i] {
				a.opaque(args[i], "the command string of "+name+" -c", text, sc)
				return
			}
			a.source(args[i], depth+1, sc)
		}
	case i < len(args) && !fromStdin:
		script := args[i]
		if exact[i] && !strings.Contains(script, "/") {
			script = "./" + script // a script path, not a command looked up on PATH
		}
		a.add(call{env: env, argv: append([]string{script}, args[i+1:]...), exact: exact[i:], text: text, dirs: sc.dirs, script: true}, sc, depth)
	default:
		a.stdinSource(name, env, text, sc, depth)
	}
}

// stdinSource follows a program that reads commands on its standard
// input: a shell, at, su, script.
func (a *analyzer) stdinSource(name string, env map[string]string, text string, sc *scope, depth int) {
	switch sc.stdin.kind {
	case inText:
		inner := *sc
		inner.stdin = input{}
		a.source(sc.stdin.text, depth+1, &inner)
	case inFile:
		a.add(call{env: env, argv: []string{sc.stdin.path}, exact: []bool{true}, text: text, dirs: sc.dirs, script: true}, sc, depth)
	case inUnknown:
		a.opaque(name, "commands "+name+" reads from a pipe", text, sc)
	}
}

// git follows the commands git runs for its caller: a shell alias given
// with -c (alias.x=!cmd) and git bisect run's command. Other git commands
// are not wrappers.
func (a *analyzer) git(args []string, exact []bool, text string, sc *scope, depth int) (step, bool) {
	i := 1
	hooksPath := ""
	dirs := sc
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		switch args[i] {
		case "-c":
			if i+1 < len(args) {
				key, val, _ := strings.Cut(args[i+1], "=")
				if strings.EqualFold(key, "core.hooksPath") {
					hooksPath = val
				}
				if strings.HasPrefix(strings.ToLower(key), "alias.") {
					if !exact[i+1] {
						a.opaque(args[i+1], "the text of a git alias", text, sc)
					} else if cmd, ok := strings.CutPrefix(val, "!"); ok {
						a.source(cmd, depth+1, sc)
					}
				}
			}
			i++
		case "-C":
			if i+1 < len(args) && exact[i+1] {
				dirs = sc.clone()
				for k, d := range dirs.dirs {
					if d != "" {
						dirs.dirs[k] = resolve(args[i+1], d)
					}
				}
			}
			i++
		case "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env":
			i++
		}
		i++
	}
	if i+2 < len(args) && args[i] == "bisect" && args[i+1] == "run" {
		return step{args: args[i+2:], exact: exact[i+2:]}, true
	}
	if i < len(args) && exact[i] {
		a.followHooks(args[i], args[i+1:], hooksPath, text, dirs, depth)
	}
	return step{}, false
}

// bwrapCommand returns where the command of a bubblewrap invocation
// starts: after its options, some of which take two or three values.
func bwrapCommand(args []string) int {
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "--") {
		switch args[i] {
		case "--":
			return i + 1
		case "--unshare-all", "--share-net", "--unshare-user", "--unshare-user-try", "--unshare-ipc", "--unshare-pid", "--unshare-net",
			"--unshare-uts", "--unshare-cgroup", "--unshare-cgroup-try", "--clearenv", "--new-session", "--die-with-parent", "--as-pid-1",
			"--disable-userns", "--assert-userns-disabled", "--level-prefix", "--help", "--version":
			i++
		case "--bind", "--ro-bind", "--dev-bind", "--bind-try", "--ro-bind-try", "--dev-bind-try", "--symlink", "--setenv",
			"--file", "--bind-data", "--ro-bind-data", "--chmod", "--bind-fd", "--ro-bind-fd":
			i += 3
		case "--overlay": // RWSRC WORKDIR DEST
			i += 4
		default: // every other option takes one value
			i += 2
		}
	}
	return i
}

// A step is what unwrapping one wrapper leaves.
type step struct {
	args  []string
	exact []bool
	done  bool     // nothing more runs here (or it was followed already)
	open  bool     // more arguments come from input
	dir   string   // the wrapped command runs in this directory
	marks []string // placeholders in the wrapped command's words
}

// unwrap peels one wrapper off args; ok is false when name wraps nothing.
func (a *analyzer) unwrap(name string, args []string, exact []bool, text string, sc *scope, depth int) (step, bool) {
	at := func(i int) step {
		if i < 0 || i >= len(args) {
			return step{done: true}
		}
		return step{args: args[i:], exact: exact[i:]}
	}
	shellString := func(i int, what string) (step, bool) {
		switch {
		case i < 0 || i >= len(args):
		case !exact[i]:
			a.opaque(args[i], what, text, sc)
		default:
			a.source(args[i], depth+1, sc)
		}
		return step{done: true}, true
	}
	switch name {
	case "alias":
		// An alias's text runs where its name is used later on.
		for i := 1; i < len(args); i++ {
			if _, src, ok := strings.Cut(args[i], "="); ok {
				if !exact[i] {
					a.opaque(args[i], "the text of an alias", text, sc)
					continue
				}
				a.source(src, depth+1, sc)
			}
		}
		return step{done: true}, true
	case "git":
		return a.git(args, exact, text, sc, depth)
	case "make", "gmake":
		a.make(args, exact, text, sc, depth)
		return step{}, false // the goals' names are judged too (make train)
	case "just":
		a.just(args, exact, text, sc, depth)
		return step{}, false
	case "tox", "nox", "invoke", "inv", "doit", "snakemake":
		a.tasks(name, args, exact, text, sc, depth)
		return step{}, false // the tasks' names are judged too (tox -e train)
	case "bwrap":
		return at(bwrapCommand(args)), true
	case "tmux":
		if src, ok := tmuxCommand(args); ok {
			a.source(src, depth+1, sc)
		}
		return step{done: true}, true
	case "screen":
		return at(screenCommand(args)), true
	case "env":
		return a.env(args, exact, text, sc)
	case "xargs":
		w := wrapper{valued: " -a -d -E -e -I -i -L -l -n -P -s --arg-file --delimiter --eof --replace --max-lines --max-args --max-procs --max-chars --process-slot-var "}
		i := w.commandAt(args)
		var marks []string
		for j := 1; j < len(args) && j < i; j++ {
			switch {
			case args[j] == "-I" && j+1 < len(args):
				marks = append(marks, args[j+1])
			case strings.HasPrefix(args[j], "--replace="), strings.HasPrefix(args[j], "-i"):
				if r := strings.TrimPrefix(strings.TrimPrefix(args[j], "--replace="), "-i"); r != "" {
					marks = append(marks, r)
				} else {
					marks = append(marks, "{}")
				}
			}
		}
		s := at(i)
		if s.done {
			return step{args: []string{"echo"}, exact: []bool{true}, open: true}, true
		}
		s.open, s.marks = true, marks
		return s, true
	case "find":
		for i := 1; i < len(args); i++ {
			switch args[i] {
			case "-exec", "-execdir", "-ok", "-okdir":
				j := i + 1
				for j < len(args) && args[j] != ";" && args[j] != "+" {
					j++
				}
				if j > i+1 {
					inner := sc.with(sc.dirs)
					inner.marks = append(append([]string(nil), sc.marks...), "{}")
					sub, ex := remark(args[i+1:j], exact[i+1:j], inner.marks)
					a.run(map[string]string{}, sub, ex, text, inner, depth)
				}
				i = j
			}
		}
		return step{}, false
	case "parallel":
		w := wrapper{valued: " -j --jobs -P --max-procs -N -n --max-args -S --sshlogin --joblog --results --res --tmpdir -I --delay --timeout --retries --halt -a --arg-file --colsep -d --delimiter --env --workdir --wd --basefile --return --memfree --load --sshloginfile --slf --tag-string --tagstring -E --eof "}
		i := w.commandAt(args)
		end := i
		for end < len(args) && !strings.HasPrefix(args[end], ":::") {
			end++
		}
		if i >= end {
			a.opaque("parallel", "commands parallel reads from its input", text, sc)
			return step{done: true}, true
		}
		inner := sc.with(sc.dirs)
		inner.marks = append(append([]string(nil), sc.marks...), "{")
		for _, e := range exact[i:end] {
			if !e {
				a.opaque(strings.Join(args[i:end], " "), "the command of parallel", text, sc)
				return step{done: true}, true
			}
		}
		a.source(strings.Join(args[i:end], " "), depth+1, inner)
		return step{done: true}, true
	case "script":
		w := wrapper{valued: " -c --command -E --echo -T --log-timing -I --log-in -O --log-out -B --log-io -m --logging-format -o --output-limit "}
		for i := 1; i < len(args); i++ {
			arg := args[i]
			switch {
			case arg == "--":
				i = len(args)
			case arg == "-c" || arg == "--command" || strings.HasPrefix(arg, "-") && !strings.HasPrefix(arg, "--") && strings.HasSuffix(arg, "c"):
				return shellString(i+1, "the command of script -c")
			case strings.HasPrefix(arg, "--command="):
				a.source(strings.TrimPrefix(arg, "--command="), depth+1, sc)
				return step{done: true}, true
			case w.takesValue(arg):
				i++
			}
		}
		a.stdinSource("script", nil, text, sc, depth)
		return step{done: true}, true
	case "su", "runuser":
		for i := 1; i < len(args); i++ {
			arg := args[i]
			switch {
			case arg == "-c" || arg == "--command" || arg == "--session-command":
				return shellString(i+1, "the command of "+name+" -c")
			case strings.HasPrefix(arg, "--command=") || strings.HasPrefix(arg, "--session-command="):
				_, v, _ := strings.Cut(arg, "=")
				a.source(v, depth+1, sc)
				return step{done: true}, true
			case arg == "-s" || arg == "--shell" || arg == "-g" || arg == "--group" || arg == "-G" || arg == "--supp-group" || arg == "-w" || arg == "--whitelist-environment":
				i++
			}
		}
		if w, _ := wrapperFor(name, args); name == "runuser" && w.commandAt(args) < len(args) && runuserCommand(args, w.commandAt(args)) {
			return at(w.commandAt(args)), true // runuser -u USER COMMAND
		}
		a.stdinSource(name, nil, text, sc, depth)
		return step{done: true}, true
	case "flock":
		w := wrapper{valued: " -w --wait --timeout -E --conflict-exit-code "}
		i := w.commandAt(args) + 1 // the lock file or descriptor
		if i < len(args) && (args[i] == "-c" || args[i] == "--command") {
			return shellString(i+1, "the command of flock -c")
		}
		return at(i), true
	case "npx", "pnpx", "bunx", "npm", "pnpm", "yarn", "bun":
		// npx CMD, npm exec -- CMD, pnpm exec|dlx CMD, yarn exec|dlx CMD,
		// bun x CMD run a package's program; -c runs a shell string.
		i := 1
		if name != "npx" && name != "pnpx" && name != "bunx" {
			if len(args) < 2 || args[1] != "exec" && args[1] != "dlx" && args[1] != "x" {
				a.projectTasks(name, args, exact, text, sc, depth)
				return step{}, false
			}
			i = 2
		}
		for ; i < len(args); i++ {
			switch {
			case args[i] == "-c" || args[i] == "--call":
				return shellString(i+1, "the command "+name+" -c runs")
			case args[i] == "-p" || args[i] == "--package":
				i++
			case args[i] == "--":
				return at(i + 1), true
			case !strings.HasPrefix(args[i], "-"):
				return at(i), true
			}
		}
		return step{done: true}, true
	case "npm-run-all", "npm-run-all2", "run-s", "run-p", "concurrently":
		a.runAll(name, args, exact, text, sc, depth)
		return step{done: true}, true
	case "crontab":
		a.crontab(args, exact, text, sc, depth)
		return step{done: true}, true
	case "at", "batch":
		for i := 1; i < len(args); i++ {
			switch args[i] {
			case "-l", "-d", "-r", "-c", "--list", "--remove":
				return step{done: true}, true
			case "-f":
				if i+1 < len(args) {
					a.add(call{argv: args[i+1 : i+2], exact: exact[i+1 : i+2], text: text, dirs: sc.dirs, script: true}, sc, depth)
				}
				return step{done: true}, true
			case "-q", "-t":
				i++
			}
		}
		a.stdinSource(name, nil, text, sc, depth)
		return step{done: true}, true
	case "gdb", "cuda-gdb", "lldb":
		for i := 1; i < len(args); i++ {
			if args[i] == "--args" || args[i] == "--" {
				return at(i + 1), true
			}
		}
		w := wrapper{valued: " -ex -x -iex -ix -p -c -cd -d -s -e -se -b -o -O -S -one-line -source --core --pid --command --directory --init-command --eval-command "}
		i := w.commandAt(args)
		if i < len(args) {
			return step{args: args[i : i+1], exact: exact[i : i+1]}, true
		}
		return step{done: true}, true
	case "docker", "podman", "nerdctl":
		return a.container(args, exact, text, sc)
	case "apptainer", "singularity":
		sub := 1
		for sub < len(args) && strings.HasPrefix(args[sub], "-") {
			sub++
		}
		if sub >= len(args) {
			return step{done: true}, true
		}
		switch args[sub] {
		case "exec":
			w := wrapper{valued: " -B --bind --env --env-file -H --home -W --workdir --pwd --overlay --app --security --network --network-args --hostname --mount --fusemount -S --scratch --apply-cgroups --cpus --memory --nv-ccli --drop-caps --add-caps "}
			rest := append([]string{"exec"}, args[sub+1:]...)
			i := w.commandAt(rest) + 1 // the image
			return at(sub + i), true
		case "run", "shell", "instance":
			a.opaque(name+" "+args[sub], "the image's run script or shell", text, sc)
			return step{done: true}, true
		}
		return step{}, false
	case "sudo", "doas":
		w, _ := wrapperFor(name, args)
		i := w.commandAt(args)
		for j := 1; j < len(args) && j < i; j++ {
			if args[j] == "-s" || args[j] == "-i" || args[j] == "--shell" || args[j] == "--login" {
				if i >= len(args) {
					a.stdinSource(name, nil, text, sc, depth)
					return step{done: true}, true
				}
				for _, e := range exact[i:] {
					if !e {
						a.opaque(strings.Join(args[i:], " "), "the command of "+name+" -s", text, sc)
						return step{done: true}, true
					}
				}
				a.source(strings.Join(args[i:], " "), depth+1, sc)
				return step{done: true}, true
			}
		}
		return at(i), true
	}
	a.projectTasks(name, args, exact, text, sc, depth)
	w, ok := wrapperFor(name, args)
	if !ok {
		return step{}, false
	}
	i := w.commandAt(args)
	if i < 0 || i >= len(args) {
		return step{done: true}, true // nothing runs: command -v, ssh without a command, ...
	}
	if w.shell {
		for _, e := range exact[i:] {
			if !e {
				a.opaque(strings.Join(args[i:], " "), "the command "+name+" runs", text, sc)
				return step{done: true}, true
			}
		}
		a.source(strings.Join(args[i:], " "), depth+1, sc)
		return step{done: true}, true
	}
	if name == "uv" || name == "uvx" {
		// uv run -m MODULE runs python -m MODULE.
		for j := 1; j < i && j < len(args); j++ {
			if args[j] == "-m" || args[j] == "--module" {
				return step{args: append([]string{"python", "-m"}, args[i:]...), exact: append([]bool{true, true}, exact[i:]...)}, true
			}
		}
	}
	return at(i), true
}

// env peels env off a command: its assignments, -S's split string and
// -C's directory.
func (a *analyzer) env(args []string, exact []bool, text string, sc *scope) (step, bool) {
	s := step{}
	i := 1
	for i < len(args) {
		arg := args[i]
		switch {
		case arg == "--":
			i++
			return a.envRest(s, args[i:], exact[i:]), true
		case arg == "-S" || arg == "--split-string" || strings.HasPrefix(arg, "--split-string=") || strings.HasPrefix(arg, "-S") && len(arg) > 2:
			v, j := "", i+1
			switch {
			case strings.HasPrefix(arg, "--split-string="):
				v, j = strings.TrimPrefix(arg, "--split-string="), i+1
			case arg != "-S" && arg != "--split-string":
				v, j = arg[2:], i+1
			case i+1 < len(args):
				v, j = args[i+1], i+2
				if !exact[i+1] {
					a.opaque(v, "env -S's command", text, sc)
					return step{done: true}, true
				}
			}
			words := splitWords(v)
			ex := make([]bool, len(words))
			for k := range ex {
				ex[k] = true
			}
			return a.envRest(s, append(words, args[j:]...), append(ex, exact[j:]...)), true
		case arg == "-C" || arg == "--chdir":
			if i+1 < len(args) {
				s.dir = args[i+1]
				if !exact[i+1] {
					s.dir = ""
				}
			}
			i += 2
		case strings.HasPrefix(arg, "--chdir="):
			s.dir = strings.TrimPrefix(arg, "--chdir=")
			i++
		case arg == "-u" || arg == "--unset":
			i += 2
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			i++
		default:
			return a.envRest(s, args[i:], exact[i:]), true
		}
	}
	return step{done: true}, true
}

func (a *analyzer) envRest(s step, args []string, exact []bool) step {
	if len(args) == 0 {
		return step{done: true}
	}
	s.args, s.exact = args, exact
	return s
}

// splitWords splits env -S's string as env does: on blanks, with quotes.
func splitWords(s string) []string {
	var out []string
	var b strings.Builder
	in, q := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0 && c == q:
			q = 0
		case q != 0:
			b.WriteByte(c)
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			in = true
		case c == '\'' || c == '"':
			q, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}

// container follows docker, podman and nerdctl: the command of run, exec
// and compose run/exec. An image's own command, which the guard cannot
// see, is opaque.
func (a *analyzer) container(args []string, exact []bool, text string, sc *scope) (step, bool) {
	sub := 1
	for sub < len(args) && strings.HasPrefix(args[sub], "-") {
		switch args[sub] {
		case "-H", "--host", "-c", "--context", "--config", "-l", "--log-level":
			sub++
		}
		sub++
	}
	if sub < len(args) && args[sub] == "container" {
		sub++
	}
	compose := false
	if sub < len(args) && args[sub] == "compose" {
		compose = true
		sub++
		for sub < len(args) && strings.HasPrefix(args[sub], "-") {
			switch args[sub] {
			case "-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory":
				sub++
			}
			sub++
		}
	}
	if sub >= len(args) {
		return step{done: true}, true
	}
	verb := args[sub]
	if verb != "run" && verb != "exec" && verb != "create" {
		return step{done: true}, true
	}
	valued := " -a --attach -c --cpu-shares --cidfile --cpus --cpuset-cpus --cpuset-mems -d --detach-keys --device --dns --dns-option --dns-search -e --env --env-file --entrypoint --expose --gpus --group-add -h --hostname --health-cmd --health-interval --health-retries --health-timeout --health-start-period --ip --ip6 --ipc --isolation -l --label --label-file --link --log-driver --log-opt --mac-address -m --memory --memory-reservation --memory-swap --mount --name --network --net --network-alias --pid --platform -p --publish --pull --restart --runtime --security-opt --shm-size --stop-signal --stop-timeout --storage-opt --sysctl --tmpfs --ulimit -u --user --userns --uts -v --volume --volume-driver --volumes-from -w --workdir --cgroupns --cgroup-parent --blkio-weight --device-cgroup-rule --kernel-memory --oom-score-adj --pids-limit --annotation --chroot --hooks-dir --arch --os --variant --pod --secret --cap-add --cap-drop --add-host --init-path --cpu-period --cpu-quota --cpu-rt-period --cpu-rt-runtime --cpu-shm-size --device-read-bps --device-write-bps --domainname --index "
	if compose {
		valued += " --service-ports --use-aliases -T "
	}
	w := wrapper{valued: valued}
	rest := args[sub:]
	i := w.commandAt(rest)
	entry := ""
	for j := 1; j < i && j < len(rest); j++ {
		if rest[j] == "--entrypoint" && j+1 < len(rest) {
			entry = rest[j+1]
		} else if strings.HasPrefix(rest[j], "--entrypoint=") {
			entry = strings.TrimPrefix(rest[j], "--entrypoint=")
		}
	}
	i++ // the image, container or service
	if i >= len(rest) && entry == "" {
		if verb == "exec" {
			return step{done: true}, true
		}
		a.opaque(strings.Join(args[:min(sub+1, len(args))], " "), "the image's own command", text, sc)
		return step{done: true}, true
	}
	out, ex := rest[min(i, len(rest)):], exact[sub+min(i, len(rest)):]
	if entry != "" {
		out = append(splitWords(entry), out...)
		ex = append(make([]bool, len(splitWords(entry))), ex...)
		for k := range splitWords(entry) {
			ex[k] = true
		}
	}
	if len(out) == 0 {
		return step{done: true}, true
	}
	return step{args: out, exact: ex}, true
}

// runuserCommand reports runuser -u USER COMMAND: without -u, the word
// after the options is a user whose shell reads standard input.
func runuserCommand(args []string, command int) bool {
	for _, a := range args[1:command] {
		if a == "-u" || a == "--user" || strings.HasPrefix(a, "--user=") {
			return true
		}
	}
	return false
}

// A wrapper is a program that runs a command given on its own command
// line: nohup torchrun ..., uv run python ..., ssh host 'cmd'.
type wrapper struct {
	sub    string // subcommand that must follow the program: uv run, conda run
	valued string // options that take the next word as their value, each between spaces
	stop   string // options after which no command runs (command -v), likewise
	skip   int    // words between the options and the command: timeout's duration, ssh's host
	shell  bool   // the command is a shell string (eval, ssh, watch), not separate words
}

// wrapperFor returns how the named program wraps a command.
func wrapperFor(name string, args []string) (wrapper, bool) {
	var w wrapper
	switch name {
	case "nohup", "setsid", "builtin", "poetry", "pipenv", "pdm", "hatch", "rye", "unbuffer":
		w = wrapper{}
	case "runuser":
		// runuser -u USER [--] COMMAND; its -c form is read with su's.
		w = wrapper{valued: " -u --user -g --group -G --supp-group -w --whitelist-environment "}
	case "xvfb-run":
		w = wrapper{valued: " -e -f -n -p -s --error-file --auth-file --server-num --xauth-protocol --server-args "}
	case "caffeinate":
		w = wrapper{valued: " -t -w "}
	case "uvx":
		w = wrapper{valued: " --from --with --with-editable --with-requirements -p --python --directory --index --default-index --index-url -i --extra-index-url --find-links -f --config-file --cache-dir --color --python-preference --exclude-newer "}
	case "nsys", "ncu", "perf":
		// Profilers that run the command after their options:
		// nsys profile, ncu, perf record|stat|trace.
		w = wrapper{valued: " -o --output -t --trace -s --sample -b --backtrace -c --capture-range -e --event -F --freq -C --cpu -G --cgroup -r --repeat -k --kernel-name --kernel-id --set --section --metrics --target-processes -d --delay --duration --export --stats --gpu-metrics-devices --cuda-memory-usage --launch-skip --launch-count -x "}
		switch {
		case name == "nsys" && (len(args) < 2 || args[1] != "profile"):
			return wrapper{}, false
		case name == "perf" && (len(args) < 2 || args[1] != "record" && args[1] != "stat" && args[1] != "trace"):
			return wrapper{}, false
		case name != "ncu":
			w.sub = args[1]
		}
	case "env":
		w = wrapper{valued: " -u --unset -C --chdir -S --split-string "}
	case "exec":
		w = wrapper{valued: " -a "}
	case "command":
		w = wrapper{stop: " -v -V "}
	case "time":
		w = wrapper{valued: " -f -o --format --output "}
	case "timeout":
		w = wrapper{valued: " -s -k --signal --kill-after ", skip: 1}
	case "nice":
		w = wrapper{valued: " -n --adjustment "}
	case "ionice":
		w = wrapper{valued: " -c -n --class --classdata ", stop: " -p -P -u --pid --pgid --uid "}
	case "stdbuf":
		w = wrapper{valued: " -i -o -e --input --output --error "}
	case "taskset":
		w = wrapper{stop: " -p --pid ", skip: 1}
	case "numactl":
		w = wrapper{valued: " -N -m -C -i -p --cpunodebind --membind --physcpubind --interleave --preferred "}
	case "sudo":
		w = wrapper{valued: " -u -g -C -D -h -p -r -t -T -U --user --group --close-from --chdir --host --prompt --role --type --command-timeout --other-user ",
			stop: " -l -v -k -K -e --list --validate --edit "}
	case "doas":
		w = wrapper{valued: " -u -C "}
	case "chrt":
		w = wrapper{valued: " -T -P -D --sched-runtime --sched-period --sched-deadline ", stop: " -p --pid -m --max ", skip: 1}
	case "systemd-run":
		w = wrapper{valued: " -u --unit -p --property --description --slice -E --setenv --uid --gid --working-directory -M --machine -H --host --on-active --on-boot --on-startup --on-unit-active --on-unit-inactive --on-calendar --on-timezone-change --on-clock-change --timer-property --path-property --socket-property --service-type --nice --expand-environment "}
	case "strace", "ltrace":
		w = wrapper{valued: " -e -o -s -u -E -a -b -I -O -P -S -X -U --trace --signal --output --string-limit --user --env --status --decode-fds --quiet --absolute-timestamps --seccomp-bpf ", stop: " -p --attach "}
	case "valgrind", "catchsegv", "faketime", "prlimit", "unshare", "nsenter", "firejail", "cgexec", "chroot":
		w = wrapper{valued: " -g -t -n -m -u -p -i -U -C -S -G -r -w --target --mount --uts --ipc --net --pid --user --cgroup --setuid --setgid --root --wd "}
		if name == "faketime" || name == "chroot" {
			w.skip = 1
		}
	case "uv":
		w = wrapper{valued: " --with --with-editable --with-requirements -p --python --project --directory --env-file --extra --group --only-group --no-group --package --index --default-index --index-url -i --extra-index-url --find-links -f --config-file --cache-dir --color --python-preference --exclude-newer "}
	case "conda", "mamba", "micromamba":
		w = wrapper{valued: " -n --name -p --prefix --cwd "}
	case "pixi":
		w = wrapper{valued: " -e --environment --manifest-path "}
	case "py-spy":
		if len(args) < 2 || args[1] != "record" && args[1] != "top" {
			return wrapper{}, false
		}
		w = wrapper{sub: args[1], valued: " -o --output -r --rate -d --duration -f --format ", stop: " -p --pid "}
	case "eval":
		w = wrapper{shell: true}
	case "watch":
		w = wrapper{valued: " -n --interval -q --equexit ", shell: true}
	case "ssh":
		w = wrapper{valued: " -B -b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w ", skip: 1, shell: true}
	default:
		return wrapper{}, false
	}
	switch name {
	case "uv", "poetry", "pipenv", "pdm", "conda", "mamba", "micromamba", "pixi", "hatch", "rye":
		// Only their run subcommand wraps a command: uv pip install is not
		// one; uv tool run is uvx.
		switch {
		case len(args) >= 2 && args[1] == "run":
			w.sub = "run"
		case name == "uv" && len(args) >= 3 && args[1] == "tool" && args[2] == "run":
			w.sub = "tool run"
			w.valued += " --from "
		default:
			return wrapper{}, false
		}
	}
	return w, true
}

// commandAt returns the index in args of the wrapped command's first word,
// or -1 when an option says that no command runs.
func (w wrapper) commandAt(args []string) int {
	i := 1 + len(strings.Fields(w.sub))
	for i < len(args) {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		if strings.Contains(w.stop, " "+a+" ") {
			return -1
		}
		switch {
		case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
			i++
		case w.takesValue(a):
			i += 2
		default:
			i++
		}
	}
	return i + w.skip
}

// takesValue reports an option followed by its value, also as the last
// letter of a cluster of short options (screen -dmS NAME).
func (w wrapper) takesValue(opt string) bool {
	if !strings.HasPrefix(opt, "-") {
		return false
	}
	if strings.Contains(w.valued, " "+opt+" ") {
		return true
	}
	return !strings.HasPrefix(opt, "--") && len(opt) > 2 && strings.Contains(w.valued, " -"+opt[len(opt)-1:]+" ")
}

// tmuxCommand returns the shell command a tmux invocation starts: the
// command of a new session, window or pane, or the keys sent to one.
func tmuxCommand(args []string) (string, bool) {
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		switch args[i] {
		case "-c": // tmux -c runs a shell command, as sh -c does
			if i+1 < len(args) {
				return args[i+1], true
			}
			return "", false
		case "-L", "-S", "-f", "-T":
			i++
		}
		i++
	}
	if i >= len(args) {
		return "", false
	}
	sub, rest := args[i], append([]string{"tmux"}, args[i+1:]...)
	switch sub {
	case "new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawnp", "respawn-window", "respawnw":
		j := wrapper{valued: " -c -e -f -F -l -n -p -s -t -x -y "}.commandAt(rest)
		if j < 0 || j >= len(rest) {
			return "", false
		}
		return strings.Join(rest[j:], " "), true
	case "send-keys", "send":
		j := wrapper{valued: " -c -N -t "}.commandAt(rest)
		if j < 0 || j >= len(rest) {
			return "", false
		}
		var keys []string
		for _, k := range rest[j:] {
			switch k {
			case "Enter", "C-m", "C-M", "C-j", "KPEnter", "Escape", "C-c", "C-d", "Tab":
			default:
				keys = append(keys, k)
			}
		}
		return strings.Join(keys, " "), len(keys) > 0
	}
	return "", false
}

// screenCommand returns where the command of a screen invocation starts,
// or -1 when it runs none (reattaching, listing, -X to a session).
func screenCommand(args []string) int {
	return wrapper{valued: " -S -c -e -h -p -s -T -t -Logfile ", stop: " -X -r -R -x -ls -list -wipe "}.commandAt(args)
}
