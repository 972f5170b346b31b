package cli

import (
	"context"
	"io"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/launch"
)

func newSuperviseCmd() *Command {
	fs := pflag.NewFlagSet("supervise", pflag.ContinueOnError)
	var run bool
	fs.BoolVar(&run, "run", false, "be the shepherd of one run (started by the supervisor)")
	return &Command{
		UsageLine: "rlxp supervise [--run]",
		Short:     "run a launched plan (started by launch, not by hand)",
		Long: `Supervise is the process 'rlxp launch' leaves behind for the local
backend. It reads the job from stdin, reports the runs it starts on
stdout, then closes stdout and keeps each run's record current until the
last run ends. Each run has a shepherd of its own (supervise --run), the
subreaper of every process the run starts. TERM stops the supervisor: its
runs get TERM, then KILL after the plan's grace, and the runs it had not
started are recorded as stopped. A supervisor that dies however it dies
takes its runs with it: each shepherd stops its run within seconds and
records why.

EXIT STATUS
  0  every run ended (whatever their own exit status)
  1  the job could not be read
  2  usage error`,
		Flags:  fs,
		Hidden: true,
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
			return launch.Supervise(ctx, env.Stdin, handshake, env.Stderr, env.Now)
		},
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
