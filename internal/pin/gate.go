package pin

import (
	"context"

	"github.com/rlxp/rlxp/internal/budget"
	"github.com/rlxp/rlxp/internal/check"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/gate"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
)

// GateInput is what the gate reads about experiment id (none: the
// contract alone): the experiments, the budget spent by the runs on
// record, the runs a launch would start (as check counts them: the seeds
// without a clean finish, or all of them again when each has one), what
// would run against what was approved, and the changes since the
// baseline's commit.
func GateInput(ctx context.Context, r *state.Repo, l *contract.Loaded, id string) (gate.Input, error) {
	in := gate.Input{Contract: l}
	if id == "" {
		return in, nil
	}
	set, e, err := workspace.Experiment(r, id)
	if err != nil {
		return in, err
	}
	in.Experiments, in.Experiment = set, e
	recs, err := workspace.Runs(ctx, r)
	if err != nil {
		return in, err
	}
	if in.Spend, err = budget.Sum(recs, l.Contract.Budget.MaxRunWallClock.Value()); err != nil {
		return in, err
	}
	seeds := check.Seeds(recs, e, nil)
	if len(seeds) == 0 {
		seeds = e.Seeds
	}
	in.Runs = len(seeds)
	in.PlanChanges, in.Changes = Judge(ctx, r, l, e)
	in.PlanChecked = true
	return in, nil
}
