// Package adapterpin is adapter.yaml's approved material: the fields that
// decide what runs and what is scored, their digests, and how each
// approved experiment's pin of them stands. Package pin computes and
// compares whole pins (commands, files, git); this part is apart from it
// so that contract status, which rlxp's front binary serves, links none
// of that.
package adapterpin

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/schema"
	"github.com/rlxp/rlxp/internal/state"
)

// Digest is the digest of adapter.yaml's fields that decide what runs,
// what is scored and what is pinned: the commands, the config rendering,
// the metric sources, the interpreter, the guard's allow list and the
// declared outputs (only when there are any, so that adapters without
// them keep their digest).
func Digest(ad *adapter.Adapter) string { return contract.Digest(material(ad)) }

func material(ad *adapter.Adapter) map[string]any {
	fields := map[string]any{
		"commands": ad.Commands, "config": ad.Config, "metrics": ad.Metrics.Sources,
		"python": ad.Runtime.Python, "guard_allow": ad.Guard.Allow,
	}
	// Fields added later count only when set, so that adapters without
	// them keep their digest.
	if len(ad.Outputs) > 0 {
		fields["outputs"] = ad.Outputs
	}
	if len(ad.EnvFiles) > 0 {
		fields["env_files"] = ad.EnvFiles
	}
	if len(ad.Code) > 0 {
		fields["code"] = ad.Code
	}
	return fields
}

// Fields is the digest of each field Digest covers.
func Fields(ad *adapter.Adapter) map[string]string {
	out := map[string]string{}
	for k, v := range material(ad) {
		out[k] = contract.Digest(map[string]any{k: v})
	}
	return out
}

// fieldNames are the adapter fields as people read them, in order.
var fieldNames = [...][2]string{{"commands", "commands"}, {"config", "config rendering"}, {"metrics", "metric sources"},
	{"python", "interpreter"}, {"guard_allow", "guard allow list"}, {"outputs", "outputs"},
	{"env_files", "env files"}, {"code", "code directories"}}

// Names names the fields of adapter.yaml an approval pins.
func Names() string {
	names := make([]string, len(fieldNames))
	for i, f := range fieldNames {
		names[i] = f[1]
	}
	return strings.Join(names, ", ")
}

// A Pin is the adapter material as an approval recorded it (the fields
// of the approval's plan that hold it) or as it is now.
type Pin struct {
	Adapter       string            `json:"adapter"`
	AdapterFields map[string]string `json:"adapter_fields,omitempty"`
}

// Of is the adapter's material now.
func Of(ad *adapter.Adapter) Pin { return Pin{Digest(ad), Fields(ad)} }

// Changed names the adapter fields that differ; when an approval recorded
// no digest per field, all of them, as one.
func Changed(approved, now Pin) string {
	if approved.Adapter == now.Adapter {
		return ""
	}
	if approved.AdapterFields == nil || now.AdapterFields == nil {
		m := Names()
		i := strings.LastIndex(m, ", ")
		return "the " + m[:i] + " or " + m[i+2:]
	}
	var changed []string
	for _, f := range fieldNames {
		if approved.AdapterFields[f[0]] != now.AdapterFields[f[0]] {
			changed = append(changed, f[1])
		}
	}
	return strings.Join(changed, ", ")
}

// States of an experiment's pin of the adapter material.
const (
	Current  = "current"
	StalePin = "stale"
	Unpinned = "unpinned" // approved before rlxp pinned what runs
)

// State is adapter.yaml's approved material (the fields that decide what
// runs and what is scored) and how each approved experiment's pin of it
// stands. The material is approved per experiment, inside the plan its
// approval pins, rather than as a contract section.
type State struct {
	File        string          `json:"file"`
	Fields      string          `json:"fields"`
	Digest      string          `json:"digest,omitempty"`
	Problem     string          `json:"problem,omitempty"` // why the adapter or the approvals cannot be read
	Experiments []ExperimentPin `json:"experiments"`
}

// An ExperimentPin is one approved experiment's pin of the adapter
// material.
type ExperimentPin struct {
	Experiment string `json:"experiment"`
	State      string `json:"state"`
	Changed    string `json:"changed,omitempty"` // the fields changed since approval
}

// StateFiles reads state files and shows their paths, as *state.Repo does.
type StateFiles interface {
	Read(name string) ([]byte, error)
	Show(name string) string
}

// Status reads adapter.yaml and compares its material with the pin of
// every experiment whose approval is current and that may still launch
// (approved or running), with the approvals book records (as read from the
// repository's log); c checks the files' schemas. r is the repository, or
// the files one command read from it once.
func Status(r StateFiles, c schema.Checker, book approval.Book) State {
	st := State{File: r.Show(state.Adapter), Fields: Names(), Experiments: []ExperimentPin{}}
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
	now := Of(ad)
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
		pin := ExperimentPin{Experiment: e.ID, State: Unpinned}
		var approved Pin
		if len(rec.Plan) > 0 && json.Unmarshal(rec.Plan, &approved) == nil {
			pin.State, pin.Changed = Current, Changed(approved, now)
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
func (s State) Lines() []string {
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
