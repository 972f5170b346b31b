// Package contract is the experiment contract: the seven sections a human
// approves before anything trains, their approvals, and whether each
// approval still matches the section's content.
package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/schema"
)

// Schema is the value of the schema field of contract.yaml.
const Schema = "rlxp.contract/v1"

// Sections lists the contract's sections in the order they are shown and
// approved.
var sectionNames = [...]string{"task", "metrics", "scope", "budget", "hardware", "baseline", "evaluation"}

// Sections returns the section names in order.
func Sections() []string { return sectionNames[:] }

// IsSection reports whether name is a contract section.
func IsSection(name string) bool {
	for _, s := range sectionNames {
		if s == name {
			return true
		}
	}
	return false
}

// Contract is the typed form of contract.yaml.
type Contract struct {
	Schema     string              `json:"schema"`
	Project    string              `json:"project,omitempty"`
	Task       Task                `json:"task"`
	Metrics    Metrics             `json:"metrics"`
	Scope      Scope               `json:"scope"`
	Budget     Budget              `json:"budget"`
	Hardware   Hardware            `json:"hardware"`
	Baseline   Baseline            `json:"baseline"`
	Evaluation Evaluation          `json:"evaluation"`
	Approvals  map[string]Approval `json:"approvals,omitempty"`
}

type Task struct {
	Description string `json:"description"`
	Environment string `json:"environment"`
	Success     string `json:"success"`
	Notes       string `json:"notes,omitempty"`
}

type Metric struct {
	Name      string `json:"name"`
	Source    string `json:"source"`
	Aggregate string `json:"aggregate"`
	N         int    `json:"n,omitempty"`
	Step      int64  `json:"step,omitempty"`
	Goal      string `json:"goal"`
}

type Primary struct {
	Metric
	HeldOut           bool    `json:"held_out"`
	MinAbsoluteChange float64 `json:"min_absolute_change,omitempty"`
	MinRelativeChange float64 `json:"min_relative_change,omitempty"`
}

type Guardrail struct {
	Metric
	Min                   *float64 `json:"min,omitempty"`
	Max                   *float64 `json:"max,omitempty"`
	MaxRelativeRegression *float64 `json:"max_relative_regression,omitempty"`
}

type Metrics struct {
	Primary    Primary     `json:"primary"`
	Guardrails []Guardrail `json:"guardrails,omitempty"`
}

type Budget struct {
	GPUHours        float64  `json:"gpu_hours"`
	MaxRunWallClock Duration `json:"max_run_wall_clock"`
	MaxRuns         int      `json:"max_runs"`
	MaxConcurrent   int      `json:"max_concurrent"`
	// StepsPerRun is how far a run trains, in the step its metrics count
	// (env steps, frames): a run whose metrics stop short of it did not
	// finish, however it ended.
	StepsPerRun int64 `json:"steps_per_run,omitempty"`
}

type Hardware struct {
	Target     string `json:"target"`
	Launcher   string `json:"launcher"`
	GPUsPerRun int    `json:"gpus_per_run"`
	GPUType    string `json:"gpu_type,omitempty"`
	// ShareGPUs lets a run use a GPU another process already holds; by
	// default a run needs GPUs of its own.
	ShareGPUs bool `json:"share_gpus,omitempty"`
	Nodes     int  `json:"nodes"`
	Slurm     *struct {
		Partition string `json:"partition,omitempty"`
		Account   string `json:"account,omitempty"`
		QOS       string `json:"qos,omitempty"`
	} `json:"slurm,omitempty"`
}

type Baseline struct {
	Experiment string `json:"experiment"`
	Command    string `json:"command"`
	Config     string `json:"config,omitempty"`
	Seeds      []int  `json:"seeds"`
}

type Evaluation struct {
	Command      string     `json:"command"`
	Source       string     `json:"source"`
	Episodes     int        `json:"episodes"`
	Seeds        []int      `json:"seeds"`
	HeldOut      string     `json:"held_out"`
	HeldOutSeeds *SeedRange `json:"held_out_seeds,omitempty"`
}

// A SeedRange is from..to inclusive; To nil means no end.
type SeedRange struct {
	From int  `json:"from"`
	To   *int `json:"to,omitempty"`
}

// HeldOutRange returns the seeds no training run may use: held_out_seeds when
// the contract states them, else the smallest to the largest evaluation
// seed. ok is false when there are none.
func (e Evaluation) HeldOutRange() (r SeedRange, ok bool) {
	if e.HeldOutSeeds != nil {
		return *e.HeldOutSeeds, true
	}
	if len(e.Seeds) == 0 {
		return SeedRange{}, false
	}
	lo, hi := e.Seeds[0], e.Seeds[0]
	for _, s := range e.Seeds {
		lo, hi = min(lo, s), max(hi, s)
	}
	return SeedRange{From: lo, To: &hi}, true
}

// Contains reports whether seed is in the range.
func (r SeedRange) Contains(seed int) bool {
	return seed >= r.From && (r.To == nil || seed <= *r.To)
}

