package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runstatus"
	"github.com/rlxp/rlxp/internal/slurm"
)

type statusOptions struct {
	root  string
	stale time.Duration
	json  bool
}

func newStatusCmd() *Command {
	var o statusOptions
	fs := pflag.NewFlagSet("status", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.DurationVar(&o.stale, "stale", runstatus.DefaultStale, "a live run whose log is older than `DUR` has stalled")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp status [RUN|EXPERIMENT] [--stale DUR] [--root DIR] [--json]",
		Short:     "say whether runs are alive, how far they got, and which failure signature has evidence",
		Long:      manual.Page("status"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runStatus(ctx, env, &o, args)
		},
	}
}

func runStatus(ctx context.Context, env *Env, o *statusOptions, args []string) error {
	if len(args) > 1 {
		return usagef("status takes at most one run or experiment ID")
	}
	if o.stale <= 0 {
		return usagef("--stale must be a positive duration, such as 30m")
	}
	var id string
	if len(args) == 1 {
		var err error
		if id, err = argID(args[0]); err != nil {
			return err
		}
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	q := runstatus.Query{ID: id, Stale: o.stale, Host: probe.System(), Sched: runstatus.Scheduler(slurm.New()), Now: env.Now}
	rep, err := runstatus.Status(ctx, r, q, func(w string) { warnf(env, "%s", w) })
	if err != nil {
		return err
	}
	if o.json {
		if err := writeJSON(env.Stdout, rep); err != nil {
			return err
		}
	} else {
		printStatus(env, rep)
	}
	if rep.Negative() {
		return errNegative
	}
	return nil
}

// printStatus renders status reports as FIELD/VALUE tables.
func printStatus(env *Env, rep runstatus.Report) {
	if rep.Note != "" {
		fmt.Fprintf(env.Stdout, "note: %s\n", rep.Note)
	}
	colors := map[runstatus.Tone]string{runstatus.Good: green, runstatus.Warn: yellow, runstatus.Bad: red}
	for i, run := range rep.Runs {
		if i > 0 || rep.Note != "" {
			fmt.Fprintln(env.Stdout)
		}
		var rows [][]string
		for _, row := range run.Rows() {
			v := row.Value
			if c, ok := colors[row.Tone]; ok {
				v = env.paint(c, v)
			}
			rows = append(rows, []string{row.Field, v})
		}
		printTable(env, []string{"FIELD", "VALUE"}, rows)
	}
}
