package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/propose"
)

type proposeOptions struct {
	root     string
	n        int
	strategy string
	seeds    string
	dryRun   bool
	json     bool
}

func newProposeCmd() *Command {
	var o proposeOptions
	fs := pflag.NewFlagSet("propose", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.IntVar(&o.n, "n", 0, fmt.Sprintf("propose at most `K` experiments (default %d; a halving plan starts up to 8 configurations)", propose.DefaultN))
	fs.StringVar(&o.strategy, "strategy", propose.Auto, "`STRATEGY`: "+strings.Join(propose.Strategies(), ", "))
	fs.StringVar(&o.seeds, "seeds", "", "comma-separated training `SEEDS` of each proposal (default: the baseline's)")
	fs.BoolVar(&o.dryRun, "dry-run", false, "show the proposals without writing them")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp propose [--n K] [--strategy auto|local|space-filling|halving] [--seeds 0,1,2] [--dry-run] [--root DIR] [--json]",
		Short:     "propose the next experiments inside the approved scope and the budget left",
		Long: `Propose suggests the next experiments from the contract's scope, the
ledger's scores and the budget left, and writes them to
.rlxp/experiments.yaml with status proposed. It never approves anything: a
human reviews each one ('rlxp experiment show ID') and approves it ('rlxp
experiment approve ID') or rejects it.

Strategies:
  local          one-factor steps around the best experiment so far by the
                 primary metric's mean (the baseline when nothing beats it):
                 each parameter a step up and a step down, ×2 and ÷2 on a
                 log scale (a positive range spanning two decades or more),
                 a tenth of the range on a linear one, the neighbouring
                 choice, the other boolean. A step already scored is
                 halved; one still awaiting its score stops that
                 direction. Parameters that neither the best experiment
                 nor the baseline's entry in experiments.yaml sets are left
                 alone.
  space-filling  points of a scrambled Halton sequence over every
                 parameter (log scale where it applies), the same points
                 for the same scope; a finite scope is enumerated to the end.
  halving        successive halving: rung 0 runs n configurations at a
                 fraction of the per-run wall-clock allowance, and the
                 better half of each rung continues at twice the length up
                 to the full allowance. The plan's rungs and cost are shown;
                 only rung 0 is proposed.
  auto           halving when the runs left cover three full-length
                 rounds; otherwise space-filling until something beyond the
                 baseline is scored, then local (space-filling again once
                 every local step was tried).

Settings already in experiments.yaml, whatever their status, are never
proposed again. Each proposal passes the gate's scope and budget checks
together with the proposals before it and the reservations of approved
experiments, so a round that is approved in full still fits the budget.
Costs are estimated from the finished runs of the closest experiment in
.rlxp/runs, else from the wall-clock allowance; the basis is stated.

EXIT STATUS
  0  proposals written (or shown, with --dry-run)
  1  a state file is missing or malformed, or the contract is incomplete
  2  usage error
  3  nothing fits: the budget or the scope is exhausted (the reason is
     printed)
  4  another rlxp process holds the lock`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runPropose(ctx, env, &o, args)
		},
	}
}

func runPropose(ctx context.Context, env *Env, o *proposeOptions, args []string) error {
	if len(args) > 0 {
		return usagef("propose takes no arguments")
	}
	if o.n < 0 {
		return usagef("invalid --n %d: want a positive number", o.n)
	}
	if !slices.Contains(propose.Strategies(), o.strategy) {
		return usagef("invalid --strategy %q: want one of %s", o.strategy, strings.Join(propose.Strategies(), ", "))
	}
	var seeds []int
	if o.seeds != "" {
		var err error
		if seeds, err = experiment.ParseSeeds(o.seeds); err != nil {
			return &UsageError{Err: err}
		}
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	if !o.dryRun {
		lock, err := lockRepo(env, r)
		if err != nil {
			return err
		}
		defer lock.Unlock()
	}
	out, err := propose.Round(ctx, r, propose.Request{Strategy: o.strategy, N: o.n, Seeds: seeds, DryRun: o.dryRun, CreatedAt: timestamp(env)})
	if err != nil {
		return err
	}
	if o.json {
		if err := writeJSON(env.Stdout, out); err != nil {
			return err
		}
	} else {
		out.WriteText(env.Stdout, out.File, o.dryRun, func(h []string, rows [][]string) { printTable(env, h, rows) })
	}
	if len(out.Result.Proposals) == 0 {
		return errNegative
	}
	return nil
}