func (r SeedRange) String() string {
	if r.To == nil {
		return fmt.Sprintf("%d and above", r.From)
	}
	return fmt.Sprintf("%d..%d", r.From, *r.To)
}

// An Approval records who approved a section, when, and what content.
type Approval struct {
	By          string `json:"by" yaml:"by"`
	At          string `json:"at" yaml:"at"`
	Digest      string `json:"digest" yaml:"digest"`
	Interactive bool   `json:"interactive" yaml:"interactive"`
}

// A Duration is a Go duration string such as "90m" or "1h30m".
type Duration string

// Value parses the duration; the schema has already checked its form.
func (d Duration) Value() time.Duration {
	v, _ := time.ParseDuration(string(d))
	return v
}

// Digest is the content digest of a decoded value: sha256 over its
// canonical JSON (sorted keys), so edits to comments or layout do not make
// an approval stale while any change of content does.
func Digest(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		// Decoded YAML holds only JSON-representable values (NaN and
		// infinities are rejected on parse).
		b = []byte(fmt.Sprint(v))
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// A Finding is a problem with the contract. Errors make a section
// incomplete; warnings are advice.
type Finding struct {
	Severity string `json:"severity"`
	*document.Error
}

// Loaded is contract.yaml as read from disk: its document, its typed form,
// and every finding from the schema and the consistency checks.
type Loaded struct {
	File *document.File
	// Contract holds every section that passes the schema; a section with
	// errors stays zero, and Complete says which are usable.
	Contract Contract
	Decoded  bool // the whole file passes the schema
	Findings []Finding
	complete map[string]bool

	log        map[string]Approval // from the approvals log (UseApprovals)
	logProblem error

	// checker checked the schema in Parse; what is derived from the
	// contract (a rewrite, adapter.yaml beside it) is checked alike.
	checker schema.Checker
}

// Parse reads contract.yaml. A syntax error is returned as an error;
// schema violations (as c finds them) and inconsistencies become Findings.
func Parse(c schema.Checker, path string, data []byte) (*Loaded, error) {
	f, err := document.Parse(path, data)
	if err != nil {
		return nil, err
	}
	l := &Loaded{File: f, checker: c}
	errs, err := c.Check(f, schema.Contract)
	if err != nil {
		return nil, err
	}
	for _, e := range errs {
		l.Findings = append(l.Findings, Finding{"error", e})
	}
	bad := map[string]bool{}
	for _, f := range l.Findings {
		bad[sectionOf(f)] = true
	}
	l.complete = map[string]bool{}
	fields := map[string]any{"task": &l.Contract.Task, "metrics": &l.Contract.Metrics, "scope": &l.Contract.Scope,
		"budget": &l.Contract.Budget, "hardware": &l.Contract.Hardware, "baseline": &l.Contract.Baseline, "evaluation": &l.Contract.Evaluation}
	for _, name := range sectionNames {
		if bad[name] || l.Section(name) == nil {
			continue
		}
		if err := decodeValue(l.Section(name), fields[name]); err != nil {
			return nil, &document.Error{Path: path, Field: name, Msg: err.Error()}
		}
		l.complete[name] = true
	}
	if len(errs) == 0 {
		// The sections are decoded above; what is left is outside them.
		m, _ := f.Value.(map[string]any)
		l.Contract.Schema, _ = m["schema"].(string)
		l.Contract.Project, _ = m["project"].(string)
		if a := m["approvals"]; a != nil {
			if err := decodeValue(a, &l.Contract.Approvals); err != nil {
				return nil, &document.Error{Path: path, Field: "approvals", Msg: err.Error()}
			}
		}
		l.Decoded = true
		l.Findings = append(l.Findings, l.consistency()...)
	}
	return l, nil
}

// Complete reports whether a section passed the schema, so that its typed
// form in Contract can be used.
func (l *Loaded) Complete(section string) bool { return l.complete[section] }

// decodeValue converts a generic decoded value to a typed one. The schema
// has already checked the shape, so this only moves data.
func decodeValue(v, into any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}

// Section returns the decoded content of a section, or nil if absent.
func (l *Loaded) Section(name string) any {
	m, _ := l.File.Value.(map[string]any)
	return m[name]
}

// Where names the place of a field in the file, as "field at path:line:col".
func (l *Loaded) Where(field ...string) string {
	line, col := l.File.Pos(field)
	return fmt.Sprintf("%s at %s:%d:%d", strings.Join(field, "."), l.File.Path, line, col)
}

// Errors returns the findings with severity error.
func (l *Loaded) Errors() []Finding {
	var fs []Finding
	for _, f := range l.Findings {
		if f.Severity == "error" {
			fs = append(fs, f)
		}
	}
	return fs
}

// sectionOf returns the section a finding belongs to, or "" for findings
// about the file as a whole (schema, unknown keys, approvals).
func sectionOf(f Finding) string {
	field := f.Field
	for i := 0; i < len(field); i++ {
		if field[i] == '.' {
			field = field[:i]
			break
		}
	}
	if IsSection(field) {
		return field
	}
	return ""
}
