package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
)

type approveOptions struct {
	root string
	all  bool
	by   string
	yes  bool
	json bool
}

func newContractApproveCmd() *Command {
	var o approveOptions
	fs := pflag.NewFlagSet("approve", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.BoolVar(&o.all, "all", false, "approve all seven sections")
	addApproverFlags(fs, &o.by, &o.yes)
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp contract approve SECTION...|--all [--by NAME] [--yes] [--root DIR] [--json]",
		Short:     "record a human's approval of contract sections",
		Long: `Approve records, for each named section, a line in the append-only,
hash-chained .rlxp/approvals.jsonl: the section and the digest of its
content, who approved it, how (at a terminal or with --yes), when, the
controlling terminal, and the executable names of the approving process's
ancestry. Editing the section later makes the approval stale. Approvals
are never read from contract.yaml; an approvals block an older rlxp kept
there is removed.

Approval is a human act. It is refused when the approving process descends
from an agent host (Claude Code, Codex: their executables, command lines or
the environment markers they set for the commands they run); no flag or
variable skips that check. On a terminal each section is shown and must be
confirmed. Without a terminal, --yes is required and the approval is
recorded as non-interactive. Incomplete sections cannot be approved.

EXIT STATUS
  0  approved (or, on a terminal, every section was declined and nothing changed)
  1  refused (an agent host among the ancestors), a section is incomplete,
     contract.yaml is missing or malformed, or approvals.jsonl does not verify
  2  usage error, or no terminal and no --yes
  4  another rlxp process holds the lock`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runContractApprove(ctx, env, &o, args)
		},
	}
}

type approvedSection struct {
	Section string `json:"section"`
	contract.Approval
	How      string   `json:"how"`
	TTY      string   `json:"tty"`
	Ancestry []string `json:"ancestry"`
	Seq      int64    `json:"seq"`
}

func runContractApprove(ctx context.Context, env *Env, o *approveOptions, args []string) error {
	sections := args
	switch {
	case o.all && len(args) > 0:
		return usagef("name sections or pass --all, not both")
	case o.all:
		sections = contract.Sections()
	case len(args) == 0:
		return usagef("name the sections to approve, or pass --all")
	}
	for _, s := range sections {
		if !contract.IsSection(s) {
			return usagef("unknown section %q (sections: %s)", s, strings.Join(contract.Sections(), ", "))
		}
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
	r, err := openRepo(env, o.root)
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
	// Refuse incomplete sections, and a log that does not verify, before
	// asking anything.
	digests, err := l.Digests(sections)
	if err != nil {
		return err
	}
	if err := approvalLogUsable(r); err != nil {
		return err
	}
	if interactive {
		sections, err = confirmSections(ctx, env, l, sections, by)
		if err != nil {
			return err
		}
		if len(sections) == 0 {
			fmt.Fprintln(env.Stdout, "nothing approved")
			return nil
		}
	}
	how := howApproved(interactive)
	var out []approvedSection
	for _, name := range sections {
		rec, err := approval.LogOf(r).Append(approval.Record{
			Kind: approval.Section, Subject: name, Digest: digests[name], By: by, How: how,
			TTY: origin.TTY, Ancestry: origin.Ancestry,
		}, env.Now())
		if err != nil {
			return err
		}
		out = append(out, approvedSection{name, contract.Approval{By: by, At: rec.Time, Digest: rec.Digest, Interactive: interactive}, how, rec.TTY, rec.Ancestry, rec.Seq})
	}
	// Approvals an older rlxp kept in contract.yaml count for nothing; the
	// first approval recorded in the log removes them.
	if data, had, err := l.WithoutLegacyApprovals(); err != nil {
		return err
	} else if had {
		if err := state.WriteFile(r.Path(state.Contract), data, 0o644); err != nil {
			return err
		}
	}
	if o.json {
		return writeJSON(env.Stdout, struct {
			Schema   string            `json:"schema"`
			Approved []approvedSection `json:"approved"`
		}{"rlxp.contract-approve/v1", out})
	}
	for _, a := range out {
		fmt.Fprintf(env.Stdout, "approved %s (%s…) by %s at %s, %s\n", a.Section, a.Digest[:19], a.By, a.At, modeText(interactive))
	}
	return nil
}

func howApproved(interactive bool) string {
	if interactive {
		return approval.Terminal
	}
	return approval.Yes
}

func modeText(interactive bool) string {
	if interactive {
		return "interactive"
	}
	return "non-interactive"
}

// approvalOrigin traces the approving process; approval is refused when it
// descends from an agent host. No flag or variable skips this.
func approvalOrigin(env *Env) (approval.Origin, error) {
	return approval.Trace(procTable(env))
}

// procTable is the process table ancestry is read from.
func procTable(env *Env) approval.ProcessTable {
	if env.Procs == nil {
		return approval.System()
	}
	return env.Procs
}

// approvalLogUsable refuses to ask a human anything when the approvals log
// does not verify: the answer could not be recorded.
func approvalLogUsable(r *state.Repo) error {
	book, err := approval.LogOf(r).Read()
	if err != nil {
		return err
	}
	if book.Problem != nil {
		return fmt.Errorf("cannot record an approval: %w", book.Problem)
	}
	return nil
}

// approvalMode decides between a terminal prompt and --yes.
func approvalMode(env *Env, yes bool) (interactive bool, err error) {
	if yes {
		return false, nil
	}
	if !env.StdinTTY || !env.StdoutTTY {
		return false, usagef("approval needs a terminal to confirm on; without one pass --yes (recorded as non-interactive)")
	}
	return true, nil
}

// confirmSections shows each section and keeps those the human confirms.
func confirmSections(ctx context.Context, env *Env, l *contract.Loaded, sections []string, by string) ([]string, error) {
	p := newPrompter(env)
	var keep []string
	for _, s := range sections {
		fmt.Fprintf(env.Stdout, "\n%s", l.SectionText(s))
		answer, err := p.ask(ctx, fmt.Sprintf("Approve section %s as %s? [y/N] ", s, by))
		if err != nil {
			return nil, err
		}
		if yes(answer) {
			keep = append(keep, s)
		}
	}
	return keep, nil
}
