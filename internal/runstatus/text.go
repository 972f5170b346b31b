package runstatus

import (
	"fmt"
	"strconv"
	"time"

	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/runs"
)

// A Tone is how a text report may colour a value.
type Tone int

// Tones: plain, good, a warning, bad.
const (
	Plain Tone = iota
	Good
	Warn
	Bad
)

// A Row is one FIELD/VALUE line of a run's text report.
type Row struct {
	Field, Value string
	Tone         Tone
}

// Rows is the run's text report, field by field.
func (run Run) Rows() []Row {
	var rows []Row
	add := func(k, v string) { rows = append(rows, Row{Field: k, Value: v}) }
	tone := func(k, v string, t Tone) { rows = append(rows, Row{k, v, t}) }
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
	t := Warn
	switch run.State {
	case diagnose.Running, diagnose.Finished:
		t = Good
	case diagnose.Failed, diagnose.Lost:
		t = Bad
	}
	tone("state", st, t)
	for _, e := range run.Liveness {
		add("liveness", e)
	}
	add("backend", orDash(run.Backend))
	add("confirmed", runs.ConfirmationText(run.Confirmed))
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
	add("elapsed", seconds(run.Elapsed))
	switch {
	case run.WallClock == "":
		add("allowance", "-")
	case run.WallClockLeft == nil:
		add("allowance", run.WallClock)
	case *run.WallClockLeft >= 0:
		add("allowance", fmt.Sprintf("%s, %s left", run.WallClock, seconds(time.Duration(*run.WallClockLeft)*time.Second)))
	default:
		add("allowance", fmt.Sprintf("%s, exceeded by %s", run.WallClock, seconds(time.Duration(-*run.WallClockLeft)*time.Second)))
	}
	if p := run.Progress; p != nil {
		add("last step", fmt.Sprintf("%d (%s)", p.LastStep, p.Source))
		if p.PerMin > 0 {
			rate := fmt.Sprintf("%s steps/min", rateText(p.PerMin))
			if p.PerMin <= 60 {
				rate += fmt.Sprintf(", %s per step", seconds(time.Duration(float64(time.Minute)/p.PerMin)))
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
	case run.Log.Stale && run.Live.Alive:
		tone("log", fmt.Sprintf("%s, last written %s ago (stale)", run.Log.Path, seconds(run.LogAge)), Warn)
	default:
		add("log", fmt.Sprintf("%s, last written %s ago", run.Log.Path, seconds(run.LogAge)))
	}
	for _, s := range run.Sources {
		v := fmt.Sprintf("%s: %s", s.Name, s.Path)
		switch s.State {
		case SourceRead:
			v += fmt.Sprintf(" (%s, %d points)", s.Format, s.Points)
			if s.Detail != "" {
				v += "; " + s.Detail
			}
		case SourceMissing, SourceEarlier:
			v += " " + s.Detail
		default: // the detail names the file
			v = fmt.Sprintf("%s: %s: %s", s.Name, s.State, s.Detail)
		}
		add("source", v)
	}
	for _, sig := range run.Signatures {
		tone("signature", sig.Name, Bad)
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

// seconds rounds to the second: "1h2m3s".
func seconds(d time.Duration) string { return d.Round(time.Second).String() }

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
