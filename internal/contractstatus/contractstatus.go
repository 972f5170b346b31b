// Package contractstatus is what 'rlxp contract status' reports: the
// approval state of each contract section, with the approvals log's
// records, and how each approved experiment's pin of adapter.yaml stands.
// A report computed from files that have not changed since, byte for
// byte, is remembered (package viewcache) rather than parsed again.
package contractstatus

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/rlxp/rlxp/internal/adapterpin"
	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/schema"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/viewcache"
)

// Schema is the schema field of the report.
const Schema = "rlxp.contract-status/v1"

// A Report is the contract's status and the adapter's pins.
type Report struct {
	Schema string `json:"schema"`
	File   string `json:"file"` // contract.yaml as shown
	contract.Status
	Adapter adapterpin.State `json:"adapter"`
}

// view names the reports in the repository's cache of views.
const view = "contract-status"

// Of reports on repository r; c checks the state files' schemas. The
// error is contract.yaml's (missing, or not YAML: one positioned line) or
// the approvals log's I/O.
func Of(r *state.Repo, c schema.Checker) (Report, error) {
	f := read(r)
	cache := viewcache.Of(r, view)
	inputs, ok := f.inputs()
	var rep Report
	if ok && cache.Load(&rep, inputs...) {
		return rep, nil
	}
	k := &checks{c: c}
	rep, err := compute(f, k)
	if err != nil {
		return Report{}, err
	}
	if ok && !k.failed {
		cache.Store(rep, inputs...)
	}
	return rep, nil
}

// checks notes whether a schema check failed (rather than found
// violations): a report computed then is not remembered, as it holds the
// failure (rlxp's front checks with remembered verdicts alone, and one it
// has not is such a failure) rather than what the files say.
type checks struct {
	c      schema.Checker
	failed bool
}

func (k *checks) Check(f *document.File, name string) ([]*document.Error, error) {
	errs, err := k.c.Check(f, name)
	if err != nil {
		k.failed = true
	}
	return errs, err
}

// compute reads the report from the files as read once.
func compute(f *files, c schema.Checker) (Report, error) {
	data, err := f.Read(state.Contract)
	if err != nil {
		return Report{}, err
	}
	l, err := contract.Parse(c, f.Show(state.Contract), data)
	if err != nil {
		return Report{}, err
	}
	book, err := f.book()
	if err != nil {
		return Report{}, err
	}
	book.Apply(l, nil)
	return Report{Schema, l.File.Path, l.Status(), adapterpin.Status(f, c, book)}, nil
}

// files are the state files the report reads, each read once, so that the
// report and the key it is remembered under are of the same bytes.
type files struct {
	r         *state.Repo
	data      map[string][]byte
	errs      map[string]error
	log       []byte
	logErr    error
	logAbsent bool
}

// names are the state files read through Read.
var names = [...]string{state.Contract, state.Adapter, state.Experiments}

func read(r *state.Repo) *files {
	f := &files{r: r, data: map[string][]byte{}, errs: map[string]error{}}
	for _, n := range names {
		f.data[n], f.errs[n] = r.Read(n)
	}
	f.log, f.logErr = os.ReadFile(r.Path(state.Approvals))
	if errors.Is(f.logErr, fs.ErrNotExist) {
		f.log, f.logErr, f.logAbsent = nil, nil, true
	}
	return f
}

// Read is the state file as read, or the error reading it gave.
func (f *files) Read(name string) ([]byte, error) {
	if _, ok := f.data[name]; !ok {
		return nil, fmt.Errorf("%s: not read for the contract's status", f.Show(name))
	}
	return f.data[name], f.errs[name]
}

// Show is how the file's path is shown.
func (f *files) Show(name string) string { return f.r.Show(name) }

// book is the approvals log as approval.Log.Read reads it: a missing log is
// an empty book.
func (f *files) book() (approval.Book, error) {
	switch {
	case f.logAbsent:
		return approval.Book{}, nil
	case f.logErr != nil:
		return approval.Book{}, fmt.Errorf("read %s: %w", f.Show(state.Approvals), f.logErr)
	}
	return approval.Parse(f.Show(state.Approvals), f.log), nil
}

// inputs are what a remembered report is keyed on; ok is false when a file
// could not be read (the reason may change while the bytes do not).
func (f *files) inputs() ([]viewcache.Input, bool) {
	var in []viewcache.Input
	for _, n := range names {
		if f.errs[n] != nil {
			return nil, false
		}
		in = append(in, viewcache.Input{Name: f.Show(n), Data: f.data[n]})
	}
	if f.logErr != nil {
		return nil, false
	}
	return append(in, viewcache.Input{Name: f.Show(state.Approvals), Data: f.log, Missing: f.logAbsent}), true
}
