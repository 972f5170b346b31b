package launch

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/slurm"
	"github.com/rlxp/rlxp/internal/state"
)

// A Launched run is one a launch recorded: started, submitted or queued.
type Launched struct {
	ID     string `json:"id"`
	Seed   int    `json:"seed"`
	State  string `json:"state"` // started | queued | submitted
	PID    int    `json:"pid,omitempty"`
	JobID  string `json:"job_id,omitempty"`
	Log    string `json:"log"`
	RunDir string `json:"run_dir"`
}

// A RaceError is a launch that lost to another: a run started while it
// was being checked. It counts as the state lock being held.
type RaceError struct{ Run, Experiment string }

func (e *RaceError) Error() string {
	return fmt.Sprintf("run %s of %s started while this launch was being checked; nothing launched", e.Run, e.Experiment)
}

// Is makes a lost race read as state.ErrLocked.
func (e *RaceError) Is(target error) bool { return target == state.ErrLocked }

// A Start is one launch of a confirmed plan. The caller holds the state
// lock, so that two launches cannot both pass the in-flight check, and
// Runs are the records as read under it.
type Start struct {
	Plan    *Plan
	RunsDir string
	Runs    []runs.Record
	// InFlight says whether a recorded run still holds the machine.
	InFlight func(runs.Record) bool
	Now      time.Time
	// Confirmed is how the plan was confirmed, recorded in every run.
	Confirmed string
}

// Run records the plan's runs and starts them on its backend. It returns
// the runs as launched, and for a multi-node local plan the commands a
// human runs on the other nodes. On an error, the runs that did start are
// returned with it.
func (s Start) Run(ctx context.Context) ([]Launched, []string, error) {
	p := s.Plan
	for _, r := range s.Runs {
		if s.InFlight(r) {
			return nil, nil, &RaceError{Run: r.ID, Experiment: r.Experiment}
		}
	}
	ids := make([]string, len(p.Runs))
	for i, r := range p.Runs {
		ids[i] = RunID(p.Experiment, r.Seed, s.Now)
	}
	records := p.Records(ids, s.Now)
	for i := range records {
		records[i].Confirmed = s.Confirmed
	}
	for _, rec := range records {
		if err := runs.Write(s.RunsDir, rec); err != nil {
			return nil, nil, err
		}
	}
	out := make([]Launched, len(p.Runs))
	for i, r := range p.Runs {
		out[i] = Launched{ID: ids[i], Seed: r.Seed, State: "queued", Log: records[i].Log, RunDir: r.RunDir}
	}
	switch p.Backend {
	case runs.Local:
		exe, err := os.Executable()
		if err != nil {
			return nil, nil, fmt.Errorf("find the rlxp binary for the supervisor: %w", err)
		}
		started, err := StartLocal(exe, []string{"rlxp", "supervise"}, Job{Plan: p, IDs: ids, RunsDir: s.RunsDir})
		for _, st := range started {
			for i := range out {
				if out[i].ID == st.ID {
					out[i].State, out[i].PID = "started", st.PID
				}
			}
		}
		if err != nil {
			return out, nil, fmt.Errorf("launch %s: %w", p.Experiment, err)
		}
		var nodes []string
		if p.Nodes > 1 {
			host, _ := os.Hostname()
			nodes = p.NodeCommands(host)
		}
		return out, nodes, nil
	case runs.Slurm:
		exe, err := os.Executable()
		if err != nil {
			return nil, nil, fmt.Errorf("find the rlxp binary for the jobs: %w", err)
		}
		jobs, err := SubmitSlurm(ctx, slurm.New(), p, ids, s.RunsDir, exe)
		for i, job := range jobs {
			out[i].State, out[i].JobID = "submitted", job
		}
		if err != nil {
			return out[:len(jobs)], nil, fmt.Errorf("launch %s: %w", p.Experiment, err)
		}
		return out, nil, nil
	}
	return nil, nil, fmt.Errorf("launch %s: backend %q is not supported", p.Experiment, p.Backend)
}
