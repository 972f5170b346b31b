package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/state"
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
		Long: `Approve records, for each named section, who approved it, when, and the
digest of the section's content. Editing the section later makes the
approval stale.

Approval is a human act. On a terminal each section is shown and must be
confirmed. Without a terminal, --yes is required and the approval is
recorded as non-interactive. Incomplete sections cannot be approved.

EXIT STATUS
  0  approved (or, on a terminal, every section was declined and nothing changed)
  1  a section is incomplete, or contract.yaml is missing or malformed
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
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	lock, err := lockRepo(env, r)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	l, err := loadContract(r)
	if err != nil {
		return err
	}
	if interactive {
		// Refuse incomplete sections before asking anything.
		if _, err := l.Approve(sections, by, timestamp(env), true); err != nil {
			return err
		}
		sections, err = confirmSections(ctx, env, l, sections, by)
		if err != nil {
			return err
		}
		if len(sections) == 0 {
			fmt.Fprintln(env.Stdout, "nothing approved")
			return nil
		}
	}
	at := timestamp(env)
	data, err := l.Approve(sections, by, at, interactive)
	if err != nil {
		return err
	}
	if err := state.WriteFile(r.Path(state.Contract), data, 0o644); err != nil {
		return err
	}
	approved, err := contract.Parse(l.File.Path, data)
	if err != nil {
		return err
	}
	var out []approvedSection
	for _, s := range approved.Status().Sections {
		for _, name := range sections {
			if s.Section == name {
				out = append(out, approvedSection{name, *s.Approval})
			}
		}
	}
	if o.json {
		return writeJSON(env.Stdout, struct {
			Schema   string            `json:"schema"`
			Approved []approvedSection `json:"approved"`
		}{"rlxp.contract-approve/v1", out})
	}
	mode := "interactive"
	if !interactive {
		mode = "non-interactive"
	}
	for _, a := range out {
		fmt.Fprintf(env.Stdout, "approved %s (%s…) by %s at %s, %s\n", a.Section, a.Digest[:19], a.By, a.At, mode)
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
		fmt.Fprintf(env.Stdout, "\n%s", sectionText(l, s))
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
