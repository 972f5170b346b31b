package cli

import (
	"context"
	"errors"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/check"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/preflight/builtin"
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
)

func newPreflightCmd() *Command {
	var o checkOptions
	fs := pflag.NewFlagSet("preflight", pflag.ContinueOnError)
	addRunFlags(fs, &o)
	return &Command{
		UsageLine: "rlxp preflight EXPERIMENT [--seed N] [--run-dir TEMPLATE] [--root DIR] [--json]",
		Short:     "rlxp's own preflight: what would fail before a GPU is touched",
		Long:      builtin.Manual(),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runPreflight(ctx, env, &o, args)
		},
	}
}

func runPreflight(ctx context.Context, env *Env, o *checkOptions, args []string) error {
	if len(args) != 1 {
		return usagef("preflight takes one experiment ID")
	}
	in, err := loadCheck(env, o, args[0])
	if err != nil {
		if in, err = baselineDraft(env, o, args[0], err); err != nil {
			return err
		}
	}
	rep, err := check.OwnPreflight(ctx, in, o.seed, 1, false)
	if err != nil {
		return runDirUsage(err)
	}
	if o.json {
		err = writeJSON(env.Stdout, rep)
	} else {
		rep.WriteLines(env.Stdout, env.Stderr)
	}
	return errors.Join(err, rep.Err())
}

// baselineDraft lets the preflight read the drafted adapter before the
// baseline is recorded in experiments.yaml: the contract's baseline
// experiment with no parameter changes, on the seed asked for (else 0).
// Any other failure to load is returned as it was.
func baselineDraft(env *Env, o *checkOptions, id string, loadErr error) (check.Input, error) {
	r, c, err := openContract(env, o.root)
	if err != nil {
		return check.Input{}, loadErr
	}
	// An incomplete baseline section is not decoded; its name still is.
	var raw struct {
		Baseline struct{ Experiment string } `json:"baseline"`
	}
	if c.File.Decode(&raw) != nil || id != raw.Baseline.Experiment {
		return check.Input{}, loadErr
	}
	set, err := workspace.Experiments(r)
	if err != nil {
		return check.Input{}, loadErr
	}
	if _, err := set.Get(id); err == nil {
		return check.Input{}, loadErr
	}
	seed := max(o.seed, 0)
	warnf(env, "%s is not in %s yet: this reads the baseline's command with no parameter changes, seed %d", id, r.Show(state.Experiments), seed)
	in := check.Input{Repo: r, Contract: c, Experiments: set, Experiment: &experiment.Experiment{ID: id, Seeds: []int{seed}},
		Seed: o.seed, RunDir: o.runDir, Timeout: o.timeout, Host: probe.System()}
	in.Adapter, err = loadAdapter(r)
	return in, err
}
