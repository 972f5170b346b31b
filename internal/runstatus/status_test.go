package runstatus

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/diagnose"
)

func TestStatus(t *testing.T) {
	r, _ := finished(t)
	now := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	var warned []string
	rep, err := Status(t.Context(), r, Query{Stale: DefaultStale, Now: func() time.Time { return now }}, func(w string) { warned = append(warned, w) })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Schema != Schema || rep.Note != "no run in flight; the latest run, r1, is shown" || len(rep.Runs) != 1 || rep.Negative() || len(warned) != 0 {
		t.Errorf("report %+v, warnings %q", rep, warned)
	}
	if _, err := Status(t.Context(), r, Query{ID: "nosuch", Now: time.Now}, func(string) {}); err == nil {
		t.Error("an unknown id is not an error")
	}
}

func TestRows(t *testing.T) {
	left, over := int64(90), int64(-61)
	base := Run{ID: "r1", Experiment: "b", Seed: seed(2), Backend: "local", State: diagnose.Finished, StartedAt: "s",
		Elapsed: 61500 * time.Millisecond, Log: Log{Path: "L"}, LogAge: time.Minute, Diagnosis: NoSignature,
		Rules: []Rule{{Outcome: diagnose.NotEvaluated}, {Outcome: "clear"}}}
	pick := func(rows []Row, fields ...string) []Row {
		var out []Row
		for _, r := range rows {
			for _, f := range fields {
				if r.Field == f {
					out = append(out, r)
				}
			}
		}
		return out
	}
	tests := []struct {
		name   string
		edit   func(*Run)
		fields []string
		want   []Row
	}{{
		name:   "finished, seed and rules",
		edit:   func(*Run) {},
		fields: []string{"experiment", "state", "elapsed", "allowance", "last step", "rules"},
		want: []Row{{"experiment", "b (seed 2)", Plain}, {"state", "finished", Good}, {"elapsed", "1m2s", Plain}, {"allowance", "-", Plain},
			{"last step", "none logged yet", Plain}, {"rules", "1 evaluated, 1 not evaluated for want of tags or points (--json says why)", Plain}},
	}, {
		name: "lost with a pid, over its allowance",
		edit: func(r *Run) {
			r.State, r.StateDetail, r.PID, r.SupervisorPID, r.WallClock, r.WallClockLeft = diagnose.Lost, "gone", 7, 6, "1m", &over
		},
		fields: []string{"state", "pid", "allowance"},
		want:   []Row{{"state", "lost (gone)", Bad}, {"pid", "7 (supervisor 6)", Plain}, {"allowance", "1m, exceeded by 1m1s", Plain}},
	}, {
		name: "running, stale log, slow steps",
		edit: func(r *Run) {
			r.State, r.Live.Alive, r.Log.Stale, r.WallClock, r.WallClockLeft = diagnose.Running, true, true, "2m", &left
			r.Progress = &diagnose.Progress{LastStep: 40, Source: "log", PerMin: 2, Basis: "wall times"}
		},
		fields: []string{"allowance", "last step", "step rate", "log"},
		want: []Row{{"allowance", "2m, 1m30s left", Plain}, {"last step", "40 (log)", Plain},
			{"step rate", "2.00 steps/min, 30s per step (from wall times)", Plain}, {"log", "L, last written 1m0s ago (stale)", Warn}},
	}, {
		name: "sources and a signature",
		edit: func(r *Run) {
			r.Sources = []Source{{Name: "m", Path: "p", Format: "csv", Points: 3, State: SourceRead, Detail: "d"}, {Name: "e", Path: "q", State: SourceMissing, Detail: "not written yet"}, {Name: "x", State: SourceUnreadable, Detail: "x.csv:2: bad"}}
			r.Signatures = []diagnose.Result{{Name: "NaN loss", Advice: "lower lr", Evidence: []diagnose.Evidence{{Text: "loss=nan at 3"}}}}
		},
		fields: []string{"source", "signature", "evidence", "advice"},
		want: []Row{{"source", "m: p (csv, 3 points); d", Plain}, {"source", "e: q not written yet", Plain}, {"source", "x: unreadable: x.csv:2: bad", Plain},
			{"signature", "NaN loss", Bad}, {"evidence", "loss=nan at 3", Plain}, {"advice", "lower lr", Plain}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := base
			tt.edit(&run)
			if d := cmp.Diff(tt.want, pick(run.Rows(), tt.fields...)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
