package builtin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/rlxp/rlxp/internal/preflight"
)

// askTimeout bounds one run of a program for what it says about itself
// (--help, Hydra's --cfg job): an interpreter start and the program's
// imports (torch's take seconds), never its work.
const askTimeout = 8 * time.Second

func (t *Target) askTimeout() time.Duration {
	if t.AskTimeout > 0 {
		return t.AskTimeout
	}
	return askTimeout
}

// maxAsk caps the output of one such run that is kept.
const maxAsk = 1 << 20

// helpParsers are the modules whose parsers answer --help by listing
// their options and exiting. A program that imports none of them is never
// run with --help: it might take the flag for anything, or ignore it and
// start training.
var helpParsers = []string{"argparse", "click", "typer", "absl", "tyro", "jsonargparse", "simple_parsing"}

// An Answer is what one program said about itself, or why it said nothing
// rlxp can use.
type Answer struct {
	// Options are the options its --help lists, and Format the parser
	// whose help text it is (argparse, click, absl, tyro).
	Options []string
	Format  string
	// Keys are the dotted keys of the config Hydra composed (--cfg job).
	Keys []string
	// Err says why the answer is not used; the static reading stands.
	Err string
}

// askPrograms runs, concurrently, the programs whose options or config
// the static reading cannot settle: --help for an option the parser
// definitions do not name (options built at run time: dataclasses, loops,
// tyro), --cfg job for a Hydra main whose Hydra is importable. A program
// whose options the static reading accepts is never run.
func (t *Target) askPrograms(ctx context.Context) {
	t.help = make([]*Answer, len(t.Entries))
	t.composed = make([]*Answer, len(t.Entries))
	var wg sync.WaitGroup
	for i, e := range t.Entries {
		p := t.program(e)
		if t.needsHelp(e, p) {
			wg.Go(func() { t.help[i] = t.askHelp(ctx, e) })
		}
		if p != nil && p.Compiles && p.Hydra != nil && !slices.ContainsFunc(p.Missing, isHydra) && hydraKeys(e.Args, p) {
			wg.Go(func() { t.composed[i] = t.askConfig(ctx, e, p) })
		}
	}
	wg.Wait()
}

func isHydra(m string) bool { return m == "hydra" || strings.HasPrefix(m, "hydra.") }

// needsHelp says whether the program's --help is asked: it imports a
// parser that answers it (and builds none with add_help=False), and some option of the command is not among
// those its parser definitions name.
func (t *Target) needsHelp(e Entry, p *Program) bool {
	if p == nil || !p.Compiles || p.NoHelp || !slices.ContainsFunc(p.Uses, func(m string) bool { return slices.Contains(helpParsers, m) }) && !slices.Contains(p.Parsers, "HfArgumentParser") {
		return false
	}
	accepted := append(slices.Clone(p.Options), e.RunnerOptions...)
	for _, o := range optionsOf(e.Args) {
		if !accepts(accepted, o) {
			return true
		}
	}
	return false
}

// hydraKeys says whether a Hydra program is handed key=value overrides of
// config keys (not only of groups), the ones the composed config settles.
func hydraKeys(args []string, p *Program) bool {
	for _, a := range args {
		k, _, has := strings.Cut(a, "=")
		if _, group := hydraGroup(p, k); has && !strings.HasPrefix(a, "-") && !group {
			return true
		}
	}
	return false
}

// askHelp runs the program with --help after its leading positional
// arguments (a subcommand's options are listed by its own help); absl's
// short help names only the main module's flags, so its full help is
// asked for next.
func (t *Target) askHelp(ctx context.Context, e Entry) *Answer {
	var lead []string
	if e.Runner == "" {
		for _, a := range e.Args {
			if strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
				break
			}
			lead = append(lead, a)
		}
	}
	out, runErr := t.ask(ctx, e, append(lead, "--help")...)
	opts, format := ParseHelp(out)
	if format == "absl" && !slices.Contains(opts, "--help") && !timedOut(runErr) {
		out, runErr = t.ask(ctx, e, append(lead, "--helpfull")...)
		opts, format = ParseHelp(out)
	}
	a := &Answer{Options: opts, Format: format}
	switch {
	case timedOut(runErr):
		a.Err = fmt.Sprintf("--help did not answer within %s", t.askTimeout())
	case !slices.Contains(opts, "--help"):
		a.Err = "--help listed no options"
		if runErr != nil {
			a.Err = fmt.Sprintf("--help failed: %v", runErr)
		}
	}
	return a
}

// askConfig asks a Hydra main for the config it composes (--cfg job),
// with the command's group choices and without its value overrides, whose
// keys the overrides rule checks.
func (t *Target) askConfig(ctx context.Context, e Entry, p *Program) *Answer {
	var args []string
	for _, a := range e.Args {
		k, _, has := strings.Cut(a, "=")
		if _, group := hydraGroup(p, k); has && group {
			args = append(args, a)
		}
	}
	out, err := t.ask(ctx, e, append(args, "--cfg", "job")...)
	keys, perr := ParseComposed(out)
	switch {
	case timedOut(err):
		return &Answer{Err: fmt.Sprintf("--cfg job did not answer within %s", t.askTimeout())}
	case err != nil:
		return &Answer{Err: fmt.Sprintf("--cfg job failed: %v", err)}
	case perr != nil:
		return &Answer{Err: fmt.Sprintf("--cfg job: %v", perr)}
	}
	return &Answer{Keys: keys}
}

