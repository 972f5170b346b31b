package cli

import (
	"context"
	"errors"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/digest"
	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/progress"
	"github.com/rlxp/rlxp/internal/scoring"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
)

type scoreOptions struct {
	root, runDir, format  string
	sources               []string
	dryRun, partial, json bool
}

func newScoreCmd() *Command {
	var o scoreOptions
	fs := pflag.NewFlagSet("score", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.StringVar(&o.runDir, "run-dir", "", "each seed's run directory, a `TEMPLATE` with {experiment} and {seed} (default: from .rlxp/runs/*/run.json)")
	fs.StringArrayVar(&o.sources, "source", nil, "metric source path `NAME=TEMPLATE`, overriding adapter.yaml (repeatable)")
	addFormatFlag(fs, &o.format)
	fs.BoolVar(&o.dryRun, "dry-run", false, "score and print, but do not append to the ledger")
	fs.BoolVar(&o.partial, "partial", false, "score runs that did not finish (stopped, failed, still running); the entry is marked partial")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp score EXPERIMENT [--run-dir TEMPLATE] [--source NAME=TEMPLATE]... [--format FORMAT] [--dry-run] [--root DIR] [--json]",
		Short:     "score an experiment's runs by the contract and append the result to the ledger",
		Long:      manual.Page("score"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runScore(ctx, env, &o, args)
		},
	}
}

func runScore(ctx context.Context, env *Env, o *scoreOptions, args []string) error {
	if len(args) != 1 {
		return usagef("score takes one experiment ID")
	}
	id, err := argID(args[0])
	if err != nil {
		return err
	}
	format, err := parseFormatFlag(o.format)
	if err != nil {
		return err
	}
	r, l, err := openContract(env, o.root)
	if err != nil {
		return err
	}
	set, err := workspace.Experiments(r)
	if err != nil {
		return err
	}
	ad, err := loadAdapter(r)
	if err != nil {
		return err
	}
	recs, err := workspace.Runs(ctx, r)
	if err != nil {
		return err
	}
	spec := scoring.Spec{
		Repo: r, Contract: l, Experiments: set, Experiment: id, Adapter: ad,
		RunDir: o.runDir, Sources: o.sources, Format: format, Runs: recs, Partial: o.partial,
		Cache: digest.OpenDefault(env.Getenv),
	}
	var bar *progress.Bar
	defer func() { bar.Finish() }()
	if !o.json {
		spec.Progress = func(total int64) scoring.Progress {
			bar = progress.Bytes(env.Stderr, total, "score "+id)
			return bar
		}
	}
	scored, err := scoring.Read(ctx, spec)
	if ue := (*scoring.UsageError)(nil); errors.As(err, &ue) {
		return &UsageError{Err: ue.Err}
	} else if err != nil {
		return err
	}
	lock, err := lockRepo(env, r)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	body, appended, err := scoring.Record(r.Path(state.Ledger), scored, o.dryRun, env.Now())
	if err != nil {
		return err
	}
	for _, w := range body.Warnings {
		warnf(env, "%s", w)
	}
	if o.json {
		if err := writeJSON(env.Stdout, scoring.JSON(body, appended, o.dryRun)); err != nil {
			return err
		}
	} else {
		colors := map[string]string{"good": green, "bad": red, "unsure": yellow}
		scoring.Text{
			Table: func(header []string, rows [][]string) { printTable(env, header, rows) },
			Paint: func(sense, word string) string { return env.paint(colors[sense], word) },
		}.Write(env.Stdout, body, appended)
	}
	if body.Negative() {
		return errNegative
	}
	return nil
}
