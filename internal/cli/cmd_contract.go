package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/cli/front"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/schema/validate"
)

func newContractCmd() *Command {
	return &Command{
		UsageLine: "rlxp contract <subcommand>",
		Short:     "show, check and approve the experiment contract",
		Long:      manual.Page("contract"),
		Commands:  []Sub{{"status", newContractStatusCmd}, {"show", newContractShowCmd}, {"validate", newContractValidateCmd}, {"approve", newContractApproveCmd}},
	}
}

type contractOptions struct {
	root string
	json bool
}

func newContractStatusCmd() *Command {
	var o contractOptions
	fs := pflag.NewFlagSet("status", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp contract status [--root DIR] [--json]",
		Short:     "show which sections are approved, stale or incomplete",
		Long:      manual.Page("contract status"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runContractStatus(env, &o, args)
		},
	}
}

func runContractStatus(env *Env, o *contractOptions, args []string) error {
	if len(args) > 0 {
		return usagef("status takes no arguments")
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	approved, err := front.ContractStatus(front.Terminal{Stdout: env.Stdout, TTY: env.StdoutTTY, Color: env.color()}, r, validate.Cached(r), o.json)
	if err == nil && !approved {
		return errNegative
	}
	return err
}

func stateColor(s string) string { return front.StateColor(s) }

func newContractShowCmd() *Command {
	var o contractOptions
	fs := pflag.NewFlagSet("show", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp contract show [SECTION] [--root DIR] [--json]",
		Short:     "print a contract section as written, with its state",
		Long:      manual.Page("contract show"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runContractShow(env, &o, args)
		},
	}
}

func runContractShow(env *Env, o *contractOptions, args []string) error {
	sections := contract.Sections()
	switch {
	case len(args) > 1:
		return usagef("show takes at most one section")
	case len(args) == 1:
		if !contract.IsSection(args[0]) {
			return usagef("unknown section %q (sections: %s)", args[0], strings.Join(sections, ", "))
		}
		sections = args
	}
	_, l, err := openContract(env, o.root)
	if err != nil {
		return err
	}
	views := l.Views(sections)
	if o.json {
		return writeJSON(env.Stdout, struct {
			Schema   string                 `json:"schema"`
			File     string                 `json:"file"`
			Sections []contract.SectionView `json:"sections"`
		}{"rlxp.contract-show/v1", l.File.Path, views})
	}
	for i, v := range views {
		if i > 0 {
			fmt.Fprintln(env.Stdout)
		}
		fmt.Fprintf(env.Stdout, "# %s: %s%s\n%s", v.Section, env.paint(stateColor(v.State), v.State), v.Heading(), v.Text)
	}
	return nil
}
