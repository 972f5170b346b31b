package cli

import (
	"context"

	"github.com/rlxp/rlxp/internal/workspace"
	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/manual"
)

type experimentListOptions struct {
	root string
	json bool
}

func newExperimentListCmd() *Command {
	var o experimentListOptions
	fs := pflag.NewFlagSet("list", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp experiment list [--root DIR] [--json]",
		Short:     "list experiments with their status and approval",
		Long:      manual.Page("experiment list"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			if len(args) > 0 {
				return usagef("list takes no arguments")
			}
			r, err := openRepo(env, o.root)
			if err != nil {
				return err
			}
			set, err := workspace.ExperimentsScored(r)
			if err != nil {
				return err
			}
			if o.json {
				return writeJSON(env.Stdout, struct {
					Schema      string            `json:"schema"`
					Experiments []experiment.View `json:"experiments"`
				}{"rlxp.experiments/v1", experiment.Views(set.Experiments)})
			}
			rows := [][]string{}
			for _, e := range set.Experiments {
				rows = append(rows, []string{e.ID, e.Shown(), e.ApprovalState(), e.Category, e.Describe()})
			}
			printTable(env, []string{"ID", "STATUS", "APPROVAL", "CATEGORY", "CHANGES"}, rows)
			return nil
		},
	}
}

func newExperimentShowCmd() *Command {
	var o experimentListOptions
	fs := pflag.NewFlagSet("show", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp experiment show ID [--root DIR] [--json]",
		Short:     "show one experiment in full",
		Long:      manual.Page("experiment show"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			if len(args) != 1 {
				return usagef("show takes one experiment ID")
			}
			id, err := argID(args[0])
			if err != nil {
				return err
			}
			r, err := openRepo(env, o.root)
			if err != nil {
				return err
			}
			set, err := workspace.ExperimentsScored(r)
			if err != nil {
				return err
			}
			e, err := set.Get(id)
			if err != nil {
				return err
			}
			return answer(env, o.json, e.View(), e.Text(), false)
		},
	}
}
