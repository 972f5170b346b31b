// Package workspace reads a target repository's state the way every rlxp
// command trusts it: the contract and the experiments with the approvals
// recorded in the approvals log (the only ones trusted), and the run
// records with what the scheduler and the process table say about runs
// still open.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/budget"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/launch"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/schema/validate"
	"github.com/rlxp/rlxp/internal/slurm"
	"github.com/rlxp/rlxp/internal/state"
)

// Contract reads contract.yaml with the approvals the log records.
func Contract(r *state.Repo) (*contract.Loaded, error) {
	data, err := r.Read(state.Contract)
	if err != nil {
		return nil, err
	}
	l, err := contract.Parse(validate.Schemas{}, r.Show(state.Contract), data)
	if err != nil {
		return nil, err
	}
	book, err := approval.LogOf(r).Read()
	if err != nil {
		return nil, err
	}
	book.Apply(l, nil)
	return l, nil
}

// Experiments reads experiments.yaml with the approvals the log records.
func Experiments(r *state.Repo) (*experiment.Set, error) {
	data, err := r.Read(state.Experiments)
	if err != nil {
		return nil, err
	}
	set, err := experiment.Parse(validate.Schemas{}, r.Show(state.Experiments), data)
	if err != nil {
		return nil, err
	}
	if err := approval.Apply(r, nil, set); err != nil {
		return nil, err
	}
	return set, nil
}

// ExperimentsScored is Experiments with what the ledger says of each
// (experiment.Set.UseLedger): the entries whose chain verifies.
func ExperimentsScored(r *state.Repo) (*experiment.Set, error) {
	set, err := Experiments(r)
	if err != nil {
		return nil, err
	}
	// A missing ledger is one with no entries: nothing scored yet.
	data, err := os.ReadFile(r.Path(state.Ledger))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", r.Show(state.Ledger), err)
	}
	entries, _ := ledger.Load(r.Show(state.Ledger), data)
	set.UseLedger(entries)
	return set, nil
}

// Experiment reads experiments.yaml and finds one experiment in it.
func Experiment(r *state.Repo, id string) (*experiment.Set, *experiment.Experiment, error) {
	set, err := Experiments(r)
	if err != nil {
		return nil, nil, err
	}
	e, err := set.Get(id)
	if err != nil {
		return nil, nil, err
	}
	return set, e, nil
}

// SaveExperiments replaces experiments.yaml with s, once the rendered file
// is proven to read back.
func SaveExperiments(r *state.Repo, s *experiment.Set) error {
	data, err := s.Encode()
	if err != nil {
		return err
	}
	if _, err := experiment.Parse(validate.Schemas{}, s.Path, data); err != nil {
		return fmt.Errorf("refusing to write %s: %w", s.Path, err)
	}
	return state.WriteFile(r.Path(state.Experiments), data, 0o644)
}

// Runs reads every run record, with what the scheduler knows about Slurm
// runs that have no end recorded yet. A local run whose supervision was
// killed is stopped and recorded by the first command that looks.
func Runs(ctx context.Context, r *state.Repo) ([]runs.Record, error) {
	recs, _, err := RunsLive(ctx, r)
	return recs, err
}

// RunsLive is Runs, with the liveness of each run as the sweep of lost
// runs found it, for the in-flight checks that follow.
func RunsLive(ctx context.Context, r *state.Repo) ([]runs.Record, *diagnose.Lives, error) {
	recs, err := runs.List(r.Path(state.Runs))
	if err != nil {
		return nil, nil, err
	}
	for _, rec := range recs {
		if rec.Backend == runs.Slurm && !rec.Ended() {
			launch.Refresh(ctx, slurm.New(), recs)
			break
		}
	}
	lives := diagnose.NewLives(probe.System(), nil)
	if err := launch.Sweep(ctx, lives, r.Path(state.Runs), recs, time.Now()); err != nil {
		return nil, nil, err
	}
	return recs, lives, nil
}

// Spend is what the runs recorded so far have spent of c's budget.
func Spend(ctx context.Context, r *state.Repo, c *contract.Loaded) (budget.Spend, error) {
	recs, err := Runs(ctx, r)
	if err != nil {
		return budget.Spend{}, err
	}
	return budget.Sum(recs, c.Contract.Budget.MaxRunWallClock.Value())
}