// ParseComposed reads the keys of the config Hydra prints for --cfg job:
// the composed config as YAML on stdout.
func ParseComposed(out string) ([]string, error) {
	var v any
	if err := yaml.Unmarshal([]byte(out), &v); err != nil {
		return nil, fmt.Errorf("not the YAML of a config: %w", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("not the YAML of a config: no mapping at the top")
	}
	return flatten("", v), nil
}

type timeoutError struct{}

func (timeoutError) Error() string { return "timed out" }

func timedOut(err error) bool { return errors.As(err, &timeoutError{}) }

// ask runs the entry point with args under the declared interpreter, in
// the repository, with no GPU (CUDA_VISIBLE_DEVICES empty), W&B disabled,
// no bytecode written, stdin empty, in its own process group killed after
// its timeout. It returns stdout, capped.
func (t *Target) ask(ctx context.Context, e Entry, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, t.askTimeout())
	defer cancel()
	argv := []string{e.Script}
	switch {
	case e.Console != nil:
		// As the installed command runs it: its function, its name as argv[0].
		argv = []string{"-c", fmt.Sprintf("import importlib, sys\nsys.argv[0] = %q\nf = importlib.import_module(%q)\nfor a in %q.split('.'):\n    f = getattr(f, a)\nsys.exit(f())", e.Console.Name, e.Console.Module, e.Console.Func)}
	case e.Module != "":
		argv = []string{"-m", e.Module}
	}
	cmd := exec.CommandContext(ctx, t.python(e), append(argv, args...)...)
	cmd.Dir = t.Root
	env := t.Env
	if env == nil {
		env = os.Environ()
	}
	if e.Call != nil {
		for k, v := range e.Call.Env {
			env = append(env, k+"="+v)
		}
	}
	cmd.Env = append(slices.Clone(env), "CUDA_VISIBLE_DEVICES=", "PYTHONDONTWRITEBYTECODE=1", "WANDB_MODE=disabled",
		"NO_COLOR=1", "TERM=dumb", "COLUMNS=200")
	var stdout, stderr capped
	stdout.max, stderr.max = maxAsk, 4096
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	preflight.SetGroup(cmd)
	cmd.Cancel = func() error { preflight.KillGroup(cmd.Process); return nil }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		preflight.KillGroup(cmd.Process) // whatever it left running
	}
	if ctx.Err() == context.DeadlineExceeded {
		return stdout.String(), timeoutError{}
	}
	if err != nil {
		if line := lastLine(stderr.String()); line != "" {
			err = fmt.Errorf("%w: %s", err, clip(line))
		}
	}
	return stdout.String(), err
}

// capped keeps the first max bytes written to it and drops the rest, so a
// chatty program neither fills memory nor blocks on a full pipe.
type capped struct {
	strings.Builder
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		c.Builder.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

var (
	ansi = lazyRegexp(`\x1b\[[0-9;]*[A-Za-z]`)
	// abslFlag is one flag line of absl's help: "  --lr: ...",
	// "  -e,--epochs: ...", "  --[no]cuda: ...".
	abslFlag = lazyRegexp(`^  (?:-[^\s,:]+,)?--(\[no\])?([A-Za-z0-9_.-]+):`)
	optToken = lazyRegexp(`^--?[A-Za-z0-9?][A-Za-z0-9_.:-]*`)
)

// ParseHelp reads the options a program's --help lists, and which
// parser's format it is: argparse ("options:" lines such as
// "-e EPOCHS, --epochs EPOCHS"), click ("--cuda / --no-cuda"), tyro (the
// same inside a box drawn with │) or absl ("--[no]cuda: ..."). Nothing
// found is an empty list.
func ParseHelp(text string) (opts []string, format string) {
	text = ansi().ReplaceAllString(text, "")
	seen := map[string]bool{}
	add := func(o string) {
		if !seen[o] {
			seen[o] = true
			opts = append(opts, o)
		}
	}
	switch {
	case strings.Contains(text, "Try --helpfull") || strings.Contains(text, "\nabsl.flags:\n"):
		format = "absl"
	case strings.Contains(text, "╭─") || strings.Contains(text, "│"):
		format = "tyro"
	case strings.HasPrefix(strings.TrimSpace(text), "Usage:"):
		format = "click"
	case strings.Contains(text, "usage:"):
		format = "argparse"
	}
	for _, line := range strings.Split(text, "\n") {
		if format == "absl" {
			if m := abslFlag().FindStringSubmatch(line); m != nil {
				add("--" + m[2])
				if m[1] != "" {
					add("--no" + m[2])
				}
			}
			continue
		}
		line = strings.TrimSpace(line)
		line = strings.TrimSpace(strings.Trim(line, "│|"))
		if !strings.HasPrefix(line, "-") {
			continue
		}
		// The option part ends where the help column starts: two spaces.
		spec, _, _ := strings.Cut(line, "  ")
		for _, item := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == '/' }) {
			if tok := optToken().FindString(strings.TrimSpace(item)); strings.HasPrefix(tok, "--") {
				add(strings.TrimRight(tok, ":"))
			} else if tok != "" {
				add(tok)
			}
		}
	}
	return opts, format
}
