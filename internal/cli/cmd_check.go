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
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
)

type checkOptions struct {
	root    string
	seeds   []int // the seeds to launch; empty: those without a finished run
	seed    int
	runDir  string
	timeout time.Duration
	json    bool
}

func newCheckCmd() *Command {
	var o checkOptions
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.IntVar(&o.seed, "seed", -1, "seed whose run the preflight checks (default: the experiment's first)")
	fs.StringVar(&o.runDir, "run-dir", "runs/{experiment}/seed{seed}", "the run's directory, a `TEMPLATE` with {experiment} and {seed}")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long the repo's preflight may take")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp check EXPERIMENT [--seed N] [--run-dir TEMPLATE] [--timeout DUR] [--root DIR] [--json]",
		Short:     "say whether it is safe to run an experiment right now",
		Long: `Check answers "is it safe to run right now?" in one table of three layers:

  gate       the contract and the experiment (see 'rlxp gate')
  preflight  the repo's own validation: adapter.yaml commands.preflight, with
             {config} {seed} {run_dir} {params} {experiment} filled in; its
             ✓/⚠/✗/⊘ lines are read, and a non-zero exit without a FATAL line
             means the runner died before its preflight. Without one, rlxp's
             own ('rlxp preflight'): options nobody reads, missing paths, an
             unwritable run dir, held-out seeds, GPU counts
  live       GPUs the contract needs and who holds them (another user's
             process is a blocker), declared ports, disk and /dev/shm
             headroom, declared imports in the declared interpreter

Blockers: gate closed, FATAL, runner died, a run in flight or a trainer
of this repo outside rlxp, foreign GPU process, no GPUs visible when the
contract needs some, fewer free GPUs than a run needs (a GPU another
process holds is not free unless the contract's hardware.share_gpus is
true), port in use, missing import. Launch pins the free GPUs found here.
Warnings never flip the answer, and there is no flag that does.

EXIT STATUS
  0  SAFE TO RUN: YES
  1  a state file is missing or malformed, or no such experiment
  2  usage error
  3  SAFE TO RUN: NO`,
		Flags: fs,
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
		if err := writeJSON(env.Stdout, c.Result); err != nil {
			return err
		}
	} else {
		printCheck(env, &c.Result)
		fmt.Fprintln(env.Stdout, "plan:")
		for _, p := range c.Result.Plan {
			fmt.Fprintf(env.Stdout, "  %s\n", p)
		}
		printNext(env, c.Result.Next)
	}
	if !c.Result.Safe {
		return errNegative
	}
	return nil
}

// A checked experiment: the answer, and the state it was read from.
type checked struct {
	*check.Checked
	repo     *state.Repo
	contract *contract.Loaded
	exp      *experiment.Experiment
	adapter  *adapter.Adapter
}

// evaluateCheck loads what check reads and asks it.
func evaluateCheck(ctx context.Context, env *Env, o *checkOptions, arg string) (*checked, error) {
	id, err := argID(arg)
	if err != nil {
		return nil, err
	}
	r, l, err := openContract(env, o.root)
	if err != nil {
		return nil, err
	}
	set, e, err := workspace.Experiment(r, id)
	if err != nil {
		return nil, err
	}
	if s, ok := check.UnknownSeed(e, o.seeds); ok {
		return nil, usagef("--seed %d: experiment %s runs seeds %v", s, e.ID, e.Seeds)
	}
	// Read once: the budget, the seeds left to run and the runs in flight
	// all come from these (and Slurm's answers about them).
	recs, lives, err := workspace.RunsLive(ctx, r)
	if err != nil {
		return nil, err
	}
	data, err := r.Read(state.Adapter)
	if err != nil {
		return nil, err
	}
	ad, err := adapter.Parse(r.Show(state.Adapter), data)
	if err != nil {
		return nil, err
	}
	stale, changes := pinned(ctx, r, l, e)
	c, err := check.Evaluate(ctx, check.Input{
		Repo: r, Contract: l, Experiments: set, Experiment: e, Adapter: ad, Runs: recs, Lives: lives,
		Seeds: o.seeds, Seed: o.seed, RunDir: o.runDir, Timeout: o.timeout, Host: probe.System(),
		PlanChanges: stale, Changes: changes,
		Builtin: builtinPreflight(r, l, ad, e, o.runDir),
	})
	if err != nil {
		return nil, err
	}
	return &checked{Checked: c, repo: r, contract: l, exp: e, adapter: ad}, nil
}

// printCheck prints the table and the verdict line.
func printCheck(env *Env, res *check.Result) {
	rows := make([][]string, len(res.Rows))
	for i, row := range res.Rows {
		rows[i] = []string{row.Layer, env.paint(map[check.State]string{check.OK: green, check.Warn: yellow, check.Block: red}[row.State], strings.ToUpper(string(row.State))), row.Detail}
	}
	printTable(env, []string{"LAYER", "STATE", "DETAIL"}, rows)
	answer := env.paint(green, "YES")
	if !res.Safe {
		answer = env.paint(red, "NO")
	}
	fmt.Fprintf(env.Stdout, "SAFE TO RUN: %s — %d blocker%s · %d warning%s\n", answer, res.Blockers, plural(res.Blockers), res.Warnings, plural(res.Warnings))
}

func printNext(env *Env, next []string) {
	fmt.Fprintln(env.Stdout, "next:")
	for i, n := range next {
		fmt.Fprintf(env.Stdout, "  %d. %s\n", i+1, n)
	}
}

// runDirUsage makes a --run-dir template that cannot be filled a usage
// error.
func runDirUsage(err error) error {
	var rd *launch.RunDirError
	if errors.As(err, &rd) {
		return usagef("--run-dir %v", rd.Err)
	}
	return err
}
