package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
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
		Long: `List shows every experiment: its status (proposed, approved, rejected,
running, done, failed), whether its approval is current, and what it changes.

EXIT STATUS
  0  listed
  1  experiments.yaml is missing or malformed
  2  usage error`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			if len(args) > 0 {
				return usagef("list takes no arguments")
			}
			r, err := openRepo(env, o.root)
			if err != nil {
				return err
			}
			set, err := loadExperiments(r)
			if err != nil {
				return err
			}
			if o.json {
				views := make([]experimentView, len(set.Experiments))
				for i, e := range set.Experiments {
					views[i] = experimentJSON(e)
					views[i].Schema = ""
				}
				return writeJSON(env.Stdout, struct {
					Schema      string           `json:"schema"`
					Experiments []experimentView `json:"experiments"`
				}{"rlxp.experiments/v1", views})
			}
			rows := [][]string{}
			for _, e := range set.Experiments {
				rows = append(rows, []string{e.ID, e.Status, e.ApprovalState(), e.Category, describeExperiment(e)})
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
		Long: `Show prints one experiment: parameters, files, seeds, hypothesis, and who
approved or rejected it. 'rlxp gate ID' says whether it may launch.

EXIT STATUS
  0  shown
  1  no such experiment, or experiments.yaml is missing or malformed
  2  usage error (including an invalid id)`,
		Flags: fs,
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
			set, err := loadExperiments(r)
			if err != nil {
				return err
			}
			e, err := set.Get(id)
			if err != nil {
				return err
			}
			if o.json {
				return writeJSON(env.Stdout, experimentJSON(e))
			}
			w := env.Stdout
			fmt.Fprintf(w, "experiment  %s\n", e.ID)
			fmt.Fprintf(w, "status      %s (approval %s)\n", e.Status, e.ApprovalState())
			if e.Category != "" {
				fmt.Fprintf(w, "category    %s\n", e.Category)
			}
			if e.Hypothesis != "" {
				fmt.Fprintf(w, "hypothesis  %s\n", e.Hypothesis)
			}
			for _, it := range e.Params {
				fmt.Fprintf(w, "param       %v=%v\n", it.Key, it.Value)
			}
			if len(e.Files) > 0 {
				fmt.Fprintf(w, "files       %s\n", strings.Join(e.Files, ", "))
			}
			fmt.Fprintf(w, "seeds       %s\n", seedList(e.Seeds))
			if e.WallClock != "" {
				fmt.Fprintf(w, "wall-clock  %s per run\n", e.WallClock)
			}
			fmt.Fprintf(w, "digest      %s\n", e.Digest())
			if e.Approval != nil {
				fmt.Fprintf(w, "approved    by %s at %s (interactive: %t)\n", e.Approval.By, e.Approval.At, e.Approval.Interactive)
			}
			if e.Rejection != nil {
				fmt.Fprintf(w, "rejected    by %s at %s: %s\n", e.Rejection.By, e.Rejection.At, e.Rejection.Reason)
			}
			return nil
		},
	}
}
