package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/manual"
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
		Long:      manual.Page("propose"),
		Flags:     fs,
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
