package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/guard"
)

// blocked ends 'rlxp guard' after it has printed why a tool call is
// refused. It exits 2, which both hosts read as "block this tool call and
// show stderr to the agent".
type blocked struct{}

func (blocked) Error() string { return "tool call blocked" }

var errBlocked = blocked{}

func newGuardCmd() *Command {
	fs := pflag.NewFlagSet("guard", pflag.ContinueOnError)
	return &Command{
		UsageLine: "rlxp guard",
		Short:     "decide, as the agent hosts' PreToolUse hook, whether a shell command may run",
		Long: `Guard is the hook that Claude Code and Codex run before their shell tool
(hooks/hooks.json in the plugin). It reads the hook's JSON payload on stdin,
finds the repository from the payload's cwd (the nearest directory above it
with a .rlxp directory) and refuses:

  - a training launch that bypasses 'rlxp launch': the train and eval
    commands declared in .rlxp/adapter.yaml (each {placeholder} stands for
    any words), and well-known entry points wherever they run: torchrun,
    python -m torch.distributed.run, accelerate launch, deepspeed, sbatch,
    srun, mpirun, ray job submit, and a Python or shell script, Python
    module or make target with "train" in its path (not plot_training.py or
    test_train.py). The declared preflight is allowed;
  - rlxp contract approve and rlxp experiment approve, which are a human's
    to run, however rlxp is invoked.

The command is parsed as bash parses it: every command of a pipeline or
list, command substitutions, bash -c strings, here-documents fed to a
shell, and wrappers such as env, nohup, timeout, sudo, uv run, conda run,
tmux and ssh. Anything that asks only for --help is allowed.

An allowed command prints nothing: the host's own permission rules and
prompts then apply as usual. A refusal is one line on stderr saying what to
do instead. A payload that cannot be read is refused (the guard fails
closed); a tool other than the shell tool is allowed. A malformed
adapter.yaml does not stop the other rules; refusals then say that the
file's commands are not being checked.

EXIT STATUS
  0  the command may run (nothing is printed)
  2  refused, with the reason on stderr; also a usage error`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			if len(args) > 0 {
				return usagef("guard takes no arguments: it reads the hook payload on stdin")
			}
			if env.StdinTTY {
				return usagef("guard reads a PreToolUse hook payload (JSON) on stdin; Claude Code and Codex run it before each shell command")
			}
			g := guard.Guard{Rlxp: ReadArgv, Home: env.Getenv("HOME")}
			d := g.Hook(env.Stdin, env.Dir)
			if d.Ask {
				_, err := env.Stdout.Write(d.AskOutput())
				return err
			}
			if !d.Deny {
				return nil
			}
			fmt.Fprintf(env.Stderr, "rlxp guard: %s\n", d.Reason)
			return errBlocked
		},
	}
}

// ReadArgv reads an rlxp command line as Main does, with the same command
// table and flag sets, without running anything: the guard's one source of
// truth for what an rlxp command line means.
func ReadArgv(args []string) guard.Invocation {
	if len(args) == 0 {
		return guard.Invocation{}
	}
	switch args[0] {
	case "--version", "-version", "version", "-h", "--help", "-help", "help":
		return guard.Invocation{}
	}
	root := &Command{UsageLine: "rlxp <command> [arguments]", Commands: commands()}
	cmd, rest, err := lookup(root, args)
	if err != nil || cmd.Commands != nil {
		return guard.Invocation{}
	}
	fs := cmd.Flags
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(rest); err != nil {
		return guard.Invocation{} // help, or a usage error: nothing runs
	}
	inv := guard.Invocation{Command: helpPath(cmd), Flags: map[string]string{}, Args: fs.Args()}
	fs.Visit(func(f *pflag.Flag) { inv.Flags[f.Name] = f.Value.String() })
	return inv
}

// Spec is the command table as the guard reads command lines, for the
// rlxp-guard hook binary, which does not link the commands themselves.
func Spec() (guard.CommandSpec, error) {
	return specOf(&Command{UsageLine: "rlxp", Commands: commands()})
}

func specOf(c *Command) (guard.CommandSpec, error) {
	s := guard.CommandSpec{Name: c.Name()}
	var err error
	if c.Flags != nil {
		s.Flags, err = guard.SpecOf(c.Flags)
	}
	for _, sub := range c.Commands {
		ss, serr := specOf(sub)
		s.Commands = append(s.Commands, ss)
		err = errors.Join(err, serr)
	}
	return s, err
}
