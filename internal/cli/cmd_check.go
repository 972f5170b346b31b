package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/check"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/launch"
	"github.com/rlxp/rlxp/internal/pin"
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
)

type checkOptions struct {
	root, runDir string
	seeds        []int // the seeds to launch; empty: those without a finished run
	seed         int
	timeout      time.Duration
	json         bool
}

// addRunFlags adds the flags check and preflight share.
func addRunFlags(fs *pflag.FlagSet, o *checkOptions) {
	addRootFlag(fs, &o.root)
	fs.IntVar(&o.seed, "seed", -1, "seed whose run the preflight checks (default: the experiment's first)")
	fs.StringVar(&o.runDir, "run-dir", "runs/{experiment}/seed{seed}", "the run's directory, a `TEMPLATE` with {experiment} and {seed}")
	addJSONFlag(fs, &o.json)
}

func newCheckCmd() *Command {
	var o checkOptions
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	addRunFlags(fs, &o)
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long the repo's preflight may take")
	return &Command{
		UsageLine: "rlxp check EXPERIMENT [--seed N] [--run-dir TEMPLATE] [--timeout DUR] [--root DIR] [--json]",
		Short:     "say whether it is safe to run an experiment right now",
		Long:      check.Manual,
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runCheck(ctx, env, &o, args)
		},
	}
}

func runCheck(ctx context.Context, env *Env, o *checkOptions, args []string) error {
	if len(args) != 1 {
		return usagef("check takes one experiment ID")
	}
	c, err := evaluateCheck(ctx, env, o, args[0])
	if err != nil {
		return err
	}
	if o.json {
		err = writeJSON(env.Stdout, c.Result)
	} else {
		printCheck(env, &c.Result)
		fmt.Fprintf(env.Stdout, "plan:\n  %s\n", strings.Join(c.Result.Plan, "\n  ")) // never empty
		printNext(env, c.Result.Next)
	}
	if err == nil && !c.Result.Safe {
		err = errNegative
	}
	return err
}

// A checked experiment: the answer, and the state it was read from.
type checked struct {
	*check.Checked
	repo     *state.Repo
	contract *contract.Loaded
	exp      *experiment.Experiment
	adapter  *adapter.Adapter
}

// loadCheck loads the state check and preflight read: the contract, the
// experiment and the adapter.
func loadCheck(env *Env, o *checkOptions, arg string) (in check.Input, err error) {
	id, err := argID(arg)
	if err != nil {
		return in, err
	}
	if in.Repo, in.Contract, err = openContract(env, o.root); err != nil {
		return in, err
	}
	if in.Experiments, in.Experiment, err = workspace.Experiment(in.Repo, id); err != nil {
		return in, err
	}
	in.Seeds, in.Seed, in.RunDir, in.Timeout, in.Host = o.seeds, o.seed, o.runDir, o.timeout, probe.System()
	in.Adapter, err = loadAdapter(in.Repo)
	return in, err
}

// evaluateCheck loads what check reads and asks it.
func evaluateCheck(ctx context.Context, env *Env, o *checkOptions, arg string) (*checked, error) {
	in, err := loadCheck(env, o, arg)
	if err != nil {
		return nil, err
	}
	// Read once: the budget, the seeds left to run and the runs in flight
	// all come from these (and Slurm's answers about them).
	if in.Runs, in.Lives, err = workspace.RunsLive(ctx, in.Repo); err != nil {
		return nil, err
	}
	in.PlanChanges, in.Changes = pin.Judge(ctx, in.Repo, in.Contract, in.Experiment)
	c, err := check.Evaluate(ctx, in)
	if err != nil {
		return nil, runDirUsage(err)
	}
	return &checked{Checked: c, repo: in.Repo, contract: in.Contract, exp: in.Experiment, adapter: in.Adapter}, nil
}

// printCheck prints the table and the verdict line.
func printCheck(env *Env, res *check.Result) {
	rows := make([][]string, len(res.Rows))
	for i, row := range res.Rows {
		rows[i] = []string{row.Layer, env.paint(map[check.State]string{check.OK: green, check.Warn: yellow, check.Block: red}[row.State], strings.ToUpper(string(row.State))), row.Detail}
	}
	printTable(env, []string{"LAYER", "STATE", "DETAIL"}, rows)
	answer := map[bool]string{true: env.paint(green, "YES"), false: env.paint(red, "NO")}[res.Safe]
	fmt.Fprintf(env.Stdout, "SAFE TO RUN: %s — %d blocker%s · %d warning%s\n", answer, res.Blockers, plural(res.Blockers), res.Warnings, plural(res.Warnings))
}

func printNext(env *Env, next []string) {
	fmt.Fprintln(env.Stdout, "next:")
	for i, n := range next {
		fmt.Fprintf(env.Stdout, "  %d. %s\n", i+1, n)
	}
}

// runDirUsage makes a --run-dir template that cannot be filled, or a
// --seed the experiment does not run, a usage error.
func runDirUsage(err error) error {
	var rd *launch.RunDirError
	var se *check.SeedError
	switch {
	case errors.As(err, &rd):
		return usagef("--run-dir %v", rd.Err)
	case errors.As(err, &se):
		return &UsageError{Err: se}
	}
	return err
}
