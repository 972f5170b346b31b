package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/dashboard"
	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/state"
)

type dashboardOptions struct {
	root    string
	port    int
	running bool
}

func newDashboardCmd() *Command {
	var o dashboardOptions
	fs := pflag.NewFlagSet("dashboard", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.IntVar(&o.port, "port", 0, "serve on `N` (default: a free port)")
	fs.BoolVar(&o.running, "running", false, "start nothing: print the URL of the dashboard already serving this repository, or exit 3")
	return &Command{
		UsageLine: "rlxp dashboard [--root DIR] [--port N] [--running]",
		Short:     "serve a local web view of the contract, experiments, ledger, runs and learning curves",
		Long:      manual.Page("dashboard"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runDashboard(ctx, env, &o, args)
		},
	}
}

func runDashboard(ctx context.Context, env *Env, o *dashboardOptions, args []string) error {
	if len(args) > 0 {
		return usagef("dashboard takes no arguments (use --root DIR)")
	}
	if o.port < 0 || o.port > 65535 {
		return usagef("--port %d: want 1 to 65535, or 0 for a free port", o.port)
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	// Says how to create .rlxp when it is missing.
	if _, err := r.Read(state.Contract); err != nil {
		return err
	}
	record := dashboard.RecordPath(env.Getenv, r.Root)
	if inst, ok := dashboard.Running(ctx, record, r.Root); ok {
		fmt.Fprintf(env.Stdout, "a dashboard for %s is already running (pid %d)\n%s\n", r.Root, inst.PID, inst.URL)
		return nil
	}
	if o.running {
		fmt.Fprintf(env.Stdout, "no dashboard is running for %s\n", r.Root)
		return errNegative
	}
	l, err := dashboard.Listen(record, r.Root, o.port, os.Getpid(), dashboard.NewRepo(r, env.Now))
	if err != nil {
		return err
	}
	if l.RecordErr != nil {
		warnf(env, "cannot record the running dashboard: %v", l.RecordErr)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(env.Stdout, "serving %s\n%s\n", r.Root, l.URL)
	fmt.Fprintln(env.Stderr, "rlxp: press Ctrl-C to stop the dashboard")
	return l.Serve(ctx)
}
