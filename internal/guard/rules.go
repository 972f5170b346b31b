package guard

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// launchAdvice is what every refused launch tells the agent to do instead.
const launchAdvice = "training runs go through 'rlxp launch <experiment>', which checks the contract, the experiment, the budget and the repository's preflight first; run 'rlxp check <experiment>' to see what is missing"

// rlxpArgs returns the arguments of an rlxp invocation: the binary (the
// front rlxp or the full rlxp-core, which read the same command lines) or
// the plugin's scripts/rlxp shim under any path, or go run of either
// command.
func rlxpArgs(argv []string, exact []bool) ([]string, []bool, bool) {
	if isRlxp(programName(argv[0], exact[0])) {
		return argv[1:], exact[1:], true
	}
	if programName(argv[0], exact[0]) != "go" || len(argv) < 3 || argv[1] != "run" {
		return nil, nil, false
	}
	i := 2
	for i < len(argv) && strings.HasPrefix(argv[i], "-") {
		switch argv[i] {
		case "-C", "-o", "-p", "-tags", "-ldflags", "-gcflags", "-asmflags", "-mod", "-modfile", "-overlay", "-pgo", "-pkgdir", "-toolexec", "-exec":
			i++ // the option's value
		}
		i++
	}
	if i >= len(argv) {
		return nil, nil, false
	}
	pkg, _, _ := strings.Cut(argv[i], "@")
	pkg = strings.TrimSuffix(strings.TrimSuffix(pkg, "/main.go"), "/")
	for _, cmd := range []string{"cmd/rlxp", "cmd/rlxp-core"} {
		if pkg == cmd || strings.HasSuffix(pkg, "/"+cmd) {
			return argv[i+1:], exact[i+1:], true
		}
	}
	return nil, nil, false
}

// isRlxp reports the names rlxp's binaries go by.
func isRlxp(name string) bool {
	return name == "rlxp" || name == "rlxp-core"
}

// normalize puts a command in the form patterns are matched in: a Python
// interpreter of any version (and a profiler or debugger that runs a
// Python program) becomes "python" without its own options, followed by
// -m and the module or by the script, or by -c for code given inline; a
// program or script path is resolved against base (when base is not
// empty). unknown is the word the program hangs on when the guard cannot
// resolve it.
func normalize(c call, base string) (argv []string, unknown string) {
	args, exact := c.argv, c.exact
	name := programName(args[0], exact[0])
	if c.script {
		out := append([]string{resolve(args[0], base)}, args[1:]...)
		if !exact[0] {
			return out, args[0]
		}
		return out, ""
	}
	if py, ok := pythonProgram(name, args, exact, c.stdin, c.open); ok {
		if py.unknown != "" {
			return nil, py.unknown
		}
		out := []string{"python"}
		switch {
		case py.module != "":
			return append(append(out, "-m", py.module), py.rest...), ""
		case py.inline:
			return append(out, "-c"), ""
		case py.script != "":
			return append(append(out, resolve(py.script, base)), py.rest...), ""
		}
		return out, ""
	}
	out := append([]string(nil), args...)
	out[0] = name
	if strings.Contains(args[0], "/") && exact[0] {
		out[0] = resolve(args[0], base)
	}
	return out, ""
}

// A pyRun is what a Python interpreter runs.
type pyRun struct {
	module  string   // -m MODULE
	script  string   // a script path
	inline  bool     // code on the command line or a here-document
	rest    []string // the program's arguments
	unknown string   // the word the program hangs on, when it cannot be resolved
}

