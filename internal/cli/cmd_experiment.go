package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/plaintext"
	"github.com/rlxp/rlxp/internal/propose"
	"github.com/rlxp/rlxp/internal/state"
)

func newExperimentCmd() *Command {
	return &Command{
		UsageLine: "rlxp experiment <subcommand>",
		Short:     "propose, list, approve and reject experiments",
		Long:      manual.Page("experiment"),
		Commands:  []Sub{{"add", newExperimentAddCmd}, {"list", newExperimentListCmd}, {"show", newExperimentShowCmd}, {"approve", newExperimentApproveCmd}, {"reject", newExperimentRejectCmd}},
	}
}

type experimentAddOptions struct {
	root       string
	params     []string
	seeds      string
	hypothesis string
	category   string
	files      []string
	wallClock  string
	json       bool
}

func newExperimentAddCmd() *Command {
	var o experimentAddOptions
	fs := pflag.NewFlagSet("add", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.StringArrayVar(&o.params, "param", nil, "parameter `NAME=VALUE` to set (repeatable)")
	fs.StringVar(&o.seeds, "seeds", "", "comma-separated training `SEEDS` (default: the baseline's)")
	fs.StringVar(&o.hypothesis, "hypothesis", "", "what the experiment should show and why (`TEXT`)")
	fs.StringVar(&o.category, "category", "", "change `CATEGORY`, one the scope allows")
	fs.StringArrayVar(&o.files, "file", nil, "repository `PATH` the experiment changes (repeatable)")
	fs.StringVar(&o.wallClock, "wall-clock", "", "expected wall-clock per run, e.g. 20m (default: the budget's maximum)")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp experiment add ID [--param NAME=VALUE]... [--seeds 0,1,2] [--hypothesis TEXT] [--category C] [--file PATH]... [--wall-clock DUR] [--root DIR] [--json]",
		Short:     "propose an experiment inside the approved scope",
		Long:      manual.Page("experiment add"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runExperimentAdd(ctx, env, &o, args)
		},
	}
}

func runExperimentAdd(ctx context.Context, env *Env, o *experimentAddOptions, args []string) error {
	if len(args) != 1 {
		return usagef("add takes one experiment ID")
	}
	id, err := argID(args[0])
	if err != nil {
		return err
	}
	var seeds []int
	if o.seeds != "" {
		if seeds, err = experiment.ParseSeeds(o.seeds); err != nil {
			return &UsageError{Err: err}
		}
	}
	if err := plaintext.Check("--hypothesis", o.hypothesis); err != nil {
		return usagef("%v", err)
	}
	if o.wallClock != "" {
		if d, err := time.ParseDuration(o.wallClock); err != nil || d <= 0 {
			return usagef("invalid --wall-clock %q: use a duration such as 20m or 1h30m", o.wallClock)
		}
	}
	r, lock, err := openLocked(env, o.root)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	e, err := propose.Add(ctx, r, experiment.Draft{ID: id, Category: o.category, Hypothesis: o.hypothesis, WallClock: o.wallClock,
		Params: o.params, Files: o.files, Seeds: seeds, CreatedAt: timestamp(env)})
	var pe *experiment.ParamSyntaxError
	if errors.As(err, &pe) {
		return &UsageError{Err: err}
	} else if err != nil {
		return err
	}
	if o.json {
		return writeJSON(env.Stdout, e.View())
	}
	fmt.Fprintf(env.Stdout, "added experiment %s (proposed): %s\n", e.ID, e.Describe())
	fmt.Fprintf(env.Stdout, "next: a human approves it with 'rlxp experiment approve %s'\n", e.ID)
	return nil
}

// argID checks an id given on the command line: a bad one is a usage error.
func argID(id string) (string, error) {
	if err := state.ValidID(id); err != nil {
		return "", &UsageError{Err: err}
	}
	return id, nil
}
