package cli

import (
	"fmt"
	"strconv"
	"time"

	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/runstatus"
)

// printStatus renders status reports as FIELD/VALUE tables.
func printStatus(env *Env, rep runstatus.Report) {
	if rep.Note != "" {
		fmt.Fprintf(env.Stdout, "note: %s\n", rep.Note)
	}
	for i, run := range rep.Runs {
		if i > 0 || rep.Note != "" {
			fmt.Fprintln(env.Stdout)
		}
		printTable(env, []string{"FIELD", "VALUE"}, statusRows(env, run))
	}
}

func statusRows(env *Env, run runstatus.Run) [][]string {
	var rows [][]string
	add := func(k, v string) { rows = append(rows, []string{k, v}) }
	add("run", run.ID)
	exp := run.Experiment
	if run.Seed != nil {
		exp += fmt.Sprintf(" (seed %d)", *run.Seed)
	}
	add("experiment", exp)
	st := string(run.State)
	if run.StateDetail != "" {
		st += " (" + run.StateDetail + ")"
	}
	color := yellow
	switch run.State {
	case diagnose.Running, diagnose.Finished:
		color = green
	case diagnose.Failed, diagnose.Lost:
		color = red
	}
	add("state", env.paint(color, st))
	for _, e := range run.Liveness {
		add("liveness", e)
	}
	add("backend", orDash(run.Backend))
	switch {
	case run.JobID != "":
		add("job", run.JobID)
	case run.PID != 0 && run.SupervisorPID != 0:
		add("pid", fmt.Sprintf("%d (supervisor %d)", run.PID, run.SupervisorPID))
	case run.PID != 0:
		add("pid", strconv.Itoa(run.PID))
	case run.SupervisorPID != 0:
		add("pid", fmt.Sprintf("none yet (supervisor %d)", run.SupervisorPID))
	}
	add("started", run.StartedAt)
	if run.EndedAt != "" {
		add("ended", run.EndedAt)
	}
	add("elapsed", duration(run.Elapsed))
	switch {
	case run.WallClock == "":
		add("allowance", "-")
	case run.WallClockLeft == nil:
		add("allowance", run.WallClock)
	case *run.WallClockLeft >= 0:
		add("allowance", fmt.Sprintf("%s, %s left", run.WallClock, duration(time.Duration(*run.WallClockLeft)*time.Second)))
	default:
		add("allowance", fmt.Sprintf("%s, exceeded by %s", run.WallClock, duration(time.Duration(-*run.WallClockLeft)*time.Second)))
	}
	if p := run.Progress; p != nil {
		add("last step", fmt.Sprintf("%d (%s)", p.LastStep, p.Source))
		if p.PerMin > 0 {
			rate := fmt.Sprintf("%s steps/min", rateText(p.PerMin))
			if p.PerMin <= 60 {
				rate += fmt.Sprintf(", %s per step", duration(time.Duration(float64(time.Minute)/p.PerMin)))
			}
			add("step rate", rate+" (from "+p.Basis+")")
		} else {
			add("step rate", "unknown")
		}
	} else {
		add("last step", "none logged yet")
	}
	switch {
	case run.Log.Missing:
		add("log", run.Log.Path+" (missing)")
	default:
		l := fmt.Sprintf("%s, last written %s ago", run.Log.Path, duration(run.LogAge))
		if run.Log.Stale && run.Live.Alive {
			l = env.paint(yellow, l+" (stale)")
		}
		add("log", l)
	}
	for _, s := range run.Sources {
		v := fmt.Sprintf("%s: %s", s.Name, s.Path)
		switch s.State {
		case "read":
			v += fmt.Sprintf(" (%s, %d points)", s.Format, s.Points)
			if s.Detail != "" {
				v += "; " + s.Detail
			}
		case "missing", "earlier":
			v += " " + s.Detail
		default: // the detail names the file
			v = fmt.Sprintf("%s: %s: %s", s.Name, s.State, s.Detail)
		}
		add("source", v)
	}
	for _, sig := range run.Signatures {
		add("signature", env.paint(red, sig.Name))
		for _, e := range sig.Evidence {
			add("evidence", e.Text)
		}
		add("advice", sig.Advice)
	}
	evaluated := 0
	for _, r := range run.Rules {
		if r.Outcome != diagnose.NotEvaluated {
			evaluated++
		}
	}
	add("diagnosis", run.Diagnosis)
	add("rules", fmt.Sprintf("%d evaluated, %d not evaluated for want of tags or points (--json says why)", evaluated, len(run.Rules)-evaluated))
	for _, l := range run.Log.Tail {
		add("tail", l)
	}
	return rows
}

// duration rounds to the second: "1h2m3s".
func duration(d time.Duration) string { return d.Round(time.Second).String() }

func rateText(perMin float64) string {
	if perMin >= 100 {
		return strconv.FormatFloat(perMin, 'f', 0, 64)
	}
	return strconv.FormatFloat(perMin, 'f', 2, 64)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