// pythonProgram reads the program a Python interpreter, or a tool that
// runs Python programs (profilers, debuggers, coverage), runs.
func pythonProgram(name string, args []string, exact []bool, stdin input, open bool) (pyRun, bool) {
	switch {
	case isPython(name) || name == "ipython" || name == "ipython3":
		return pythonArgs(args[1:], exact[1:], stdin, open), true
	case name == "coverage" || name == "memray":
		if len(args) > 1 && args[1] == "run" {
			return runnerArgs(args[2:], exact[2:], " -o --output --rcfile --source --include --omit --data-file --context -p ", open), true
		}
	case name == "scalene" || name == "viztracer" || name == "kernprof" || name == "pyinstrument" || name == "austin":
		return runnerArgs(args[1:], exact[1:], " -o --outfile --output-file --profile-interval --cpu-sampling-rate --max_stack_depth --tracer_entries -r --renderer -i --interval ", open), true
	}
	return pyRun{}, false
}

// pythonArgs reads the interpreter's own options and what it runs.
func pythonArgs(args []string, exact []bool, stdin input, open bool) pyRun {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !exact[i]:
			return pyRun{unknown: a}
		case a == "-m" && i+1 < len(args):
			if !exact[i+1] {
				return pyRun{unknown: args[i+1]}
			}
			return moduleRun(args[i+1], args[i+2:], exact[i+2:], open)
		case strings.HasPrefix(a, "-m") && len(a) > 2 && !strings.HasPrefix(a, "--"):
			return moduleRun(a[2:], args[i+1:], exact[i+1:], open)
		case a == "-c" || strings.HasPrefix(a, "-c") && !strings.HasPrefix(a, "--"):
			if a == "-c" && i+1 < len(args) && !exact[i+1] {
				return pyRun{unknown: args[i+1]}
			}
			return pyRun{inline: true}
		case a == "-":
			return stdinProgram(stdin, args[i+1:])
		case a == "-W" || a == "-X" || a == "-Q":
			i++
		case len(a) > 2 && a[0] == '-' && a[1] != '-':
			// A cluster of one-letter options (-um train, -uc CODE, -OOW
			// ignore): the first that takes a value takes the rest of the
			// word, or the next word.
			k := strings.IndexAny(a[1:], "cmWXQ")
			if k < 0 {
				continue
			}
			opt, rest := a[k+1], a[k+2:]
			if rest == "" {
				if i+1 >= len(args) {
					continue
				}
				i++
				if !exact[i] {
					return pyRun{unknown: args[i]}
				}
				rest = args[i]
			}
			switch opt {
			case 'm':
				return moduleRun(rest, args[i+1:], exact[i+1:], open)
			case 'c':
				return pyRun{inline: true}
			}
		case strings.HasPrefix(a, "-"):
		default:
			return pyRun{script: a, rest: args[i+1:]}
		}
	}
	if open {
		return pyRun{unknown: "python (its program comes from input)"}
	}
	return stdinProgram(stdin, nil)
}

// stdinProgram is a Python program read on standard input.
func stdinProgram(stdin input, rest []string) pyRun {
	switch stdin.kind {
	case inText:
		return pyRun{inline: true}
	case inFile:
		return pyRun{script: stdin.path, rest: rest}
	case inUnknown:
		return pyRun{unknown: "the program python reads from a pipe"}
	}
	return pyRun{} // an interactive interpreter
}

// moduleRun is python -m MODULE: a module that runs another program
// (cProfile, pdb, trace, runpy, coverage) is seen through.
func moduleRun(module string, args []string, exact []bool, open bool) pyRun {
	valued := ""
	switch module {
	case "cProfile", "profile":
		valued = " -o -s --outfile --sort "
	case "pdb":
		valued = " -c --command "
	case "trace":
		valued = " -f --file -C --coverdir --ignore-module --ignore-dir "
	case "runpy", "scalene", "viztracer", "pyinstrument", "memray", "line_profiler", "kernprof", "memory_profiler":
		valued = " -o --outfile --output-file -r --renderer "
	case "coverage":
		if len(args) == 0 || args[0] != "run" {
			return pyRun{module: module, rest: args}
		}
		args, exact = args[1:], exact[1:]
		valued = " -o --output --rcfile --source --include --omit --data-file --context -p "
	default:
		return pyRun{module: module, rest: args}
	}
	if module == "memray" && len(args) > 0 && args[0] == "run" {
		args, exact = args[1:], exact[1:]
	}
	return runnerArgs(args, exact, valued, open)
}

