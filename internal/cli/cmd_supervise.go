package cli

import (
	"context"
	"io"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/launch"
	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/pin"
)

func newSuperviseCmd() *Command {
	fs := pflag.NewFlagSet("supervise", pflag.ContinueOnError)
	var run bool
	fs.BoolVar(&run, "run", false, "be the shepherd of one run (started by the supervisor)")
	return &Command{
		UsageLine: "rlxp supervise [--run]",
		Short:     "run a launched plan (started by launch, not by hand)",
		Long:      manual.Page("supervise"),
		Flags:     fs,
		Hidden:    true,
		Run: func(ctx context.Context, env *Env, args []string) error {
			if len(args) != 0 {
				return usagef("supervise takes no arguments")
			}
			if run {
				return launch.Shepherd(env.Stdin, env.Stdout, env.Now)
			}
			signal.Ignore(syscall.SIGHUP)
			ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
			defer stop()
			handshake, ok := env.Stdout.(io.WriteCloser)
			if !ok {
				handshake = nopCloser{env.Stdout}
			}
			return launch.Supervise(ctx, env.Stdin, handshake, env.Stderr, env.Now, pin.HoldPlan)
		},
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
