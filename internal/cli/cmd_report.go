package cli

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/dashboard"
	"github.com/rlxp/rlxp/internal/manual"
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
		Long:      manual.Page("report"),
		Flags:     fs,
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