// runnerArgs reads the program a Python runner (a profiler, a debugger)
// runs: -m MODULE or the first argument that is not an option.
func runnerArgs(args []string, exact []bool, valued string, open bool) pyRun {
	w := wrapper{valued: valued}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !exact[i]:
			return pyRun{unknown: a}
		case a == "--":
			if i+1 < len(args) {
				return pyRun{script: args[i+1], rest: args[i+2:]}
			}
		case a == "-m" || a == "--module":
			if i+1 < len(args) {
				return moduleRun(args[i+1], args[i+2:], exact[i+2:], open)
			}
		case w.takesValue(a):
			i++
		case strings.HasPrefix(a, "-"):
		default:
			if isPython(filepath.Base(a)) {
				return pythonArgs(args[i+1:], exact[i+1:], input{}, open)
			}
			return pyRun{script: a, rest: args[i+1:]}
		}
	}
	if open {
		return pyRun{unknown: "the program comes from input"}
	}
	return pyRun{}
}

func isPython(name string) bool {
	v, ok := strings.CutPrefix(name, "python")
	if !ok {
		v, ok = strings.CutPrefix(name, "pypy")
	}
	return ok && strings.Trim(v, "0123456789.") == ""
}

// resolve makes a path absolute against base; a path holding a placeholder
// or an expansion is left as written.
func resolve(p, base string) string {
	if strings.ContainsAny(p, "{$") {
		return p
	}
	if base == "" || filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// launcher names the well-known trainer entry point argv starts, or "".
// root is the repository (for script paths relative to it) and allow its
// guard.allow list.
func launcher(argv []string, root string, allow []string) string {
	arg := func(i int) string {
		if i < len(argv) {
			return argv[i]
		}
		return ""
	}
	name := filepath.Base(argv[0])
	switch name {
	case "torchrun":
		return "torchrun"
	case "deepspeed":
		return "the DeepSpeed launcher"
	case "accelerate":
		if arg(1) == "launch" {
			return "accelerate launch"
		}
	case "sbatch":
		return "a Slurm batch job (sbatch)"
	case "srun", "salloc":
		return "a Slurm job (" + name + ")"
	case "qsub", "qrsh", "qrun":
		return "a PBS/SGE batch job (" + name + ")"
	case "bsub":
		return "an LSF batch job (bsub)"
	case "condor_submit":
		return "an HTCondor job (condor_submit)"
	case "mpirun", "mpiexec", "horovodrun":
		return "an MPI launcher (" + name + ")"
	case "ray":
		if arg(1) == "job" && arg(2) == "submit" || arg(1) == "submit" {
			return "ray job submit"
		}
	case "sky":
		if arg(1) == "launch" || arg(1) == "exec" || arg(1) == "jobs" && arg(2) == "launch" || arg(1) == "spot" && arg(2) == "launch" {
			return "SkyPilot (sky " + arg(1) + ")"
		}
	case "wandb":
		if arg(1) == "agent" {
			return "a W&B sweep agent (wandb agent), which starts a run for each point of the sweep"
		}
	case "tune":
		if arg(1) == "run" {
			return "torchtune (tune run)"
		}
	case "llamafactory-cli":
		if arg(1) == "train" {
			return "llamafactory-cli train"
		}
	case "python":
		what := ""
		if arg(1) == "-m" {
			what = pythonModule(arg(2))
		} else if arg(1) != "" && arg(1) != "-c" {
			what = trainingScript(arg(1), root, allow)
		}
		if what != "" {
			return what
		}
	case "make", "just":
		return buildTarget(argv)
	case "npm", "yarn", "pnpm", "bun":
		return packageScript(argv)
	case "tox", "nox", "invoke", "inv", "doit", "snakemake":
		return taskTarget(argv)
	case "jupyter":
		if arg(1) == "execute" || arg(1) == "nbconvert" || arg(1) == "run" {
			for _, a := range argv[2:] {
				if strings.HasSuffix(a, ".ipynb") {
					return trainingScript(a, root, allow)
				}
			}
		}
	case "papermill":
		return trainingScript(arg(1), root, allow)
	}
	if strings.HasSuffix(name, ".py") || strings.HasSuffix(name, ".sh") || strings.HasSuffix(name, ".bash") {
		if what := trainingScript(argv[0], root, allow); what != "" {
			return what
		}
	}
	if what := multirun(argv); what != "" {
		return what
	}
	// A program found on PATH named for training: a package's console
	// script (train, ppo-train), also as a task of poetry, pixi or hatch run.
	if !strings.Contains(argv[0], "/") && filepath.Ext(name) == "" && trainerName([]string{name}) && !allowed(name, allow) {
		return "a training program (" + name + ")"
	}
	return ""
}

// multirun names a Hydra multirun, which starts a run for each point of a
// sweep (on this host or through a launcher plugin on a cluster),
// whatever the script is called: --multirun after any program, and -m
// after a Python script or module when the script is a Hydra application
// or an override sweeps (lr=1e-3,3e-4, hydra/launcher=…). Elsewhere -m is
// a script's own option (python tools/export.py -m model.pt).
func multirun(argv []string) string {
	start := 1
	if argv[0] == "python" {
		start = 2
		if len(argv) > 1 && argv[1] == "-m" {
			start = 3
		}
	}
	short := false
	for _, a := range argv[min(start, len(argv)):] {
		switch {
		case a == "--multirun":
			return "a Hydra multirun sweep (--multirun)"
		case a == "-m" && argv[0] == "python":
			short = true
		}
	}
	if !short {
		return ""
	}
	for _, a := range argv[start:] {
		k, v, ok := strings.Cut(a, "=")
		if ok && !strings.HasPrefix(k, "-") && (strings.Contains(v, ",") || strings.HasPrefix(strings.TrimLeft(k, "+~"), "hydra")) || strings.HasPrefix(v, "range(") || strings.HasPrefix(v, "choice(") {
			return "a Hydra multirun sweep (-m " + a + ")"
		}
	}
	if start == 2 && hydraApp(argv[1]) {
		return "a Hydra multirun sweep (" + filepath.Base(argv[1]) + " -m)"
	}
	return ""
}

// hydraApp reports a Python script that is a Hydra application, read
// only for a command that asks it for a multirun.
func hydraApp(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte("hydra.main")) || bytes.Contains(head[:n], []byte("from hydra import"))
}

