package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/audit"
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
		Long: `Audit reads the target repository (--root, default the current directory)
and runs nothing from it. It reports the RL frameworks in use, the
commands that train and evaluate, the config system and main config
files, the logging backends and the metric tags the code logs, where runs
write, launchers, simulators and hardware hints. Every finding cites
file:line and says how sure it is (high, medium, low); what is guessed
says so. From these it proposes metric candidates (held-out evaluation
first; training reward is flagged as such), guardrail candidates, the
budget questions a person must answer, and a draft of adapter.yaml.

The walk honours .gitignore files at every level and skips vendored code
(vendor/, third_party/, node_modules/, virtualenvs, a copy of a known RL
library), run outputs (wandb/, mlruns/), binary files and files over
1 MiB; the report counts what it skipped and why.

--write merges the draft into .rlxp/adapter.yaml, which 'rlxp init'
creates: it fills only fields that are missing, empty or still the
template's, keeps everything a person wrote (values, comments, order),
checks that the result reads back, and prints a unified diff of what it
changed. With --json the diff is in the object's write field. Metric
sources it drafts list the tags the code writes there as guessed.

--observe RUN_DIR, after a short first run, reads what that run wrote
(the metric readers of 'rlxp metrics') where adapter.yaml's sources say
and confirms or corrects each: the file (the one file of that name and
format the run wrote elsewhere, when the declared one is absent), its tags with
their points, and metric files no source declares. Confirmed and
corrected sources are rewritten with the observed tags and no longer
marked guessed; a source the run did not write stays as it was.

EXIT STATUS
  0  found an RL framework
  1  error: the root is missing, or adapter.yaml is malformed or missing
  2  usage error
  3  no RL framework recognised ("unknown"); the rest is still reported;
     with --observe: the run wrote no metric file
  4  locked: another rlxp process holds .rlxp/.lock (with --write)`,
		Flags: fs,
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
