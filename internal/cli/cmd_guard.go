package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/guard"
	"github.com/rlxp/rlxp/internal/manual"
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
		Long:      manual.Page("guard"),
		Flags:     fs,
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
		ss, serr := specOf(sub.New())
		s.Commands = append(s.Commands, ss)
		err = errors.Join(err, serr)
	}
	return s, err
}
