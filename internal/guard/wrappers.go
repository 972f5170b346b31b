package guard

import "strings"

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
	case "nohup", "setsid", "builtin", "poetry", "pipenv", "pdm":
		w = wrapper{}
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
	case "xargs":
		w = wrapper{valued: " -a -d -E -I -L -n -P -s --arg-file --delimiter --eof --replace --max-lines --max-args --max-procs --max-chars --process-slot-var "}
	case "uv":
		w = wrapper{valued: " --with --with-editable --with-requirements -p --python --project --directory --env-file --extra --group --only-group --no-group --package --index --default-index --index-url -i --extra-index-url --find-links -f --config-file --cache-dir --color --python-preference --exclude-newer "}
	case "conda", "mamba", "micromamba":
		w = wrapper{valued: " -n --name -p --prefix --cwd "}
	case "pixi":
		w = wrapper{valued: " -e --environment --manifest-path "}
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
	case "uv", "poetry", "pipenv", "pdm", "conda", "mamba", "micromamba", "pixi":
		// Only their run subcommand wraps a command: uv pip install is not one.
		if len(args) < 2 || args[1] != "run" {
			return wrapper{}, false
		}
		w.sub = "run"
	}
	return w, true
}

// commandAt returns the index in args of the wrapped command's first word,
// or -1 when an option says that no command runs.
func (w wrapper) commandAt(args []string) int {
	i := 1
	if w.sub != "" {
		i = 2
	}
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
