package runstatus

import (
	"context"
	"time"

	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/state"
)

// A Query says which runs to report and how to judge them.
type Query struct {
	ID    string // a run or an experiment; "" for the runs in flight
	Stale time.Duration
	Host  probe.Host
	Sched diagnose.Scheduler
	Now   func() time.Time
}

// Status reports on the runs the query chooses (see Select), each judged
// once for liveness. warn receives each file that could not be read, as
// it is found, so that a caller sees them before an error that follows.
func Status(ctx context.Context, r *state.Repo, q Query, warn func(string)) (Report, error) {
	ad, recs, err := Load(r)
	if err != nil {
		return Report{}, err
	}
	lives := diagnose.NewLives(q.Host, q.Sched)
	liveness := func(rec runs.Record) diagnose.Liveness { return lives.Of(ctx, rec) }
	chosen, note, err := Select(r.Show(state.Runs), recs, q.ID, liveness)
	if err != nil {
		return Report{}, err
	}
	rd := &Reader{Repo: r, Adapter: ad, Now: q.Now, Stale: q.Stale}
	rep := Report{Schema: Schema, Note: note, Runs: []Run{}}
	for _, rec := range chosen {
		run, err := rd.Of(rec, liveness(rec))
		for _, w := range run.Warnings {
			warn(w)
		}
		if err != nil {
			return Report{}, err
		}
		rep.Runs = append(rep.Runs, run)
	}
	return rep, nil
}

// Negative reports whether a run failed, was lost or matched a signature.
func (rep Report) Negative() bool {
	for _, run := range rep.Runs {
		if run.Negative {
			return true
		}
	}
	return false
}
