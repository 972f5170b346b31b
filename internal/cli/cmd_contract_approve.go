package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/prompt"
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
		Long:      manual.Page("contract approve"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runContractApprove(ctx, env, &o, args)
		},
	}
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
	q, err := approvalRequest(env, o.by, o.yes)
	if err != nil {
		return err
	}
	r, lock, err := openLocked(env, o.root)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	l, err := workspace.Contract(r)
	if err != nil {
		return err
	}
	recs, err := approval.ApproveSections(r, l, sections, q, confirmer(ctx, env))
	if err != nil || len(recs) == 0 {
		if err == nil {
			fmt.Fprintln(env.Stdout, "nothing approved")
		}
		return err
	}
	if o.json {
		out := make([]approval.SectionReceipt, len(recs))
		for i, rec := range recs {
			out[i] = rec.Receipt()
		}
		return writeJSON(env.Stdout, struct {
			Schema   string                    `json:"schema"`
			Approved []approval.SectionReceipt `json:"approved"`
		}{"rlxp.contract-approve/v1", out})
	}
	for _, rec := range recs {
		fmt.Fprintln(env.Stdout, rec.Text())
	}
	return nil
}

// approvalRequest is a human's act of approval: no terminal without --yes
// is a usage error, and the approving process's ancestry is traced, which
// refuses an agent host's descendants. No flag or variable skips that.
func approvalRequest(env *Env, by string, yes bool) (approval.Request, error) {
	if !yes && (!env.StdinTTY || !env.StdoutTTY) {
		return approval.Request{}, usagef("approval needs a terminal to confirm on; without one pass --yes (recorded as non-interactive)")
	}
	by, err := approver(env, by)
	if err != nil {
		return approval.Request{}, err
	}
	origin, err := approval.Trace(procTable(env))
	if err != nil {
		return approval.Request{}, err
	}
	return approval.Request{By: by, Interactive: !yes, Origin: origin, Now: env.Now()}, nil
}

// procTable is the process table ancestry is read from.
func procTable(env *Env) approval.ProcessTable {
	if env.Procs == nil {
		return approval.System()
	}
	return env.Procs
}

// confirmer shows what is approved and asks at the terminal.
func confirmer(ctx context.Context, env *Env) approval.Confirm {
	p := prompt.New(env.Stdin, env.Stdout)
	return func(text, question string) (bool, error) {
		fmt.Fprint(env.Stdout, text)
		answer, err := p.Ask(ctx, question)
		return prompt.Yes(answer), err
	}
}
