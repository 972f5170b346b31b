package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/gate"
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
		Long: `Approve marks a proposed experiment approved and records the approval in
.rlxp/approvals.jsonl (append-only, hash-chained): the digest of what it
will run, who, how, when, the controlling terminal and the approving
process's ancestry. Editing the experiment afterwards makes the approval
stale. An experiment outside the scope cannot be approved.

Approval is refused when the approving process descends from an agent host
(Claude Code, Codex). On a terminal the experiment is shown and must be
confirmed; without one, --yes is required and the approval is recorded as
non-interactive.

EXIT STATUS
  0  approved (or declined at the prompt, changing nothing)
  1  refused (an agent host among the ancestors), no such experiment, not
     in a state that can be approved, out of scope, or approvals.jsonl does
     not verify
  2  usage error, or no terminal and no --yes
  4  another rlxp process holds the lock`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runExperimentApprove(ctx, env, &o, args)
		},
	}
}

func runExperimentApprove(ctx context.Context, env *Env, o *experimentApproveOptions, args []string) error {
	if len(args) != 1 {
		return usagef("approve takes one experiment ID")
	}
	interactive, err := approvalMode(env, o.yes)
	if err != nil {
		return err
	}
	by, err := approver(env, o.by)
	if err != nil {
		return err
	}
	origin, err := approvalOrigin(env)
	if err != nil {
		return err
	}
	return editExperiment(env, o.root, args[0], func(r *state.Repo, l *contract.Loaded, e *experiment.Experiment) (bool, error) {
		if e.Status != experiment.Proposed && e.Status != experiment.Approved {
			return false, fmt.Errorf("experiment %s is %s; only a proposed experiment can be approved", e.ID, e.Status)
		}
		if err := l.Require("scope"); err != nil {
			return false, err
		}
		if errs := e.ScopeErrors(l.Contract.Scope); len(errs) > 0 {
			return false, fmt.Errorf("cannot approve %s: %w", e.ID, errors.Join(errs...))
		}
		if err := approvalLogUsable(r); err != nil {
			return false, err
		}
		// What the approval pins, computed before asking: a plan that
		// cannot be built cannot be approved.
		plan, err := pinnedPlan(ctx, r, e)
		if err != nil {
			return false, err
		}
		if interactive {
			answer, err := newPrompter(env).ask(ctx, fmt.Sprintf("%s: %s\nApprove experiment %s as %s? [y/N] ", e.ID, e.Describe(), e.ID, by))
			if err != nil {
				return false, err
			}
			if !yes(answer) {
				fmt.Fprintln(env.Stdout, "nothing approved")
				return false, nil
			}
		}
		rec, err := approval.LogOf(r).Append(approval.Record{
			Kind: approval.Experiment, Subject: e.ID, Digest: e.Digest(), By: by, How: howApproved(interactive),
			TTY: origin.TTY, Ancestry: origin.Ancestry, Plan: plan,
		}, env.Now())
		if err != nil {
			return false, err
		}
		e.Status = experiment.Approved
		e.Approval = &contract.Approval{By: by, At: rec.Time, Digest: rec.Digest, Interactive: interactive}
		return true, nil
	}, func(e *experiment.Experiment) error {
		if o.json {
			return writeJSON(env.Stdout, e.View())
		}
		fmt.Fprintf(env.Stdout, "approved experiment %s (%s…) by %s at %s, %s\n", e.ID, e.Approval.Digest[:19], e.Approval.By, e.Approval.At, modeText(interactive))
		return nil
	})
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
		Long: `Reject marks a proposed or approved experiment rejected, with who, when and
why. It stays in experiments.yaml so the same idea is not proposed again
unnoticed.

EXIT STATUS
  0  rejected
  1  no such experiment, or it already ran
  2  usage error
  4  another rlxp process holds the lock`,
		Flags: fs,
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
			return editExperiment(env, o.root, args[0], func(_ *state.Repo, _ *contract.Loaded, e *experiment.Experiment) (bool, error) {
				if e.Status != experiment.Proposed && e.Status != experiment.Approved {
					return false, fmt.Errorf("experiment %s is %s; only a proposed or approved experiment can be rejected", e.ID, e.Status)
				}
				e.Status = experiment.Rejected
				e.Rejection = &experiment.Rejection{By: by, At: timestamp(env), Reason: o.reason}
				return true, nil
			}, func(e *experiment.Experiment) error {
				if o.json {
					return writeJSON(env.Stdout, e.View())
				}
				fmt.Fprintf(env.Stdout, "rejected experiment %s by %s\n", e.ID, by)
				return nil
			})
		},
	}
}

// editExperiment applies change to one experiment under the lock and saves
// the set when change reports a modification, then calls show.
func editExperiment(env *Env, root, id string, change func(*state.Repo, *contract.Loaded, *experiment.Experiment) (bool, error), show func(*experiment.Experiment) error) error {
	if _, err := argID(id); err != nil {
		return err
	}
	r, err := openRepo(env, root)
	if err != nil {
		return err
	}
	lock, err := lockRepo(env, r)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	l, err := workspace.Contract(r)
	if err != nil {
		return err
	}
	set, e, err := workspace.Experiment(r, id)
	if err != nil {
		return err
	}
	changed, err := change(r, l, e)
	if err != nil || !changed {
		return err
	}
	if err := workspace.SaveExperiments(r, set); err != nil {
		return err
	}
	return show(e)
}

// pinnedPlan is what an approval of e pins: its train commands, the
// adapter fields that decide what runs and is scored, the files the
// commands name, and the code.
func pinnedPlan(ctx context.Context, r *state.Repo, e *experiment.Experiment) (json.RawMessage, error) {
	ad, err := loadAdapter(r)
	if err != nil {
		return nil, err
	}
	m, err := pin.Compute(ctx, r.Root, ad, r.Show(state.Adapter), e)
	if err != nil {
		return nil, fmt.Errorf("cannot pin what %s runs: %w", e.ID, err)
	}
	return json.Marshal(m)
}

func loadAdapter(r *state.Repo) (*adapter.Adapter, error) {
	data, err := r.Read(state.Adapter)
	if err != nil {
		return nil, err
	}
	return adapter.Parse(r.Show(state.Adapter), data)
}

// pinned compares what e would run now with what its approval pinned, and
// reads the repository's changes since the baseline's commit; an adapter
// that cannot be read is a change.
func pinned(ctx context.Context, r *state.Repo, l *contract.Loaded, e *experiment.Experiment) ([]string, *gate.ChangeSet) {
	ad, err := loadAdapter(r)
	if err != nil {
		return []string{err.Error()}, nil
	}
	return pin.Stale(ctx, r, ad, e), pin.ChangeSet(ctx, r, ad, l.Contract.Baseline.Experiment, e)
}
