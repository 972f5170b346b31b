package propose

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/rlxp/rlxp/internal/budget"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/gate"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
)

// Ready says whether the contract holds what a round needs: metrics,
// scope, budget and hardware, and the baseline's seeds unless seeds are
// given.
func Ready(l *contract.Loaded, seeds []int) error {
	if err := l.Require("metrics", "scope", "budget", "hardware"); err != nil {
		return err
	}
	if seeds == nil {
		if err := l.Require("baseline"); err != nil {
			return fmt.Errorf("no --seeds given, and the baseline seeds cannot be used: %w", err)
		}
	}
	return nil
}

// A Request is a round as asked for.
type Request struct {
	Strategy  string // "" is Auto
	N         int    // 0: the default
	Seeds     []int  // nil: the baseline's
	DryRun    bool   // propose without writing
	CreatedAt string // stamped on what is written
}

// Round proposes from the repository's contract, experiments, runs (the
// budget they spent) and ledger (a missing one holds no scores), and
// unless DryRun writes the proposals to experiments.yaml with status
// proposed. The caller holds the state lock unless DryRun.
func Round(ctx context.Context, r *state.Repo, req Request) (Output, error) {
	l, err := workspace.Contract(r)
	if err != nil {
		return Output{}, err
	}
	if err := Ready(l, req.Seeds); err != nil {
		return Output{}, err
	}
	set, err := workspace.Experiments(r)
	if err != nil {
		return Output{}, err
	}
	in := Input{Contract: l, Experiments: set, Strategy: req.Strategy, N: req.N, Seeds: req.Seeds}
	if in.Runs, err = workspace.Runs(ctx, r); err != nil {
		return Output{}, err
	}
	if in.Spend, err = budget.Sum(in.Runs, l.Contract.Budget.MaxRunWallClock.Value()); err != nil {
		return Output{}, err
	}
	in.Ledger, err = ledger.File{Path: r.Path(state.Ledger), Name: r.Show(state.Ledger)}.ReadAll()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Output{}, err
	}
	res, err := Propose(in)
	if err != nil {
		return Output{}, err
	}
	written := false
	if len(res.Proposals) > 0 && !req.DryRun {
		if err := res.Record(set, l.Contract.Scope, req.CreatedAt); err != nil {
			return Output{}, err
		}
		if err := workspace.SaveExperiments(r, set); err != nil {
			return Output{}, err
		}
		written = true
	}
	return res.Output(r.Show(state.Experiments), req.DryRun, written), nil
}

// Add writes a drafted experiment (see experiment.New) to experiments.yaml
// as proposed, when gate.Admit admits it: in scope, no held-out seed,
// within the budget left. A malformed parameter is an
// *experiment.ParamSyntaxError. The caller holds the state lock.
func Add(ctx context.Context, r *state.Repo, d experiment.Draft) (*experiment.Experiment, error) {
	l, err := workspace.Contract(r)
	if err != nil {
		return nil, err
	}
	set, err := workspace.Experiments(r)
	if err != nil {
		return nil, err
	}
	e, err := experiment.New(l, d)
	if err != nil {
		return nil, err
	}
	if err := gate.Admit(l, set, e, func() (budget.Spend, error) { return workspace.Spend(ctx, r, l) }); err != nil {
		return nil, err
	}
	if err := workspace.SaveExperiments(r, set); err != nil {
		return nil, err
	}
	return e, nil
}
