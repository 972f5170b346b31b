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
	var holdID, written string
	var end bool
	fs.BoolVar(&run, "run", false, "be the shepherd of one run (started by the supervisor)")
	fs.StringVar(&holdID, "hold", "", "hold the Slurm run `ID` to its approval, from its job before the run starts")
	fs.BoolVar(&end, "end", false, "with --hold: after the run ended")
	fs.StringVar(&written, "written", "", "with --end: the `DIGEST` of the record the start's hold printed")
	return &Command{
		UsageLine: "rlxp supervise [--run | --hold ID [--end --written DIGEST]]",
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
				return holdJob(ctx, env, launch.JobHold{ID: holdID, End: end, Written: written})
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

// holdJob is a Slurm job's check of its run against its approval: what
// it found is a line in the job's log (stderr), and before the start exit
// status 3; the start prints the digest of the record it wrote.
func holdJob(ctx context.Context, env *Env, j launch.JobHold) error {
	r, err := openRepo(env, ".")
	if err != nil {
		return err
	}
	j.Root, j.RunsDir, j.Hold, j.Now = r.Root, r.Path(state.Runs), pin.HoldPlan, env.Now
	j.Lock = func() (*state.Lock, error) { return lockRepo(env, r) }
	line, written, err := j.Run(ctx)
	if err != nil {
		return err
	}
	if line != "" {
		fmt.Fprintln(env.Stderr, line)
	}
	if !j.End {
		fmt.Fprintln(env.Stdout, written)
		if line != "" {
			return errNegative
		}
	}
	return nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
