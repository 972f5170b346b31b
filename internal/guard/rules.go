package guard

import (
	"fmt"
	"path/filepath"
	"strings"
)

// launchAdvice is what every refused launch tells the agent to do instead.
const launchAdvice = "training runs go through 'rlxp launch <experiment>', which checks the contract, the experiment, the budget and the repository's preflight first; run 'rlxp check <experiment>' to see what is missing"

// judge decides on one simple command run in cwd.
func (p *Policy) judge(c call, cwd string) Decision {
	if asksHelp(c.argv[1:]) {
		return Decision{}
	}
	if args, ok := rlxpArgs(c.argv); ok {
		return approval(args, c.text)
	}
	argv := normalize(c.argv, cwd)
	for _, pat := range p.preflight {
		if pat.matches(c.env, argv) {
			return Decision{}
		}
	}
	for _, pat := range p.launches {
		if !pat.matches(c.env, argv) {
			continue
		}
		if pat.name == "eval" {
			return denyf("%s runs the eval command declared in %s: evaluations spend GPU hours like training; ask the user before running one, and launch an experiment's runs with 'rlxp launch <experiment>'", quote(c.text), adapterFile)
		}
		return denyf("%s runs the %s command declared in %s: %s", quote(c.text), pat.name, adapterFile, launchAdvice)
	}
	if what := launcher(normalize(c.argv, ""), p.root); what != "" {
		return denyf("%s starts training directly with %s: %s", quote(c.text), what, launchAdvice)
	}
	return Decision{}
}

// asksHelp reports arguments that only ask a program to describe itself.
func asksHelp(args []string) bool {
	for _, a := range args {
		if a == "--help" || a == "-h" || a == "--version" {
			return true
		}
	}
	return false
}

// rlxpArgs returns the arguments of an rlxp invocation: the binary or the
// plugin's scripts/rlxp shim under any path, or go run of the rlxp command.
func rlxpArgs(argv []string) ([]string, bool) {
	if filepath.Base(argv[0]) == "rlxp" {
		return argv[1:], true
	}
	if filepath.Base(argv[0]) != "go" || len(argv) < 3 || argv[1] != "run" {
		return nil, false
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
		return nil, false
	}
	pkg, _, _ := strings.Cut(argv[i], "@")
	pkg = strings.TrimSuffix(strings.TrimSuffix(pkg, "/main.go"), "/")
	if pkg == "cmd/rlxp" || strings.HasSuffix(pkg, "/cmd/rlxp") {
		return argv[i+1:], true
	}
	return nil, false
}

// approval refuses rlxp contract approve and rlxp experiment approve.
func approval(args []string, text string) Decision {
	if len(args) < 2 || args[1] != "approve" {
		return Decision{}
	}
	switch args[0] {
	case "contract":
		return denyf("%s: approving the contract is a human act; show the user the section with 'rlxp contract show <section>' and ask them to run 'rlxp contract approve <section>' in their own terminal", quote(text))
	case "experiment":
		return denyf("%s: approving an experiment is a human act; show the user the experiment with 'rlxp experiment show <id>' and ask them to run 'rlxp experiment approve <id>' in their own terminal", quote(text))
	}
	return Decision{}
}

// normalize puts a command in the form patterns are matched in: a Python
// interpreter of any version becomes "python" without its own options,
// followed by -m and the module or by the script; a program or script
// path is resolved against base (when base is not empty).
func normalize(argv []string, base string) []string {
	if isPython(filepath.Base(argv[0])) {
		out := []string{"python"}
		for i := 1; i < len(argv); i++ {
			a := argv[i]
			switch {
			case a == "-m" && i+1 < len(argv):
				return append(append(out, "-m", argv[i+1]), argv[i+2:]...)
			case a == "-c" || a == "-":
				return out // code on the command line or stdin: no program
			case a == "-W" || a == "-X":
				i++
			case strings.HasPrefix(a, "-"):
			default:
				return append(append(out, resolve(a, base)), argv[i+1:]...)
			}
		}
		return out
	}
	out := append([]string(nil), argv...)
	if strings.Contains(argv[0], "/") {
		out[0] = resolve(argv[0], base)
	}
	return out
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
func launcher(argv []string, root string) string {
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
	case "srun":
		return "a Slurm job step (srun)"
	case "mpirun", "mpiexec", "horovodrun":
		return "an MPI launcher (" + name + ")"
	case "ray":
		if arg(1) == "job" && arg(2) == "submit" {
			return "ray job submit"
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
		if arg(1) == "-m" {
			return pythonModule(arg(2))
		}
		if arg(1) != "" {
			return trainingScript(arg(1), root)
		}
	case "make", "just":
		return buildTarget(argv)
	}
	if strings.HasSuffix(name, ".py") || strings.HasSuffix(name, ".sh") {
		return trainingScript(argv[0], root)
	}
	return ""
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

// trainingScript names a training script, Python or shell: one with
// "train" in its path (relative to the repository when the path is inside
// it; only the file name for another absolute path, whose directories say
// nothing about it).
func trainingScript(path, root string) string {
	rel := path
	if filepath.IsAbs(path) {
		rel = filepath.Base(path)
		if root != "" {
			if r, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(r, "..") {
				rel = r
			}
		}
	}
	parts := strings.Split(filepath.ToSlash(strings.TrimSuffix(strings.TrimSuffix(rel, ".py"), ".sh")), "/")
	if trainerName(parts) {
		return "a training script (" + path + ")"
	}
	return ""
}

// trainerName reports a script or module path (its components, the last
// being its own name) that says it trains: a component contains "train",
// or its own name has a word naming an RL or fine-tuning algorithm (ppo.py,
// sac_continuous.py, grpo-7b.sh, finetune.py), and its own name does not
// start with a word such as plot, eval or test (plot_training_curves.py,
// tests/test_train.py, make_train_split.py).
func trainerName(parts []string) bool {
	last := strings.ToLower(parts[len(parts)-1])
	words := strings.FieldsFunc(last, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	if len(words) == 0 {
		return false
	}
	switch words[0] {
	case "plot", "eval", "evaluate", "test", "check", "inspect", "analyze", "analyse", "visualize", "visualise", "viz",
		"show", "summarize", "summarise", "report", "export", "convert", "download", "prepare", "preprocess", "make",
		"generate", "gen", "compare", "validate", "verify", "dump", "print", "list", "count", "stats":
		return false
	}
	for _, w := range words {
		switch w {
		case "ppo", "dqn", "sac", "td3", "ddpg", "a2c", "a3c", "trpo", "impala", "grpo", "dapo", "rloo",
			"sft", "dpo", "finetune", "pretrain":
			return true
		}
	}
	for _, p := range parts {
		if strings.Contains(strings.ToLower(p), "train") {
			return true
		}
	}
	return false
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
	n := normalize(argv, cwd)
	if n[0] == "python" && len(n) > 1 && n[1] != "-m" {
		if l := launcher(append([]string{filepath.Base(n[1])}, n[2:]...), ""); l != "" && !strings.HasPrefix(l, "a training script") {
			return l
		}
	}
	return launcher(n, cwd)
}
