package propose

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/rlxp/rlxp/internal/budget"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/state"
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

// InRepo proposes a round from in's contract, experiments and runs, with
// the budget the runs spent and the scores in the repository's ledger (a
// missing ledger holds none).
func InRepo(r *state.Repo, in Input) (Result, error) {
	var err error
	if in.Spend, err = budget.Sum(in.Runs, in.Contract.Contract.Budget.MaxRunWallClock.Value()); err != nil {
		return Result{}, err
	}
	in.Ledger, err = ledger.File{Path: r.Path(state.Ledger), Name: r.Show(state.Ledger)}.ReadAll()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Result{}, err
	}
	return Propose(in)
}
