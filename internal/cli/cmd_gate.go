package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/gate"
	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/pin"
)

type gateOptions struct {
	root string
	json bool
}

func newGateCmd() *Command {
	var o gateOptions
	fs := pflag.NewFlagSet("gate", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp gate [EXPERIMENT] [--root DIR] [--json]",
		Short:     "say whether an experiment may launch, and every reason it may not",
		Long:      manual.Page("gate"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runGate(ctx, env, &o, args)
		},
	}
}

func runGate(ctx context.Context, env *Env, o *gateOptions, args []string) error {
	if len(args) > 1 {
		return usagef("gate takes at most one experiment ID")
	}
	if len(args) == 1 {
		if _, err := argID(args[0]); err != nil {
			return err
		}
	}
	r, l, err := openContract(env, o.root)
	if err != nil {
		return err
	}
	in, err := pin.GateInput(ctx, r, l, strings.Join(args, ""))
	if err != nil {
		return err
	}
	a := gate.Evaluate(in)
	if o.json {
		if err := writeJSON(env.Stdout, a); err != nil {
			return err
		}
	} else {
		rows := make([][]string, len(a.Conditions))
		for i, c := range a.Conditions {
			rows[i] = []string{c.Check, env.paint(green, "ok"), c.Detail}
			if !c.OK {
				rows[i][1] = env.paint(red, "UNMET")
			}
		}
		printTable(env, []string{"CHECK", "STATE", "DETAIL"}, rows)
		word, color := "OPEN", green
		if !a.Open {
			word, color = "CLOSED", red
		}
		fmt.Fprintln(env.Stdout, strings.Replace(a.Verdict(), ": "+word, ": "+env.paint(color, word), 1))
	}
	if !a.Open {
		return errNegative
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
