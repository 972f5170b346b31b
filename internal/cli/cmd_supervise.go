package cli

import (
	"context"
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/launch"
	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/pin"
	"github.com/rlxp/rlxp/internal/state"
)

func newSuperviseCmd() *Command {
	fs := pflag.NewFlagSet("supervise", pflag.ContinueOnError)
	var run bool
	var holdID string
	var end bool
	fs.BoolVar(&run, "run", false, "be the shepherd of one run (started by the supervisor)")
	fs.StringVar(&holdID, "hold", "", "hold the Slurm run `ID` to its approval, from its job before the run starts")
	fs.BoolVar(&end, "end", false, "with --hold: after the run ended")
	return &Command{
		UsageLine: "rlxp supervise [--run | --hold ID [--end]]",
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
			if holdID != "" {
				return holdJob(ctx, env, holdID, end)
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

// holdJob is a Slurm job's check of its run against its approval: a
// change is a line in the job's log, and before the start exit status 3.
func holdJob(ctx context.Context, env *Env, id string, end bool) error {
	r, err := openRepo(env, ".")
	if err != nil {
		return err
	}
	lock := func() (*state.Lock, error) { return lockRepo(env, r) }
	line, err := launch.HoldJob(ctx, r.Root, r.Path(state.Runs), id, end, pin.HoldPlan, lock, env.Now)
	if line != "" {
		fmt.Fprintln(env.Stdout, line)
		return errNegative
	}
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