// buildTarget names a make or just target that trains (make train).
func buildTarget(argv []string) string {
	w := wrapper{valued: " -C -f -j -l -I -o -W --file --makefile --directory --jobs --load-average --include-dir --old-file --what-if --justfile --working-directory --set "}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case w.takesValue(a):
			i++
		case strings.HasPrefix(a, "-") || strings.Contains(a, "="):
		case trainerName([]string{a}):
			return "a training target (" + filepath.Base(argv[0]) + " " + a + ")"
		}
	}
	return ""
}

// taskTarget names a task of a task runner that trains, by its name:
// tox -e train, nox -s train, invoke train, doit train, snakemake train.
func taskTarget(argv []string) string {
	name := filepath.Base(argv[0])
	var tasks []string
	switch name {
	case "tox", "nox":
		for i := 1; i < len(argv); i++ {
			a := argv[i]
			switch {
			case a == "-e" || a == "-s" || a == "--envlist" || a == "--session" || a == "--sessions":
				for i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
					i++
					tasks = append(tasks, strings.Split(argv[i], ",")...)
					if name == "tox" {
						break
					}
				}
			case strings.HasPrefix(a, "--envlist=") || strings.HasPrefix(a, "--sessions=") || strings.HasPrefix(a, "--session="):
				_, v, _ := strings.Cut(a, "=")
				tasks = append(tasks, strings.Split(v, ",")...)
			case len(a) > 2 && (strings.HasPrefix(a, "-e") || strings.HasPrefix(a, "-s")) && !strings.HasPrefix(a, "--"):
				tasks = append(tasks, strings.Split(a[2:], ",")...)
			}
		}
	default:
		// The targets are the words that are not options or their values;
		// snakemake's --until, --forcerun and the like name rules that run.
		valued := " -c --collection -r --search-root -f --config -b -l --list-format -p --pty --dep-file --db-file --backend --output-file -n --num-process -P "
		if name == "snakemake" {
			valued = " --cores -c --jobs -j --configfile --configfiles -C --snakefile -s --directory -d --profile --resources --set-threads --default-resources --executor -e --latency-wait -w --conda-prefix --apptainer-args --singularity-args --max-threads --local-cores --scheduler --rerun-triggers --config "
		}
		w := wrapper{valued: valued}
		for i := 1; i < len(argv); i++ {
			a := argv[i]
			switch {
			case w.takesValue(a):
				i++
			case strings.HasPrefix(a, "-") || strings.Contains(a, "="):
			case i > 1 && strings.HasPrefix(argv[i-1], "--") && name != "snakemake" && !strings.Contains(argv[i-1], "="):
				// the value of a task's own option (invoke prep --split train)
			default:
				tasks = append(tasks, a)
			}
		}
	}
	for _, t := range tasks {
		if t != "" && trainerName(strings.Split(t, "/")) {
			return "a training task (" + name + " " + t + ")"
		}
	}
	return ""
}

