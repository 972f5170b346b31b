package diagnose

import (
	"context"

	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runs"
)

// Lives judges each run's liveness once. Within one command the sweep of
// lost runs, the in-flight checks of check and launch and the status
// report look at the same runs; each reads the process table (or asks the
// scheduler) about a run only the first time. A run with an end recorded
// is judged from its record, which a sweep may just have written.
type Lives struct {
	host  probe.Host
	sched Scheduler
	seen  map[string]Liveness
}

// NewLives judges local runs through h and Slurm runs through sched (nil
// when the scheduler cannot be asked).
func NewLives(h probe.Host, sched Scheduler) *Lives {
	return &Lives{host: h, sched: sched, seen: map[string]Liveness{}}
}

// Of is the run's liveness, as Check finds it.
func (l *Lives) Of(ctx context.Context, rec runs.Record) Liveness {
	if rec.Ended() {
		return endedRun(rec)
	}
	if v, ok := l.seen[rec.ID]; ok {
		return v
	}
	v := Check(ctx, l.host, l.sched, rec)
	l.seen[rec.ID] = v
	return v
}
