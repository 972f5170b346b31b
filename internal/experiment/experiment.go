// Package experiment manages experiments.yaml: the experiments proposed
// inside the contract's scope, and which of them a human approved.
package experiment

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/goccy/go-yaml"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/plaintext"
	"github.com/rlxp/rlxp/internal/schema"
	"github.com/rlxp/rlxp/internal/state"
)

// Schema is the value of the schema field of experiments.yaml.
const Schema = "rlxp.experiments/v1"

// Statuses of an experiment.
const (
	Proposed = "proposed"
	Approved = "approved"
	Rejected = "rejected"
	Running  = "running"
	Done     = "done"
	Failed   = "failed"
)

// An Experiment is one planned change, run over a set of seeds.
type Experiment struct {
	ID         string            `json:"id" yaml:"id"`
	Status     string            `json:"status" yaml:"status"`
	Category   string            `json:"category,omitempty" yaml:"category,omitempty"`
	Hypothesis string            `json:"hypothesis,omitempty" yaml:"hypothesis,omitempty"`
	Params     yaml.MapSlice     `json:"-" yaml:"params,omitempty"`
	Files      []string          `json:"files,omitempty" yaml:"files,omitempty"`
	Seeds      []int             `json:"seeds" yaml:"seeds,flow"`
	WallClock  contract.Duration `json:"wall_clock,omitempty" yaml:"wall_clock,omitempty"`
	CreatedAt  string            `json:"created_at,omitempty" yaml:"created_at,omitempty"`
	// Approval comes from the approvals log (Set.UseApprovals); an
	// approval block in experiments.yaml, from an older rlxp or written by
	// hand, is never read and is dropped when the file is next written.
	Approval  *contract.Approval `json:"approval,omitempty" yaml:"-"`
	Rejection *Rejection         `json:"rejection,omitempty" yaml:"rejection,omitempty"`
	// Scoring comes from the ledger (Set.UseLedger); nil when unscored.
	Scoring *Scoring `json:"scoring,omitempty" yaml:"-"`
}

// A Rejection records who turned an experiment down and why.
type Rejection struct {
	By     string `json:"by" yaml:"by"`
	At     string `json:"at" yaml:"at"`
	Reason string `json:"reason,omitempty" yaml:"reason,omitempty"`
}

// ParamMap returns the parameters as a map, for JSON and digests.
func (e *Experiment) ParamMap() map[string]any {
	m := make(map[string]any, len(e.Params))
	for _, it := range e.Params {
		m[fmt.Sprint(it.Key)] = it.Value
	}
	return m
}

// Digest covers what the experiment would run: a change to any of it after
// approval makes the approval stale. The hypothesis is prose and is left out.
func (e *Experiment) Digest() string {
	return contract.Digest(map[string]any{
		"id": e.ID, "category": e.Category, "params": e.ParamMap(),
		"files": e.Files, "seeds": e.Seeds, "wall_clock": e.WallClock,
	})
}

// ApprovalState is approved, stale or unapproved.
func (e *Experiment) ApprovalState() string {
	switch {
	case e.Approval == nil:
		return contract.Unapproved
	case e.Approval.Digest != e.Digest():
		return contract.Stale
	default:
		return contract.Approved
	}
}

// A Set is the decoded experiments.yaml.
type Set struct {
	Path        string
	Experiments []*Experiment
}

