// Package logdiff checks what a branch adds to the append-only logs under
// .rlxp/ (the ledger and the approvals log) since a git ref, and renders it
// as a pull-request comment.
package logdiff

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/state"
)

// Schema is the schema of 'ledger diff --json'.
const Schema = "rlxp.ledger-diff/v1"

// A Result is what the logs add since the base, or the line that refuses
// them.
type Result struct {
	Schema      string              `json:"schema"`
	Base        string              `json:"base"`
	File        string              `json:"file"`
	OK          bool                `json:"ok"`
	BaseEntries int                 `json:"base_entries"`
	Entries     int                 `json:"entries"`
	Head        string              `json:"head"`
	Problem     *ledger.ProblemView `json:"problem"`
	New         []ledger.Entry      `json:"new"`
	Approvals   Approvals           `json:"approvals"`
	Markdown    string              `json:"markdown"`

	refused string // the file the problem is in
}

// Approvals is what the approvals log adds since the base.
type Approvals struct {
	File          string     `json:"file"`
	BaseApprovals int        `json:"base_approvals"`
	Added         []Approval `json:"added"`
}

// An Approval is an added record with its place in the chain.
type Approval struct {
	Seq  int64  `json:"seq"`
	Time string `json:"time"`
	approval.Record
}

// Text is the comment, or the line naming what refuses it.
func (res Result) Text() string {
	if res.Problem != nil {
		return fmt.Sprintf("%s:%d: %s\n", res.refused, res.Problem.Line, res.Problem.Message)
	}
	return res.Markdown
}

// Diff compares the ledger and the approvals log with the same files at
// the git ref base. Each must verify, and extend its base line for line;
// when one does not, the result is not OK and its Problem names the line.
// The error is for what cannot be read (git, the files, the ref).
func Diff(ctx context.Context, r *state.Repo, base string) (Result, error) {
	name := r.Show(state.Ledger)
	old, err := AtRef(ctx, r.Root, base, state.Ledger)
	if err != nil {
		return Result{}, err
	}
	head, err := r.Read(state.Ledger)
	if err != nil {
		_, serr := os.Stat(r.Path(state.Ledger))
		if !errors.Is(serr, fs.ErrNotExist) || len(old) == 0 {
			return Result{}, err
		}
		// Deleted on this branch: ledger.Diff reports the entries it removed.
		head = nil
	}
	res := Result{Schema: Schema, Base: base, File: name, New: []ledger.Entry{}}
	rep := ledger.Check(name, head)
	res.Entries, res.Head = rep.Entries, rep.Head
	if rep.Problem != nil {
		return res.refuse(name, rep.Problem.View()), nil
	}
	d, err := ledger.Diff(old, head)
	var he *ledger.HistoryError
	if errors.As(err, &he) {
		return res.refuse(name, rewritten(he, "the ledger", name, base)), nil
	}
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", name, err)
	}
	// The approvals beside the results: same rules, same refusal.
	aname := r.Show(state.Approvals)
	aold, err := AtRef(ctx, r.Root, base, state.Approvals)
	if err != nil {
		return Result{}, err
	}
	ahead, err := os.ReadFile(r.Path(state.Approvals))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Result{}, fmt.Errorf("read %s: %w", aname, err)
	}
	ad, err := approval.DiffLogs(aname, aold, ahead)
	var ap *ledger.Problem
	switch {
	case errors.As(err, &he):
		return res.refuse(aname, rewritten(he, "the approvals log", aname, base)), nil
	case errors.As(err, &ap):
		return res.refuse(aname, ap.View()), nil
	case err != nil:
		return Result{}, err
	}
	res.OK, res.BaseEntries, res.New = true, d.Base, d.New
	res.Approvals = Approvals{File: aname, BaseApprovals: ad.Base}
	for _, rec := range ad.Added {
		res.Approvals.Added = append(res.Approvals.Added, Approval{rec.Seq, rec.Time, rec})
	}
	if res.Approvals.Added == nil {
		res.Approvals.Added = []Approval{}
	}
	res.Markdown = ledger.Comment(base, d, rep) + approvalsComment(base, ad)
	return res, nil
}

func (res Result) refuse(file string, p *ledger.ProblemView) Result {
	res.Problem, res.refused = p, file
	return res
}

func rewritten(he *ledger.HistoryError, what, name, base string) *ledger.ProblemView {
	return &ledger.ProblemView{Line: he.Line, Message: fmt.Sprintf("%s; %s is append-only, but %s does not extend %s:%s", he.Msg, what, name, base, name)}
}

// approvalsComment is the approvals part of the pull-request comment.
func approvalsComment(base string, d approval.Diff) string {
	n := len(d.Added)
	if n == 0 {
		return fmt.Sprintf("\n### rlxp approvals: none added\n\nNo approval recorded since `%s` (%d there).\n", base, d.Base)
	}
	s := "s"
	if d.Base == 1 {
		s = ""
	}
	return fmt.Sprintf("\n### rlxp approvals: %d added\n\n%s\nThe approvals log verifies and extends the one at `%s` (%d approval%s there).\n", n, approval.Markdown(d.Added), base, d.Base, s)
}
