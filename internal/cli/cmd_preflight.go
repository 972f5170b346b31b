package cli

import (
	"context"
	"errors"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/check"
	"github.com/rlxp/rlxp/internal/preflight/builtin"
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
		return err
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