// packageScript names a package.json script that trains: npm run train,
// yarn train (yarn, pnpm and bun also run a script named directly).
func packageScript(argv []string) string {
	i := 1
	for i < len(argv) && strings.HasPrefix(argv[i], "-") {
		i++
	}
	if i >= len(argv) {
		return ""
	}
	sub := argv[i]
	switch {
	case sub == "run" || sub == "run-script" || sub == "rum" || sub == "urn":
		i++
		for i < len(argv) && strings.HasPrefix(argv[i], "-") {
			i++
		}
	case filepath.Base(argv[0]) == "npm":
		return ""
	}
	if i < len(argv) && trainerName([]string{argv[i]}) {
		return "a training script of package.json (" + filepath.Base(argv[0]) + " run " + argv[i] + ")"
	}
	return ""
}

func pythonModule(m string) string {
	switch m {
	case "torch.distributed.run", "torch.distributed.launch":
		return "torch.distributed (python -m " + m + ")"
	case "accelerate.commands.launch":
		return "accelerate launch (python -m " + m + ")"
	case "deepspeed.launcher.runner":
		return "the DeepSpeed launcher (python -m " + m + ")"
	}
	if trainerName(strings.Split(m, ".")) {
		return "a training module (python -m " + m + ")"
	}
	return ""
}

// trainingScript names a training script, Python or shell, by its path
// (relative to the repository when the path is inside it; only the file
// name for another absolute path, whose directories say nothing about
// it). A script root's guard.allow names is not one.
func trainingScript(path, root string, allow []string) string {
	rel, shown := path, path
	if filepath.IsAbs(path) {
		rel = filepath.Base(path)
		if root != "" {
			if r, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(r, "..") {
				rel, shown = r, r
				if allowed(rel, allow) {
					return ""
				}
			}
		}
	}
	ext := filepath.Ext(rel)
	parts := strings.Split(filepath.ToSlash(strings.TrimSuffix(rel, ext)), "/")
	if trainerName(parts) {
		return "a training script (" + shown + ")"
	}
	// A link under another name runs the script it points to.
	if filepath.IsAbs(path) {
		if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
			if real, err := filepath.Abs(real); err == nil && real != path {
				if what := trainingScript(real, root, allow); what != "" {
					return what + " through the link " + shown
				}
			}
		}
	}
	return ""
}

// allowed reports a script, relative to its repository, that guard.allow
// names (exactly or by a glob).
func allowed(rel string, allow []string) bool {
	rel = filepath.ToSlash(rel)
	for _, a := range allow {
		a = filepath.ToSlash(filepath.Clean(a))
		if ok, _ := filepath.Match(a, rel); ok || a == rel {
			return true
		}
	}
	return false
}

