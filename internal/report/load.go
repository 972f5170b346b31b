package report

import (
	"fmt"

	approvals "github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/schema/validate"
	"github.com/rlxp/rlxp/internal/state"
)

// Load reads the state a report shows and builds the report, with the run
// records recs (runs.List of the repository's runs). Runs are taken from
// their records as written, without asking a scheduler, so that the report
// depends on the files alone. warnings say what was left out: a ledger line
// that does not verify ends what is shown.
func Load(r *state.Repo, recs []runs.Record) (rep *Report, warnings []string, err error) {
	data, err := r.Read(state.Contract)
	if err != nil {
		return nil, nil, err
	}
	c, err := contract.Parse(validate.Schemas{}, r.Show(state.Contract), data)
	if err != nil {
		return nil, nil, err
	}
	if data, err = r.Read(state.Experiments); err != nil {
		return nil, nil, err
	}
	set, err := experiment.Parse(validate.Schemas{}, r.Show(state.Experiments), data)
	if err != nil {
		return nil, nil, err
	}
	if err := approvals.Apply(r, c, set); err != nil {
		return nil, nil, err
	}
	if data, err = r.Read(state.Ledger); err != nil {
		return nil, nil, err
	}
	entries, check := ledger.Load(r.Show(state.Ledger), data)
	if check.Problem != nil {
		warnings = append(warnings, fmt.Sprintf("%s; the report shows the %d entries before it (run 'rlxp ledger verify')", check.Problem, len(entries)))
	}
	rep, err = Build(Input{Contract: c, Experiments: set, Ledger: entries, LedgerCheck: check, Runs: recs})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", r.Show(state.Runs), err)
	}
	return rep, warnings, nil
}
