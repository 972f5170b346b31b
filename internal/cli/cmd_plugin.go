package cli

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/plugin"
)

func newPluginCmd() *Command {
	return &Command{
		UsageLine: "rlxp plugin <subcommand>",
		Short:     "check the agent plugin package",
		Long:      `The plugin package is what Claude Code and Codex install: two marketplaces, two manifests, skills shared by both hosts, and Claude's agents.`,
		Commands:  []*Command{newPluginValidateCmd()},
	}
}

type pluginValidateOptions struct {
	json bool
}

func newPluginValidateCmd() *Command {
	var o pluginValidateOptions
	fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp plugin validate [DIR] [--json]",
		Short:     "check both hosts' manifests, skills and agents",
		Long: `Validate checks a plugin package the way Claude Code and Codex read it.
DIR (default: the current directory) is either a marketplace root, holding
.claude-plugin/marketplace.json and/or .agents/plugins/marketplace.json, or
one plugin directory.

It reports what either host rejects and what one host silently drops while
the other loads it: names and versions that disagree between hosts, paths
without ./ or with .., missing sources, agents given as a directory,
agents or commands in the Codex manifest, SKILL.md front matter that does
not parse or lacks a description, nested skills, hooks without the "hooks"
wrapper, for an event one host lacks, or running a script the plugin does
not have, and more. Each finding names the file and, where known, the line.
Warnings are what 'claude plugin validate --strict' would fail on.

EXIT STATUS
  0  no errors and no warnings
  1  DIR cannot be read
  2  usage error
  3  findings: at least one error or warning`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			if len(args) > 1 {
				return usagef("validate takes at most one directory")
			}
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			rep, err := plugin.Validate(resolve(env, dir))
			if err != nil {
				return err
			}
			if o.json {
				if err := writeJSON(env.Stdout, struct {
					Schema   string `json:"schema"`
					Valid    bool   `json:"valid"`
					Errors   int    `json:"errors"`
					Warnings int    `json:"warnings"`
					*plugin.Report
				}{"rlxp.plugin-validate/v1", len(rep.Findings) == 0, rep.Errors(), rep.Warnings(), rep}); err != nil {
					return err
				}
			} else {
				rep.WriteText(env.Stdout, dir)
			}
			if len(rep.Findings) > 0 {
				return errNegative
			}
			return nil
		},
	}
}
