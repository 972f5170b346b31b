package cli

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/plugin"
)

func newPluginCmd() *Command {
	return &Command{
		UsageLine: "rlxp plugin <subcommand>",
		Short:     "check the agent plugin package",
		Long:      manual.Page("plugin"),
		Commands:  []Sub{{"validate", newPluginValidateCmd}},
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
		Long:      manual.Page("plugin validate"),
		Flags:     fs,
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
