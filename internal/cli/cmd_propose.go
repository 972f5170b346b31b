package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/budget"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/propose"
	"github.com/rlxp/rlxp/internal/state"
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

// proposalView is a proposal as JSON: the experiment and its cost.
type proposalView struct {
	experimentView
	Cost propose.Cost `json:"cost"`
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
		if seeds, err = parseSeeds(o.seeds); err != nil {
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
	l, err := loadContract(r)
	if err != nil {
		return err
	}
	if err := requireSections(l, "metrics", "scope", "budget", "hardware"); err != nil {
		return err
	}
	if seeds == nil {
		if err := requireSections(l, "baseline"); err != nil {
			return fmt.Errorf("no --seeds given, and the baseline seeds cannot be used: %w", err)
		}
	}
	set, err := loadExperiments(r)
	if err != nil {
		return err
	}
	recs, err := loadRuns(ctx, r)
	if err != nil {
		return err
	}
	spend, err := budget.Sum(recs, l.Contract.Budget.MaxRunWallClock.Value())
	if err != nil {
		return err
	}
	entries, err := ledger.File{Path: r.Path(state.Ledger), Name: r.Show(state.Ledger)}.ReadAll()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	res, err := propose.Propose(propose.Input{
		Contract: l, Experiments: set, Ledger: entries, Runs: recs, Spend: spend,
		Strategy: o.strategy, N: o.n, Seeds: seeds,
	})
	if err != nil {
		return err
	}
	written := false
	if len(res.Proposals) > 0 && !o.dryRun {
		for _, p := range res.Proposals {
			p.Experiment.CreatedAt = timestamp(env)
			if err := set.Add(p.Experiment, l.Contract.Scope); err != nil {
				return fmt.Errorf("proposal %s: %w", p.Experiment.ID, err)
			}
		}
		if err := saveExperiments(r, set); err != nil {
			return err
		}
		written = true
	}
	if o.json {
		views := make([]proposalView, len(res.Proposals))
		for i, p := range res.Proposals {
			v := experimentJSON(p.Experiment)
			v.Schema = ""
			views[i] = proposalView{v, p.Cost}
		}
		out := struct {
			Schema    string         `json:"schema"`
			DryRun    bool           `json:"dry_run"`
			Written   bool           `json:"written"`
			File      string         `json:"file"`
			Proposals []proposalView `json:"proposals"`
			propose.Result
		}{"rlxp.propose/v1", o.dryRun, written, r.Show(state.Experiments), views, res}
		if err := writeJSON(env.Stdout, out); err != nil {
			return err
		}
	} else {
		printProposals(env, r.Show(state.Experiments), res, o.dryRun)
	}
	if len(res.Proposals) == 0 {
		return errNegative
	}
	return nil
}

func printProposals(env *Env, file string, res propose.Result, dryRun bool) {
	w := env.Stdout
	fmt.Fprintf(w, "strategy: %s (%s)\n", res.Strategy, res.Why)
	if res.Best != nil {
		fmt.Fprintf(w, "best so far: %s (%s, %s)\n", res.Best.Experiment, res.Best.Summary(), res.Best.Verdict)
	}
	fmt.Fprintf(w, "budget: %d runs and %.2f GPU-hours left", res.Budget.RunsLeft, res.Budget.GPUHoursLeft)
	if len(res.Proposals) > 0 {
		fmt.Fprintf(w, "; these proposals reserve %d runs and %.2f GPU-hours once approved", res.Budget.RunsProposed, res.Budget.GPUHoursProposed)
	}
	fmt.Fprintln(w)
	for _, p := range res.Proposals {
		e, c := p.Experiment, p.Cost
		fmt.Fprintf(w, "\n%s (%s)\n", e.ID, e.Status)
		var params []string
		for _, it := range e.Params {
			params = append(params, fmt.Sprintf("%v=%v", it.Key, it.Value))
		}
		fmt.Fprintf(w, "  params      %s\n", strings.Join(params, " "))
		fmt.Fprintf(w, "  seeds       %s, wall-clock %s per run\n", seedList(e.Seeds), e.WallClock)
		fmt.Fprintf(w, "  category    %s\n", e.Category)
		fmt.Fprintf(w, "  hypothesis  %s\n", e.Hypothesis)
		fmt.Fprintf(w, "  cost        %d runs, ~%.2f GPU-hours, ~%s elapsed (%.2f GPU-hours reserved)\n", c.Runs, c.GPUHours, c.Elapsed, c.ReservedGPUHours)
		fmt.Fprintf(w, "  basis       %s\n", c.Basis)
	}
	if pl := res.Plan; pl != nil {
		fmt.Fprintf(w, "\nplan: successive halving on %s\n", pl.Metric)
		rows := make([][]string, len(pl.Rungs))
		for i, rg := range pl.Rungs {
			what := "promote the best by hand once the rung before is scored"
			if i == 0 {
				what = "proposed now"
			}
			rows[i] = []string{fmt.Sprintf("rung %d", i), fmt.Sprintf("%d config%s", rg.Configs, plural(rg.Configs)), rg.WallClock,
				fmt.Sprintf("%d runs", rg.Runs), fmt.Sprintf("%.2f GPU-hours", rg.GPUHours), what}
		}
		printTable(env, []string{"RUNG", "CONFIGS", "WALL-CLOCK", "RUNS", "GPU-HOURS", ""}, rows)
		fmt.Fprintf(w, "in all: %d runs, %.2f GPU-hours if every rung runs\n", pl.Runs, pl.GPUHours)
	}
	if len(res.Notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range res.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
	}
	if len(res.Proposals) == 0 {
		fmt.Fprintf(w, "\nNOTHING FITS: %s\n", res.Reason)
		return
	}
	if res.Reason != "" {
		fmt.Fprintf(w, "\n%s\n", res.Reason)
	}
	fmt.Fprintln(w)
	if dryRun {
		fmt.Fprintf(w, "dry run: nothing written to %s\n", file)
	} else {
		fmt.Fprintf(w, "wrote %d proposed experiment%s to %s; none is approved\n", len(res.Proposals), plural(len(res.Proposals)), file)
	}
	fmt.Fprintln(w, "next: a human reviews each with 'rlxp experiment show ID'")
	fmt.Fprintln(w, "      and approves it with 'rlxp experiment approve ID' (or rejects it with 'rlxp experiment reject ID')")
}
