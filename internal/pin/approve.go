package pin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/gate"
	"github.com/rlxp/rlxp/internal/schema/validate"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
)

// Approve records a human's approval of experiment id and the plan it
// pins (Compute), and marks it approved in experiments.yaml. Only a
// proposed (or approved) experiment inside a complete scope can be
// approved, and only while the approvals log verifies; the plan is built
// before anything is asked, since a plan that cannot be built cannot be
// approved. An interactive request that is declined records nothing and
// returns a nil record. The caller holds the state lock.
func Approve(ctx context.Context, r *state.Repo, id string, q approval.Request, confirm approval.Confirm) (*experiment.Experiment, *approval.Record, error) {
	l, err := workspace.Contract(r)
	if err != nil {
		return nil, nil, err
	}
	set, e, err := workspace.Experiment(r, id)
	if err != nil {
		return nil, nil, err
	}
	if e.Status != experiment.Proposed && e.Status != experiment.Approved {
		return nil, nil, fmt.Errorf("experiment %s is %s; only a proposed experiment can be approved", e.ID, e.Status)
	}
	if err := l.Require("scope"); err != nil {
		return nil, nil, err
	}
	if errs := e.ScopeErrors(l.Contract.Scope); len(errs) > 0 {
		return nil, nil, fmt.Errorf("cannot approve %s: %w", e.ID, errors.Join(errs...))
	}
	log := approval.LogOf(r)
	if err := log.Usable(); err != nil {
		return nil, nil, err
	}
	ad, err := Adapter(r)
	if err != nil {
		return nil, nil, err
	}
	m, err := Compute(ctx, r.Root, ad, r.Show(state.Adapter), e)
	if err == nil {
		var book approval.Book
		if book, err = log.Read(); err == nil {
			err = m.pinContents(m.reuseContents(book))
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot pin what %s runs: %w", e.ID, err)
	}
	plan, err := json.Marshal(m)
	if err != nil {
		return nil, nil, err
	}
	if q.Interactive {
		ok, err := confirm(fmt.Sprintf("%s: %s\n%s", e.ID, e.Describe(), m.readsLine()), fmt.Sprintf("Approve experiment %s as %s? [y/N] ", e.ID, q.By))
		if err != nil || !ok {
			return e, nil, err
		}
	}
	rec, err := q.Record(log, approval.Experiment, e.ID, e.Digest(), plan)
	if err != nil {
		return nil, nil, err
	}
	a := rec.Approval()
	e.Status, e.Approval = experiment.Approved, &a
	return e, &rec, workspace.SaveExperiments(r, set)
}

// Adapter reads the repository's adapter.yaml.
func Adapter(r *state.Repo) (*adapter.Adapter, error) {
	data, err := r.Read(state.Adapter)
	if err != nil {
		return nil, err
	}
	return adapter.Parse(validate.Schemas{}, r.Show(state.Adapter), data)
}

// Judge compares what e would run now with what its approval pinned
// (stale), and reads the repository's changes since the baseline's
// commit (changeSet): what the gate needs beyond the contract and the
// experiment. An adapter that cannot be read is a change. What would run
// now is computed once for both.
func Judge(ctx context.Context, r *state.Repo, l *contract.Loaded, e *experiment.Experiment) ([]string, *gate.ChangeSet) {
	ad, err := Adapter(r)
	if err != nil {
		return []string{err.Error()}, nil
	}
	book, err := approval.LogOf(r).Read()
	if err != nil {
		book.Problem = err
	}
	now, err := Compute(ctx, r.Root, ad, r.Show(state.Adapter), e)
	return stale(r, book, e, now, err), changeSet(ctx, r, ad, book, l.Contract.Baseline.Experiment, e, now, err)
}

// readsLine tells the approver which files git does not show are pinned
// with the approval, "" when none.
func (m Material) readsLine() string {
	var hidden []string
	for _, k := range keys(m.Reads, nil) {
		if m.hidden[k] {
			hidden = append(hidden, k)
		}
	}
	if len(hidden) == 0 {
		return ""
	}
	return fmt.Sprintf("  also pins the files the run reads that git does not show: %s\n", strings.Join(hidden, ", "))
}
