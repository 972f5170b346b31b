package cli

import "context"

func newPluginCmd() *Command {
	return &Command{
		UsageLine: "rlxp plugin <subcommand>",
		Short:     "check the agent plugin package",
		Commands:  []*Command{newPluginValidateCmd()},
	}
}

func newPluginValidateCmd() *Command {
	return &Command{
		UsageLine: "rlxp plugin validate [DIR] [--json]",
		Short:     "check both hosts' manifests, skills and agents",
		Run:       func(ctx context.Context, env *Env, args []string) error { return usagef("not yet wired") },
	}
}
