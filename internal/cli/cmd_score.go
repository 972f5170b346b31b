package cli

import (
	"context"
	"errors"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/digest"
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
		Long: `Score applies the contract's evaluation protocol to each seed of an
experiment: it reads the primary metric and every guardrail from the metric
sources adapter.yaml declares (paths may use {run_dir}, {seed} and
{experiment}), aggregates each seed's series as the contract says (last,
max, min, mean_last_n, at_step), summarises across seeds (mean, std, n, 95%
CI), compares with the baseline's latest ledger entry (Welch's t-test, or
"too few seeds"), checks the guardrails, and decides the verdict:
baseline, improved, regressed, inconclusive, guardrail_violated or invalid.

A seed whose value is missing, NaN or infinite makes the result invalid,
with the reason; never a silent zero. A tag found in no seed's file is an
error instead (most likely a wrong name), with the closest tags suggested.
A score says what it rests on. Each seed's run is the latest run record
of that seed (or the one for the --run-dir given); a run that was stopped,
failed, was lost or is still running is not complete, and the verdict is
invalid unless --partial is given, which the entry records. Seeds whose
sources are the same file or the same content are invalid ("seeds share
one source"). Metric sources must be regular files (or an MLflow run
directory): a device, a pipe or a socket is refused.

The entry, with every source file's format, sha256, point count and
whether an rlxp launch produced it, each seed's run id, how it ended and
its plan digest, the contract and config digests and the git commit, is
appended to .rlxp/ledger.jsonl under the lock. Digests and aggregates of
unchanged files are remembered in $XDG_CACHE_HOME/rlxp/digests (by device,
inode, size, modification and change times): a re-score reads none of
them again, a changed file is always read and hashed again.

EXIT STATUS
  0  scored: baseline, improved or inconclusive
  1  a file is missing, unreadable or corrupt, a tag is unknown, or a state
     file is malformed; nothing is appended
  2  usage error
  3  scored, and the answer is negative: regressed, guardrail_violated or
     invalid
  4  another rlxp process holds the lock`,
		Flags: fs,
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
