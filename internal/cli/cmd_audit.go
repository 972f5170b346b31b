package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/audit"
	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/state"
)

type auditOptions struct {
	root, observe string
	write, json   bool
}

func newAuditCmd() *Command {
	var o auditOptions
	fs := pflag.NewFlagSet("audit", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.BoolVar(&o.write, "write", false, "draft .rlxp/adapter.yaml from the findings (after 'rlxp init'), filling only empty fields, and print the diff")
	fs.StringVar(&o.observe, "observe", "", "after a first run: read what the run in `RUN_DIR` wrote and confirm or correct adapter.yaml's metric sources and tags")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp audit [--root DIR] [--write] [--observe RUN_DIR] [--json]",
		Short:     "scan an RL repository for frameworks, entry points, configs and metric tags",
		Long:      manual.Page("audit"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runAudit(ctx, env, &o, args)
		},
	}
}

func runAudit(ctx context.Context, env *Env, o *auditOptions, args []string) error {
	if len(args) > 0 {
		return usagef("audit takes no arguments (use --root DIR)")
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	lock := func() (*state.Lock, error) { return lockRepo(env, r) }
	if o.observe != "" {
		if o.write {
			return usagef("--observe and --write do not go together (observe after the first run)")
		}
		res, err := audit.ObserveRun(r, env.Dir, o.observe, lock)
		if err != nil {
			return err
		}
		if err := emit(env, o.json, res, res.WriteText); err != nil || res.WroteMetrics() {
			return err
		}
		fmt.Fprintf(env.Stderr, "rlxp: the run in %s wrote no metric file\n", res.RunDir)
		return errNegative
	}
	rep, err := audit.Run(ctx, r.Root, audit.Options{})
	if err != nil {
		return err
	}
	rep.Root = r.Display(".")
	if o.write {
		if rep.Write, err = audit.WriteDraft(r, rep.Adapter, lock); err != nil {
			return err
		}
	}
	err = emit(env, o.json, rep, func(io.Writer) { printAudit(env, rep) })
	if err == nil && rep.Unknown() {
		return errNegative
	}
	return err
}

// emit writes v as JSON, or calls text on stdout.
func emit(env *Env, asJSON bool, v any, text func(io.Writer)) error {
	if asJSON {
		return writeJSON(env.Stdout, v)
	}
	text(env.Stdout)
	return nil
}

// printAudit prints the report: a table per section on a terminal, TSV
// rows that start with their section's key when piped.
func printAudit(env *Env, rep *audit.Report) {
	if !env.StdoutTTY {
		printTable(env, nil, rep.Rows())
	} else {
		printSections(env, rep)
	}
	if rep.Write != nil {
		rep.Write.WriteText(env.Stdout)
	}
}

func printSections(env *Env, rep *audit.Report) {
	fmt.Fprintf(env.Stdout, "RL audit of %s (nothing was run)\n%s\n", rep.Root, rep.Summary())
	for _, s := range rep.Sections() {
		if header, rows, note, ok := s.Terminal(); ok {
			fmt.Fprintf(env.Stdout, "\n%s\n", s.Title)
			if len(rows) > 0 {
				printTable(env, header, rows)
			}
			if note != "" {
				fmt.Fprintf(env.Stdout, "  %s\n", note)
			}
		}
	}
}