// trainerName reports a script or module path (its components, the last
// being its own name) that says it trains. "train" counts as a name
// segment where it is the verb: the first or last word of a component
// (train.py, train_ppo.py, ppo_train.sh, train/, grpo_trainer/), words
// being separated by _ - . or a change to upper case; not inside a word
// (constraints.py) nor between other words (split_train_val.py). A name
// with a word naming an RL or fine-tuning algorithm (ppo.py,
// sac_continuous.py, grpo-7b.sh, finetune.py) trains too. A name starting
// with a word such as plot, eval or test (plot_training_curves.py,
// tests/test_train.py, make_train_split.py) does not.
func trainerName(parts []string) bool {
	words := nameWords(parts[len(parts)-1])
	if len(words) == 0 {
		return false
	}
	switch words[0] {
	case "plot", "eval", "evaluate", "test", "tests", "check", "inspect", "analyze", "analyse", "visualize", "visualise", "viz",
		"show", "summarize", "summarise", "report", "export", "convert", "download", "prepare", "preprocess", "make",
		"generate", "gen", "compare", "validate", "verify", "dump", "print", "list", "count", "stats", "split", "setup", "install":
		return false
	}
	for _, w := range words {
		switch w {
		case "ppo", "dqn", "sac", "td3", "ddpg", "a2c", "a3c", "trpo", "impala", "grpo", "dapo", "rloo",
			"ppg", "rpo", "pqn", "c51", "qrdqn", "iqn", "acer", "acktr", "reinforce", "mappo", "ippo", "qmix", "vdn",
			"maddpg", "matd3", "mpo", "awr", "awac", "iql", "cql", "bcq", "edac", "rebrac", "redq", "droq", "crossq",
			"tqc", "gail", "airl", "sft", "dpo", "kto", "orpo", "simpo", "finetune", "pretrain":
			return true
		}
	}
	for _, p := range parts {
		w := nameWords(p)
		if len(w) > 0 && (trainWord(w[0]) || trainWord(w[len(w)-1])) {
			return true
		}
	}
	return false
}

func trainWord(w string) bool { return w == "train" || w == "trainer" || w == "training" }

// nameWords splits a name into lower-case words at _ - . and a change
// from lower to upper case (trainPPO is train, ppo).
func nameWords(name string) []string {
	var words []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			words = append(words, strings.ToLower(b.String()))
			b.Reset()
		}
	}
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			flush()
			prevLower = false
			continue
		case 'A' <= r && r <= 'Z' && prevLower:
			flush()
		}
		b.WriteRune(r)
		prevLower = 'a' <= r && r <= 'z' || '0' <= r && r <= '9'
	}
	flush()
	return words
}

// quote shows a command in a reason: on one line, shortened.
func quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:117]) + "..."
	}
	return fmt.Sprintf("%q", s)
}

// Trainer names the trainer a running process is, from its command line
// and working directory (as /proc shows them), or "" when it is none. A
// launcher run through an interpreter (python /usr/bin/torchrun) counts as
// the launcher.
func Trainer(argv []string, cwd string) string {
	if len(argv) == 0 || argv[0] == "" {
		return ""
	}
	n, _ := normalize(call{argv: argv, exact: trues(len(argv))}, cwd)
	if len(n) == 0 {
		return ""
	}
	if n[0] == "python" && len(n) > 1 && n[1] != "-m" && n[1] != "-c" {
		if l := launcher(append([]string{filepath.Base(n[1])}, n[2:]...), "", nil); l != "" && !strings.HasPrefix(l, "a training script") {
			return l
		}
	}
	what := launcher(n, cwd, nil)
	if strings.HasPrefix(what, "a training script (") {
		// A process is named by its script's full path.
		script := n[0]
		if n[0] == "python" {
			script = n[1]
		}
		what = "a training script (" + script + ")"
	}
	return what
}
