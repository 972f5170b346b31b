package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

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
		Long: `Status reports on the runs recorded in .rlxp/runs, one report per run:
the metrics of two runs are never mixed. Without an argument it reports
the runs in flight or, when none is, the latest run, and says so. RUN is a
run id; EXPERIMENT reports the latest run of each of its seeds.

A report gives the run's state (running, pending, finished, failed,
stopped, lost or unknown) with its evidence: for a local run, its
supervisor and process group leader in the process table, the leader's
recorded start time telling a reused pid apart; for a Slurm run, the
scheduler. Then when it started, how long it has run and how much of its
wall-clock allowance is left, its last step and step rate (from the
points' wall times when a source has them, else the steps logged over the
run's elapsed time), how long ago its log was written, and the last lines
of the log of a run that failed, was lost or stalled.

The run's log (verl console step lines) and the metric sources adapter.yaml
declares, filled in with the run's {run_dir}, {seed} and {experiment},
are checked for failure signatures: R3 misalignment, frozen model,
gradient starvation, env avalanche, val fake-zero, no-tool-call collapse,
deadlock / stall (alive, with a log older than --stale), step slowdown,
NaN/Inf loss, entropy collapse, KL blow-up and reward plateau. A signature
is claimed only when its specific evidence is there, and the evidence is
quoted (tag, steps, values); otherwise the report says "no known signature
matched". A signature whose tags the run does not log is not evaluated;
--json lists each rule's outcome and why. A metric file that cannot be
read is named in a warning, with its position, and left out. A file
untouched since before the run started is an earlier run's, and points
stamped before the start belong to an earlier run appending to the same
file: both are left out, and the sources list says so.

Status only reads; it never writes .rlxp.

EXIT STATUS
  0  reported: no signature matched, and no run failed or was lost
  1  .rlxp, adapter.yaml or a run.json is missing or malformed, or there is
     no such run or experiment
  2  usage error
  3  reported, and a signature matched or a run failed or was lost`,
		Flags: fs,
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
