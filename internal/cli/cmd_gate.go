package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/gate"
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
		Long: `Gate answers "may this experiment launch?" from the contract and the
experiment alone. It is open only when all seven contract sections are
approved and current, the experiment is approved and current, every
parameter, file and category is inside the scope (and every file changed
since the baseline's scored commit is too), no training seed is
inside the held-out evaluation seeds (evaluation.held_out_seeds, or the
smallest to the largest evaluation seed), and the budget has room:
runs left, GPU-hours left (after what runs/ has spent and what other
approved experiments have reserved), and a per-run wall-clock within the
maximum. The runs needed are counted as check counts them: the seeds
without a clean finish, or all of them again when each has one. Approvals
are read from .rlxp/approvals.jsonl alone. Every unmet condition is listed.

Without EXPERIMENT only the contract conditions are checked.

EXIT STATUS
  0  open
  1  a state file is missing or malformed, or no such experiment
  2  usage error
  3  closed`,
		Flags: fs,
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
