package cli

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/dashboard"
	rlxpreport "github.com/rlxp/rlxp/internal/report"
	"github.com/rlxp/rlxp/internal/state"
)

type reportOptions struct {
	root  string
	check bool
	plots bool
	json  bool
}

func newReportCmd() *Command {
	var o reportOptions
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.BoolVar(&o.check, "check", false, "write nothing; exit 3 when report.md is out of date (for CI)")
	fs.BoolVar(&o.plots, "plots", false, "also draw learning curves as SVG files in .rlxp/plots/ and link them")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp report [--root DIR] [--check] [--plots] [--json]",
		Short:     "regenerate .rlxp/report.md from the contract, experiments, ledger and runs",
		Long: `Report regenerates the generated blocks of .rlxp/report.md from the state
rlxp keeps: a task card from the contract's task section; each contract
section with its approval state; the budget (what runs spent, what the
seeds of approved experiments not run yet reserve, what is left); the
experiments with their status, runs and latest verdict; a leaderboard of
the latest ledger entry of each experiment (primary mean ± 95% CI, seeds,
delta against the baseline with its p-value, guardrails, verdict), best
first by the primary metric's goal, with the baseline marked; the runs as
their run.json records them (finished, failed, stopped at budget, in
flight); and the next steps the state calls for.

A generated block is the lines between a line
  <!-- rlxp:generated:begin -->
and a line
  <!-- rlxp:generated:end -->
and holds the whole report. A begin marker may name one part instead
(task, contract, budget, experiments, leaderboard, runs or next), e.g.
<!-- rlxp:generated:begin leaderboard -->, so that hand-written text can sit
between the parts. Everything outside the blocks, the marker lines
included, is kept byte for byte. A report.md whose markers are missing,
malformed, unbalanced, nested or repeated is refused with the line at
fault, and nothing is written.

--plots also draws the learning curves of the primary metric and of each
guardrail, one SVG file per metric in .rlxp/plots/: per experiment the mean
of its seeds (each seed's latest run) with a shaded 95% confidence band and
each seed as a faint line, the baseline in black; a metric logged once per
run as dots with the mean and its interval. Runs are read from the metric
sources adapter.yaml declares, at most 500 points each; the leaderboard
links the charts. The dashboard draws the same groups.

The same state always gives the same bytes: the report holds no time but
those the state records, and a fixed order. --check writes nothing and
exits 3 when report.md (or, with --plots, a chart) differs from what
report would write, so that CI
can insist on a current report. The file is replaced atomically, under the
state lock.

EXIT STATUS
  0  written, or already up to date
  1  a state file is missing or malformed, or report.md's markers are
     broken; nothing is written
  2  usage error
  3  --check: report.md is out of date
  4  another rlxp process holds the lock`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runReport(ctx, env, &o, args)
		},
	}
}

func runReport(ctx context.Context, env *Env, o *reportOptions, args []string) error {
	if len(args) > 0 {
		return usagef("report takes no arguments (use --root DIR)")
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	// Says how to create .rlxp when it is missing, before the lock would.
	if _, err := r.Read(state.Report); err != nil {
		return err
	}
	if !o.check {
		lock, err := lockRepo(env, r)
		if err != nil {
			return err
		}
		defer lock.Unlock()
	}
	var charts rlxpreport.Charts
	if o.plots {
		charts = dashboard.ReportCharts(r, env.Now)
	}
	res, err := rlxpreport.Update(ctx, r, o.check, charts, func(w string) { warnf(env, "%s", w) })
	if err != nil {
		return err
	}
	return answer(env, o.json, res, res.Text(), res.Action == rlxpreport.OutOfDate)
}
