package propose

import (
	"fmt"
	"io"
	"strings"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
)

// Schema is the schema of 'propose --json'.
const Schema = "rlxp.propose/v1"

// Record adds the proposals to set, stamped with createdAt, each checked
// against the scope once more as it is added.
func (res Result) Record(set *experiment.Set, scope contract.Scope, createdAt string) error {
	for _, p := range res.Proposals {
		p.Experiment.CreatedAt = createdAt
		if err := set.Add(p.Experiment, scope); err != nil {
			return fmt.Errorf("proposal %s: %w", p.Experiment.ID, err)
		}
	}
	return nil
}

// An Output is a round as JSON: the result, whether it was written to
// file, and each proposal as an experiment with its cost.
type Output struct {
	Schema    string         `json:"schema"`
	DryRun    bool           `json:"dry_run"`
	Written   bool           `json:"written"`
	File      string         `json:"file"`
	Proposals []ProposalView `json:"proposals"`
	Result
}

// A ProposalView is a proposal as JSON: the experiment and its cost.
type ProposalView struct {
	experiment.View
	Cost Cost `json:"cost"`
}

// Output is the round as JSON.
func (res Result) Output(file string, dryRun, written bool) Output {
	views := make([]ProposalView, len(res.Proposals))
	for i, p := range res.Proposals {
		v := p.Experiment.View()
		v.Schema = ""
		views[i] = ProposalView{v, p.Cost}
	}
	return Output{Schema, dryRun, written, file, views, res}
}

// WriteText writes the round as text to w; table writes the halving plan's
// rungs (the caller's table form).
func (res Result) WriteText(w io.Writer, file string, dryRun bool, table func(header []string, rows [][]string)) {
	fmt.Fprintf(w, "strategy: %s (%s)\n", res.Strategy, res.Why)
	if res.Best != nil {
		fmt.Fprintf(w, "best so far: %s (%s, %s)\n", res.Best.Experiment, res.Best.Summary(), res.Best.Verdict)
	}
	cpu := res.Budget.CPUOnly
	if cpu {
		fmt.Fprintf(w, "budget: %d runs left, on CPU", res.Budget.RunsLeft)
	} else {
		fmt.Fprintf(w, "budget: %d runs and %.2f GPU-hours left", res.Budget.RunsLeft, res.Budget.GPUHoursLeft)
	}
	switch {
	case len(res.Proposals) > 0 && cpu:
		fmt.Fprintf(w, "; these proposals reserve %d runs once approved", res.Budget.RunsProposed)
	case len(res.Proposals) > 0:
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
		fmt.Fprintf(w, "  seeds       %s, wall-clock %s per run\n", experiment.SeedList(e.Seeds), e.WallClock)
		fmt.Fprintf(w, "  category    %s\n", e.Category)
		fmt.Fprintf(w, "  hypothesis  %s\n", e.Hypothesis)
		if cpu {
			fmt.Fprintf(w, "  cost        %d runs, ~%s elapsed\n", c.Runs, c.Elapsed)
		} else {
			fmt.Fprintf(w, "  cost        %d runs, ~%.2f GPU-hours, ~%s elapsed (%.2f GPU-hours reserved)\n", c.Runs, c.GPUHours, c.Elapsed, c.ReservedGPUHours)
		}
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
		table([]string{"RUNG", "CONFIGS", "WALL-CLOCK", "RUNS", "GPU-HOURS", ""}, rows)
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
