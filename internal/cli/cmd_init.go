package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/scaffold"
	"github.com/rlxp/rlxp/internal/state"
)

type initOptions struct {
	root    string
	project string
	json    bool
}

func newInitCmd() *Command {
	var o initOptions
	fs := pflag.NewFlagSet("init", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.StringVar(&o.project, "project", "", "project `NAME` written into the templates (default: the directory name)")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp init [--root DIR] [--project NAME] [--json]",
		Short:     "create .rlxp/ state in a target repository",
		Long:      manual.Page("init"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runInit(env, &o, args)
		},
	}
}

func runInit(env *Env, o *initOptions, args []string) error {
	if len(args) > 0 {
		return usagef("init takes no arguments (use --root DIR)")
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	project := o.project
	if project == "" {
		project = scaffold.Project(filepath.Base(r.Root))
	}
	if !state.ValidName(project) {
		return usagef("invalid --project %q: use 1-64 letters, digits, '.', '_' or '-'", project)
	}
	res, err := scaffold.Init(r, project)
	if err != nil {
		return err
	}
	if o.json {
		return writeJSON(env.Stdout, res)
	}
	rows := make([][]string, len(res.Files))
	for i, f := range res.Files {
		rows[i] = []string{f.Action, f.Path}
	}
	printTable(env, []string{"ACTION", "PATH"}, rows)
	if env.StdoutTTY {
		fmt.Fprintf(env.Stdout, "\nNext: 'rlxp audit --write' drafts %s from the repository; draft %s, then check both with 'rlxp contract validate' and 'rlxp preflight baseline'.\n",
			r.Show(state.Adapter), r.Show(state.Contract))
	}
	return nil
}
