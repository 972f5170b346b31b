package pin

import (
	"encoding/json"
	"fmt"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/schema"
	"github.com/rlxp/rlxp/internal/state"
)

// States of an experiment's pin of the adapter material.
const (
	Current  = "current"
	StalePin = "stale"
	Unpinned = "unpinned" // approved before rlxp pinned what runs
)

// AdapterState is adapter.yaml's approved material (the fields that decide
// what runs and what is scored) and how each approved experiment's pin of
// it stands. The material is approved per experiment, inside the plan its
// approval pins, rather than as a contract section.
type AdapterState struct {
	File        string       `json:"file"`
	Fields      string       `json:"fields"`
	Digest      string       `json:"digest,omitempty"`
	Problem     string       `json:"problem,omitempty"` // why the adapter or the approvals cannot be read
	Experiments []AdapterPin `json:"experiments"`
}

// An AdapterPin is one approved experiment's pin of the adapter material.
type AdapterPin struct {
	Experiment string `json:"experiment"`
	State      string `json:"state"`
	Changed    string `json:"changed,omitempty"` // the fields changed since approval
}

// StateFiles reads state files and shows their paths, as *state.Repo does.
type StateFiles interface {
	Read(name string) ([]byte, error)
	Show(name string) string
}

// AdapterStatus reads adapter.yaml and compares its material with the pin
// of every experiment whose approval is current and that may still launch
// (approved or running), with the approvals book records (as read from
// the repository's log); c checks the files' schemas. r is the repository,
// or the files one command read from it once.
func AdapterStatus(r StateFiles, c schema.Checker, book approval.Book) AdapterState {
	st := AdapterState{File: r.Show(state.Adapter), Fields: AdapterMaterial(), Experiments: []AdapterPin{}}
	data, err := r.Read(state.Adapter)
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	ad, err := adapter.Parse(c, r.Show(state.Adapter), data)
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	now := Material{Adapter: AdapterDigest(ad), AdapterFields: adapterFields(ad)}
	st.Digest = now.Adapter
	if book.Problem != nil {
		st.Problem = book.Problem.Error()
		return st
	}
	data, err = r.Read(state.Experiments)
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	set, err := experiment.Parse(c, r.Show(state.Experiments), data)
	if err != nil {
		st.Problem = err.Error()
		return st
	}
	book.Apply(nil, set)
	latest := book.Latest(approval.Experiment)
	for _, e := range set.Experiments {
		rec, ok := latest[e.ID]
		if !ok || e.ApprovalState() != contract.Approved || (e.Status != experiment.Approved && e.Status != experiment.Running) {
			continue
		}
		pin := AdapterPin{Experiment: e.ID, State: Unpinned}
		var approved Material
		if len(rec.Plan) > 0 && json.Unmarshal(rec.Plan, &approved) == nil {
			pin.State, pin.Changed = Current, adapterChanged(approved, now)
			if pin.Changed != "" {
				pin.State = StalePin
			}
		}
		st.Experiments = append(st.Experiments, pin)
	}
	return st
}

// Lines is the state as text, one line each: the material, then every
// approved experiment's pin.
func (s AdapterState) Lines() []string {
	if s.Problem != "" {
		return []string{fmt.Sprintf("adapter material (%s): cannot be read: %s", s.Fields, s.Problem)}
	}
	lines := []string{fmt.Sprintf("adapter material of %s (%s): %s, approved with each experiment", s.File, s.Fields, s.Digest)}
	if len(s.Experiments) == 0 {
		lines = append(lines, "  no approved experiment pins it yet")
	}
	for _, p := range s.Experiments {
		switch p.State {
		case StalePin:
			lines = append(lines, fmt.Sprintf("  %s: stale: %s changed since approval; re-approve with 'rlxp experiment approve %s'", p.Experiment, p.Changed, p.Experiment))
		case Unpinned:
			lines = append(lines, fmt.Sprintf("  %s: unpinned: approved before rlxp pinned what runs; re-approve with 'rlxp experiment approve %s'", p.Experiment, p.Experiment))
		default:
			lines = append(lines, fmt.Sprintf("  %s: current", p.Experiment))
		}
	}
	return lines
}
