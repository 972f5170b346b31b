package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/dashboard"
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
		Long: `Dashboard serves a page on 127.0.0.1 only, never on another address: the
contract with each section's approval state, the experiments with their
status, the ledger's leaderboard (verdicts, 95% confidence intervals and
deltas against the baseline), each run's state with its liveness and failure
signatures as status finds them, and learning curves of the primary metric
and each guardrail: per experiment the mean of its seeds with a shaded 95%
confidence band (seeds aligned on step by linear interpolation), the
baseline's in black, each seed's line on demand; a metric logged once per
run as dots with the mean and its interval. The page smooths (TensorBoard's
debiased EMA), shows values on hover, switches to a log scale or wall time,
and compares two experiments with the ledger's delta and p. Curves are read
through the same metric readers as status and score, from the sources
adapter.yaml declares, and downsampled on the server to at most 500 points
per run, so that a huge metric file costs little memory.

Every request reads the state afresh, and a run's metric files again when
their size, times or inode changed: the page is as current as the disk.
The page and its script are built into rlxp and load nothing from the
network. Dashboard only reads; it never writes .rlxp.

Without --port it picks a free port. It prints the URL and serves until
interrupted. It notes its URL and pid in a file outside .rlxp (in
$XDG_RUNTIME_DIR, else the temporary directory); when a dashboard for the
same repository already answers there, it prints that one's URL and exits
without starting another. --running only asks: it prints the running
one's URL, or says that none is running and exits 3.

EXIT STATUS
  0  served until interrupted, or one for this repository is already running
  1  .rlxp is missing, or the port cannot be bound
  2  usage error
  3  --running: no dashboard is running for this repository`,
		Flags: fs,
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