// Parse reads experiments.yaml; a schema violation is an error naming the
// file, line and field (c checks the schema).
func Parse(c schema.Checker, path string, data []byte) (*Set, error) {
	f, err := document.Parse(path, data)
	if err != nil {
		return nil, err
	}
	errs, err := c.Check(f, schema.Experiments)
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	// Parameters keep the order they were written in, so decode them from
	// YAML rather than through the generic value.
	var doc struct {
		Experiments []*Experiment `yaml:"experiments"`
	}
	if err := f.DecodeYAML(&doc, yaml.UseOrderedMap()); err != nil {
		return nil, err
	}
	s := &Set{Path: path, Experiments: doc.Experiments}
	m, _ := f.Value.(map[string]any)
	raw, _ := m["experiments"].([]any)
	for i, e := range s.Experiments {
		// Typed params (1e-3 as a number) come from the normalised value.
		if r, ok := raw[i].(map[string]any); ok {
			if ps, ok := r["params"].(map[string]any); ok {
				seen := map[string]bool{}
				for j := range e.Params {
					// A key written as a number (1: x) is still a name.
					name := fmt.Sprint(e.Params[j].Key)
					if seen[name] {
						l, c := f.Pos([]string{"experiments", fmt.Sprint(i), "params"})
						return nil, &document.Error{Path: path, Line: l, Col: c, Field: fmt.Sprintf("experiments.%d.params", i), Msg: fmt.Sprintf("parameter %s appears twice", name)}
					}
					seen[name] = true
					e.Params[j].Key = name
					e.Params[j].Value = ps[name]
				}
			}
		}
		for _, prev := range s.Experiments[:i] {
			if prev.ID == e.ID {
				l, c := f.Pos([]string{"experiments", fmt.Sprint(i), "id"})
				return nil, &document.Error{Path: path, Line: l, Col: c, Field: fmt.Sprintf("experiments.%d.id", i), Msg: fmt.Sprintf("duplicate id %q", e.ID)}
			}
		}
	}
	return s, nil
}

// UseApprovals gives each experiment its latest approval from the
// approvals log; problem is the log's, when it does not verify, and then no
// experiment counts as approved.
func (s *Set) UseApprovals(approvals map[string]contract.Approval, problem error) {
	for _, e := range s.Experiments {
		e.Approval = nil
		if a, ok := approvals[e.ID]; ok && problem == nil {
			e.Approval = &a
		}
	}
}

// Get returns the experiment with the given id.
func (s *Set) Get(id string) (*Experiment, error) {
	if err := state.ValidID(id); err != nil {
		return nil, err
	}
	for _, e := range s.Experiments {
		if e.ID == id {
			return e, nil
		}
	}
	return nil, fmt.Errorf("%s: no experiment %q (see 'rlxp experiment list')", s.Path, id)
}

// Add appends a new experiment after checking it against the scope.
func (s *Set) Add(e *Experiment, scope contract.Scope) error {
	if err := state.ValidID(e.ID); err != nil {
		return err
	}
	if err := plaintext.Check("the hypothesis", e.Hypothesis); err != nil {
		return err
	}
	if slices.ContainsFunc(s.Experiments, func(x *Experiment) bool { return x.ID == e.ID }) {
		return fmt.Errorf("%s: experiment %q already exists", s.Path, e.ID)
	}
	if errs := e.ScopeErrors(scope); len(errs) > 0 {
		return errs[0]
	}
	s.Experiments = append(s.Experiments, e)
	return nil
}

// ScopeErrors lists every way the experiment leaves the scope.
func (e *Experiment) ScopeErrors(scope contract.Scope) []error {
	var errs []error
	if err := scope.CheckCategory(e.Category); err != nil {
		errs = append(errs, err)
	}
	for _, it := range e.Params {
		if err := scope.CheckParam(fmt.Sprint(it.Key), it.Value); err != nil {
			errs = append(errs, err)
		}
	}
	for _, f := range e.Files {
		if err := scope.CheckFile(f); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

const header = `# Experiments for this repository, managed by rlxp.
# Add with 'rlxp experiment add'; a human approves with 'rlxp experiment approve'.
# Editing an approved experiment makes its approval stale.
`

// Encode renders the set as experiments.yaml.
func (s *Set) Encode() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(header)
	doc := yaml.MapSlice{{Key: "schema", Value: Schema}, {Key: "experiments", Value: s.Experiments}}
	if len(s.Experiments) == 0 {
		doc[1].Value = []any{}
	}
	b, err := yaml.MarshalWithOptions(doc, yaml.IndentSequence(true))
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", s.Path, err)
	}
	buf.Write(b)
	return buf.Bytes(), nil
}

// Reject turns a proposed or approved experiment down, with who, when and
// why; it stays on record.
func (e *Experiment) Reject(by, at, reason string) error {
	if e.Status != Proposed && e.Status != Approved {
		return fmt.Errorf("experiment %s is %s; only a proposed or approved experiment can be rejected", e.ID, e.Status)
	}
	e.Status = Rejected
	e.Rejection = &Rejection{By: by, At: at, Reason: reason}
	return nil
}
