package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/pin"
	"github.com/rlxp/rlxp/internal/plaintext"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
)

type experimentApproveOptions struct {
	root   string
	by     string
	yes    bool
	reason string
	json   bool
}

func newExperimentApproveCmd() *Command {
	var o experimentApproveOptions
	fs := pflag.NewFlagSet("approve", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	addApproverFlags(fs, &o.by, &o.yes)
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp experiment approve ID [--by NAME] [--yes] [--root DIR] [--json]",
		Short:     "record a human's approval of an experiment",
		Long:      manual.Page("experiment approve"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runExperimentApprove(ctx, env, &o, args)
		},
	}
}

func runExperimentApprove(ctx context.Context, env *Env, o *experimentApproveOptions, args []string) error {
	if len(args) != 1 {
		return usagef("approve takes one experiment ID")
	}
	q, err := approvalRequest(env, o.by, o.yes)
	if err != nil {
		return err
	}
	if _, err := argID(args[0]); err != nil {
		return err
	}
	r, lock, err := openLocked(env, o.root)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	e, rec, err := pin.Approve(ctx, r, args[0], q, confirmer(ctx, env))
	switch {
	case err != nil:
		return err
	case rec == nil:
		fmt.Fprintln(env.Stdout, "nothing approved")
	case o.json:
		return writeJSON(env.Stdout, e.View())
	default:
		fmt.Fprintln(env.Stdout, rec.Text())
	}
	return nil
}

func newExperimentRejectCmd() *Command {
	var o experimentApproveOptions
	fs := pflag.NewFlagSet("reject", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.StringVar(&o.by, "by", "", "who rejects it, `NAME` (default: $USER)")
	fs.StringVar(&o.reason, "reason", "", "why, in a sentence (`TEXT`)")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp experiment reject ID [--reason TEXT] [--by NAME] [--root DIR] [--json]",
		Short:     "turn an experiment down, keeping it on record",
		Long:      manual.Page("experiment reject"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			if len(args) != 1 {
				return usagef("reject takes one experiment ID")
			}
			by, err := approver(env, o.by)
			if err != nil {
				return err
			}
			if err := plaintext.Check("--reason", o.reason); err != nil {
				return usagef("%v", err)
			}
			if _, err := argID(args[0]); err != nil {
				return err
			}
			r, lock, err := openLocked(env, o.root)
			if err != nil {
				return err
			}
			defer lock.Unlock()
			set, e, err := workspace.Experiment(r, args[0])
			if err == nil {
				err = e.Reject(by, timestamp(env), o.reason)
			}
			if err == nil {
				err = workspace.SaveExperiments(r, set)
			}
			if err != nil {
				return err
			}
			if o.json {
				return writeJSON(env.Stdout, e.View())
			}
			fmt.Fprintf(env.Stdout, "rejected experiment %s by %s\n", e.ID, by)
			return nil
		},
	}
}

// loadAdapter reads the repository's adapter.yaml.
func loadAdapter(r *state.Repo) (*adapter.Adapter, error) { return pin.Adapter(r) }
