package cli

import (
	"context"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/logdiff"
	"github.com/rlxp/rlxp/internal/manual"
)

type ledgerDiffOptions struct {
	root string
	base string
	json bool
}

func newLedgerDiffCmd() *Command {
	var o ledgerDiffOptions
	fs := pflag.NewFlagSet("diff", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.StringVar(&o.base, "base", "", "git `REF` of the base (for a pull request: the target branch, e.g. origin/main)")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp ledger diff --base REF [--root DIR] [--json]",
		Short:     "check that the ledger only grew since a git ref and render the new entries",
		Long:      manual.Page("ledger diff"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runLedgerDiff(ctx, env, &o, args)
		},
	}
}

func runLedgerDiff(ctx context.Context, env *Env, o *ledgerDiffOptions, args []string) error {
	if len(args) > 0 {
		return usagef("diff takes no arguments (use --base REF)")
	}
	if o.base == "" {
		return usagef("diff needs --base REF, e.g. --base origin/main")
	}
	if strings.HasPrefix(o.base, "-") || strings.ContainsAny(o.base, ": \t\n") {
		return usagef("invalid --base %q: want a git ref such as origin/main", o.base)
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	res, err := logdiff.Diff(ctx, r, o.base)
	if err != nil {
		return err
	}
	return answer(env, o.json, res, res.Text(), !res.OK)
}
