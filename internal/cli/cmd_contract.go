package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/pin"
)

func newContractCmd() *Command {
	return &Command{
		UsageLine: "rlxp contract <subcommand>",
		Short:     "show, check and approve the experiment contract",
		Long: `The contract (.rlxp/contract.yaml) has seven sections: task, metrics,
scope, budget, hardware, baseline and evaluation. Each is approved by a
human on its own; editing an approved section makes its approval stale.
Nothing launches until all seven are approved and current.`,
		Commands: []*Command{newContractStatusCmd(), newContractShowCmd(), newContractValidateCmd(), newContractApproveCmd()},
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
		Long: `Status shows each section's state: approved (the approval matches the
content), stale (edited after approval), unapproved (complete, waiting for
a human) or incomplete (missing fields or failing the schema). Then the
digest of adapter.yaml's approved material (the fields that decide what
runs and what is scored, approved with each experiment), and for each
approved experiment whether its pin of it is current or stale, naming the
fields changed.

EXIT STATUS
  0  every section is approved and current
  1  contract.yaml is missing or is not valid YAML
  2  usage error
  3  at least one section is not approved`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runContractStatus(env, &o, args)
		},
	}
}

type contractStatusResult struct {
	Schema string `json:"schema"`
	File   string `json:"file"`
	contract.Status
	Adapter pin.AdapterState `json:"adapter"`
}

func runContractStatus(env *Env, o *contractOptions, args []string) error {
	if len(args) > 0 {
		return usagef("status takes no arguments")
	}
	r, l, err := openContract(env, o.root)
	if err != nil {
		return err
	}
	st, ad := l.Status(), pin.AdapterStatus(r)
	if o.json {
		if err := writeJSON(env.Stdout, contractStatusResult{"rlxp.contract-status/v1", l.File.Path, st, ad}); err != nil {
			return err
		}
	} else {
		printContractStatus(env, l.File.Path, st, ad.Lines())
	}
	if !st.Approved {
		return errNegative
	}
	return nil
}

func printContractStatus(env *Env, file string, st contract.Status, adapterLines []string) {
	rows := [][]string{}
	approved := 0
	for _, s := range st.Sections {
		by, at, detail := "", "", ""
		if s.Approval != nil {
			by, at = s.Approval.By, s.Approval.At
			if !s.Approval.Interactive {
				by += " (non-interactive)"
			}
		}
		switch s.State {
		case contract.Approved:
			approved++
		case contract.Stale:
			detail = "edited since approval"
		case contract.Unapproved:
			detail = "waiting for 'rlxp contract approve " + s.Section + "'"
		case contract.Incomplete:
			detail = "section is missing"
			if len(s.Findings) > 0 {
				detail = s.Findings[0].Error.Error()
				if n := len(s.Findings) - 1; n > 0 {
					detail += fmt.Sprintf(" (+%d more)", n)
				}
			}
		}
		rows = append(rows, []string{s.Section, env.paint(stateColor(s.State), s.State), by, at, detail})
	}
	printTable(env, []string{"SECTION", "STATE", "APPROVED BY", "AT", "DETAIL"}, rows)
	for _, f := range st.FileFindings {
		fmt.Fprintf(env.Stdout, "error: %s\n", f.Error.Error())
	}
	if st.Legacy != "" {
		fmt.Fprintf(env.Stdout, "note: %s\n", st.Legacy)
	}
	for _, line := range adapterLines {
		fmt.Fprintln(env.Stdout, line)
	}
	verdict := env.paint(green, "approved")
	if !st.Approved {
		verdict = env.paint(red, "not approved")
	}
	fmt.Fprintf(env.Stdout, "%s: %d of %d sections approved — %s\n", file, approved, len(st.Sections), verdict)
}

func stateColor(s string) string {
	switch s {
	case contract.Approved:
		return green
	case contract.Stale:
		return yellow
	}
	return red
}

func newContractShowCmd() *Command {
	var o contractOptions
	fs := pflag.NewFlagSet("show", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp contract show [SECTION] [--root DIR] [--json]",
		Short:     "print a contract section as written, with its state",
		Long: `Show prints one section (or all seven) exactly as written in
contract.yaml, comments included, each preceded by its state and the
digest an approval would record.

EXIT STATUS
  0  printed
  1  contract.yaml is missing or is not valid YAML
  2  usage error or unknown section`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runContractShow(env, &o, args)
		},
	}
}

type sectionView struct {
	Section  string             `json:"section"`
	State    string             `json:"state"`
	Digest   string             `json:"digest,omitempty"`
	Approval *contract.Approval `json:"approval,omitempty"`
	Content  any                `json:"content"`
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
	st := l.Status()
	var views []sectionView
	for _, s := range st.Sections {
		for _, want := range sections {
			if s.Section == want {
				views = append(views, sectionView{s.Section, s.State, s.Digest, s.Approval, l.Section(s.Section)})
			}
		}
	}
	if o.json {
		return writeJSON(env.Stdout, struct {
			Schema   string        `json:"schema"`
			File     string        `json:"file"`
			Sections []sectionView `json:"sections"`
		}{"rlxp.contract-show/v1", l.File.Path, views})
	}
	for i, v := range views {
		if i > 0 {
			fmt.Fprintln(env.Stdout)
		}
		fmt.Fprintf(env.Stdout, "# %s: %s", v.Section, env.paint(stateColor(v.State), v.State))
		if v.Approval != nil {
			fmt.Fprintf(env.Stdout, " (approved by %s at %s)", v.Approval.By, v.Approval.At)
		}
		if v.Digest != "" {
			fmt.Fprintf(env.Stdout, ", digest %s", v.Digest)
		}
		fmt.Fprintln(env.Stdout)
		fmt.Fprint(env.Stdout, sectionText(l, v.Section))
	}
	return nil
}

// sectionText is the section's lines as written in the file.
func sectionText(l *contract.Loaded, section string) string {
	start := l.File.KeyLine(section)
	if start == 0 {
		return section + ": (missing)\n"
	}
	lines := bytes.SplitAfter(l.File.Data, []byte("\n"))
	end := len(lines)
	for _, kl := range l.File.TopKeyLines() {
		if kl > start && kl-1 < end {
			end = kl - 1
		}
	}
	// Blank lines and unindented comments at the end introduce the next key.
	for end > start && (len(bytes.TrimSpace(lines[end-1])) == 0 || lines[end-1][0] == '#') {
		end--
	}
	s := string(bytes.Join(lines[start-1:end], nil))
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}
