package approval

import (
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/state"
)

// LogOf is the approvals log of a repository.
func LogOf(r *state.Repo) Log {
	return Log{Path: r.Path(state.Approvals), Name: r.Show(state.Approvals)}
}

// Apply gives the contract and the experiments (either may be nil) the
// approvals recorded in the repository's log, the only ones they trust.
// The error is for I/O; a log that does not verify is recorded in both as
// a problem that leaves nothing approved.
func Apply(r *state.Repo, c *contract.Loaded, set *experiment.Set) error {
	b, err := LogOf(r).Read()
	if err != nil {
		return err
	}
	b.Apply(c, set)
	return nil
}

// Apply gives the contract and the experiments (either may be nil) the
// approvals b records, as Apply does with the log it reads.
func (b Book) Apply(c *contract.Loaded, set *experiment.Set) {
	if c != nil {
		c.UseApprovals(b.approvals(Section), b.Problem)
	}
	if set != nil {
		set.UseApprovals(b.approvals(Experiment), b.Problem)
	}
}

// approvals are the latest approval of each subject of a kind, in the form
// the contract and the experiments hold them.
func (b Book) approvals(kind string) map[string]contract.Approval {
	out := map[string]contract.Approval{}
	for subject, rec := range b.Latest(kind) {
		out[subject] = rec.Approval()
	}
	return out
}
