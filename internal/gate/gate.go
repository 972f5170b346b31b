// Package gate answers "may this experiment launch?" from the contract's
// approvals, the experiment's approval and scope, and the budget left. It
// lists every unmet condition, never just the first.
package gate

import (
	"fmt"
	"strings"

	"github.com/rlxp/rlxp/internal/budget"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
)

// Schema is the schema field of a gate answer.
const Schema = "rlxp.gate/v1"

// A Condition is one requirement of the gate.
type Condition struct {
	Check  string `json:"check"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// Budget is the budget arithmetic behind the answer.
type Budget struct {
	MaxRuns        int     `json:"max_runs"`
	RunsSpent      int     `json:"runs_spent"`
	RunsReserved   int     `json:"runs_reserved"`
	RunsNeeded     int     `json:"runs_needed"`
	GPUHours       float64 `json:"gpu_hours"`
	GPUHoursSpent  float64 `json:"gpu_hours_spent"`
	GPUHoursHeld   float64 `json:"gpu_hours_reserved"`
	GPUHoursNeeded float64 `json:"gpu_hours_needed"`
}

// RunsLeft is the runs not yet spent or reserved; negative when overdrawn.
func (b *Budget) RunsLeft() int { return b.MaxRuns - b.RunsSpent - b.RunsReserved }

// GPUHoursLeft is the GPU-hours not yet spent or reserved.
func (b *Budget) GPUHoursLeft() float64 { return b.GPUHours - b.GPUHoursSpent - b.GPUHoursHeld }

// Answer is the gate's verdict.
type Answer struct {
	Schema     string      `json:"schema"`
	Experiment string      `json:"experiment,omitempty"`
	Open       bool        `json:"open"`
	Unmet      int         `json:"unmet"`
	Conditions []Condition `json:"conditions"`
	Budget     *Budget     `json:"budget,omitempty"`
}

// Input is what the gate reads.
type Input struct {
	Contract    *contract.Loaded
	Experiments *experiment.Set
	Experiment  *experiment.Experiment // nil: contract conditions only
	Spend       budget.Spend
	// Runs is how many runs the launch would start; 0 means the
	// experiment's seeds that have not run yet.
	Runs int
	// Pending are experiments about to be written together with this one
	// (a round of proposals): they reserve their runs whatever their
	// status, so that the round as a whole must fit.
	Pending []*experiment.Experiment
	// PlanChecked says that PlanChanges were computed: every way what the
	// experiment would run differs from what its approval pinned.
	PlanChecked bool
	PlanChanges []string
	// Changes is what the repository changed since the baseline's
	// recorded commit, checked against the scope's file rules; nil: not
	// checked (add, propose).
	Changes *ChangeSet
}

// A ChangeSet is the files changed since the commit the baseline was
// scored at (pin.Judge computes it).
type ChangeSet struct {
	Base  string   // the baseline's commit; "" when there is none to compare with
	Files []string // changed since, relative to the repository
	// Why there is no commit to compare with, or, when Failed, why the
	// change set could not be read.
	Why    string
	Failed bool
}

// Evaluate computes the answer.
func Evaluate(in Input) Answer {
	a := Answer{Schema: Schema}
	add := a.add

	st := in.Contract.Status()
	for _, f := range st.FileFindings {
		add("contract", false, "%s", f.Error.Error())
	}
	for _, s := range st.Sections {
		switch s.State {
		case contract.Approved:
			add("contract."+s.Section, true, "approved by %s at %s", s.Approval.By, s.Approval.At)
		case contract.Stale:
			add("contract."+s.Section, false, "stale: edited after %s approved it at %s; re-approve with 'rlxp contract approve %s'", s.Approval.By, s.Approval.At, s.Section)
		case contract.Unapproved:
			add("contract."+s.Section, false, "not approved; a human runs 'rlxp contract approve %s'", s.Section)
		default:
			detail := "section is missing"
			if len(s.Findings) > 0 {
				detail = s.Findings[0].Error.Error()
				if n := len(s.Findings) - 1; n > 0 {
					detail += fmt.Sprintf(" (+%d more; see 'rlxp contract validate')", n)
				}
			}
			add("contract."+s.Section, false, "incomplete: %s", detail)
		}
	}

	e := in.Experiment
	if e == nil {
		a.finish()
		return a
	}
	a.Experiment = e.ID
	switch e.Status {
	case experiment.Proposed, experiment.Approved:
		switch e.ApprovalState() {
		case contract.Approved:
			add("experiment", true, "approved by %s at %s", e.Approval.By, e.Approval.At)
			if in.PlanChecked {
				if len(in.PlanChanges) > 0 {
					add("experiment.plan", false, "stale: what would run differs from what %s approved: %s; re-approve with 'rlxp experiment approve %s'", e.Approval.By, strings.Join(in.PlanChanges, "; "), e.ID)
				} else {
					add("experiment.plan", true, "commands, adapter, configs and code as approved")
				}
			}
		case contract.Stale:
			add("experiment", false, "stale: edited after %s approved it; re-approve with 'rlxp experiment approve %s'", e.Approval.By, e.ID)
		default:
			add("experiment", false, "not approved; a human runs 'rlxp experiment approve %s'", e.ID)
		}
	default:
		add("experiment", false, "status is %s; only an approved experiment may launch", e.Status)
	}

	a.fit(in)
	a.finish()
	return a
}

// Fit checks only what an experiment asks for, scope and budget, exactly as
// Evaluate does but whatever its approval and that of the contract: the
// check an experiment passes before it is written (add, propose).
func Fit(in Input) Answer {
	a := Answer{Schema: Schema, Experiment: in.Experiment.ID}
	a.fit(in)
	a.finish()
	return a
}

func (a *Answer) add(check string, ok bool, format string, args ...any) {
	a.Conditions = append(a.Conditions, Condition{check, ok, fmt.Sprintf(format, args...)})
}

// fit adds the scope and budget conditions of in.Experiment.
func (a *Answer) fit(in Input) {
	e, add := in.Experiment, a.add
	c := in.Contract.Contract
	if !in.Contract.Complete("scope") {
		add("scope", false, "cannot check: the scope section is incomplete")
	} else {
		errs := e.ScopeErrors(c.Scope)
		for _, err := range errs {
			add("scope", false, "%s", err)
		}
		if len(errs) == 0 {
			add("scope", true, "%s", describeScope(e))
		}
		if in.Changes != nil {
			a.checkChanges(in.Changes, c.Scope)
		}
	}

	if in.Contract.Complete("evaluation") {
		a.checkHeldOut(e, c.Evaluation)
	} else {
		add("seeds", false, "cannot check: the evaluation section, which holds the held-out seeds, is incomplete")
	}

	if !in.Contract.Complete("budget") || !in.Contract.Complete("hardware") {
		add("budget", false, "cannot check: the budget or hardware section is incomplete")
	} else {
		a.Budget = checkBudget(in, c, add)
	}
}

// checkChanges holds what the repository really changed since the
// baseline's commit to the scope's file rules, whatever the experiment
// declares: every file outside them is an unmet condition of its own.
func (a *Answer) checkChanges(cs *ChangeSet, scope contract.Scope) {
	switch {
	case cs.Failed:
		a.add("scope.files", false, "cannot read the files changed since the baseline's commit: %s", cs.Why)
		return
	case cs.Base == "":
		a.add("scope.files", true, "not checked: %s", cs.Why)
		return
	}
	base := cs.Base[:min(len(cs.Base), 12)]
	out := 0
	for _, f := range cs.Files {
		if err := scope.CheckChanged(f); err != nil {
			a.add("scope.files", false, "changed since the baseline's commit %s: %v", base, err)
			out++
		}
	}
	if out == 0 {
		a.add("scope.files", true, "%d file%s changed since the baseline's commit %s, all inside the scope", len(cs.Files), pluralS(len(cs.Files)), base)
	}
}

// checkHeldOut refuses training seeds inside the protocol's held-out
// evaluation seeds: a policy trained on them is scored on what it saw.
func (a *Answer) checkHeldOut(e *experiment.Experiment, ev contract.Evaluation) {
	r, ok := ev.HeldOutRange()
	if !ok {
		a.add("seeds", true, "training seeds %v; the contract holds out no evaluation seeds", e.Seeds)
		return
	}
	var inside []string
	for _, s := range e.Seeds {
		if r.Contains(s) {
			inside = append(inside, fmt.Sprint(s))
		}
	}
	if len(inside) > 0 {
		a.add("seeds", false, "training seed%s %s inside the held-out evaluation seeds %s", pluralS(len(inside)), strings.Join(inside, ", "), r)
		return
	}
	a.add("seeds", true, "training seeds %v outside the held-out evaluation seeds %s", e.Seeds, r)
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (a *Answer) finish() {
	a.Open = true
	for _, c := range a.Conditions {
		if !c.OK {
			a.Open = false
			a.Unmet++
		}
	}
}

func describeScope(e *experiment.Experiment) string {
	var parts []string
	for _, it := range e.Params {
		parts = append(parts, fmt.Sprintf("%v=%v", it.Key, it.Value))
	}
	parts = append(parts, e.Files...)
	if len(parts) == 0 {
		return "no changes (baseline)"
	}
	return "inside scope: " + strings.Join(parts, " ")
}

// Reserved is what experiments have been promised and not yet used: the
// seeds not yet run of every approved or running one in set, and of every
// pending one whatever its status, except the experiment named skip.
func Reserved(c contract.Contract, set, pending []*experiment.Experiment, spend budget.Spend, skip string) (runs int, gpuHours float64) {
	maxWall := c.Budget.MaxRunWallClock.Value()
	gpus := c.Hardware.GPUsPerRun * c.Hardware.Nodes
	var promised []*experiment.Experiment
	for _, x := range set {
		if x.Status == experiment.Approved || x.Status == experiment.Running {
			promised = append(promised, x)
		}
	}
	for _, x := range append(promised, pending...) {
		if x.ID == skip {
			continue
		}
		wall := maxWall
		if x.WallClock != "" {
			wall = x.WallClock.Value()
		}
		left := max(0, len(x.Seeds)-spend.ByExperiment[x.ID])
		runs += left
		gpuHours += float64(left*gpus) * wall.Hours()
	}
	return runs, gpuHours
}

// checkBudget charges the experiment's remaining runs, plus the remaining
// runs of every other approved experiment (already promised budget) and of
// the pending ones, against what the contract allows.
func checkBudget(in Input, c contract.Contract, add func(string, bool, string, ...any)) *Budget {
	maxWall := c.Budget.MaxRunWallClock.Value()
	wall := maxWall
	e := in.Experiment
	if e.WallClock != "" {
		wall = e.WallClock.Value()
	}
	perRunHours := float64(c.Hardware.GPUsPerRun*c.Hardware.Nodes) * wall.Hours()
	remaining := func(x *experiment.Experiment) int {
		return max(0, len(x.Seeds)-in.Spend.ByExperiment[x.ID])
	}
	b := &Budget{
		MaxRuns:       c.Budget.MaxRuns,
		RunsSpent:     in.Spend.Runs,
		RunsNeeded:    remaining(e),
		GPUHours:      c.Budget.GPUHours,
		GPUHoursSpent: in.Spend.GPUHours,
	}
	if in.Runs > 0 {
		b.RunsNeeded = in.Runs
	}
	b.GPUHoursNeeded = float64(b.RunsNeeded) * perRunHours
	var others []*experiment.Experiment
	if in.Experiments != nil {
		others = in.Experiments.Experiments
	}
	b.RunsReserved, b.GPUHoursHeld = Reserved(c, others, in.Pending, in.Spend, e.ID)

	by := "other approved experiments"
	if len(in.Pending) > 0 {
		by += " and the proposals made with this one"
	}
	runsLeft := b.RunsLeft()
	add("budget.runs", b.RunsNeeded <= runsLeft, "needs %d runs; %d of %d left (%d spent, %d reserved by %s)",
		b.RunsNeeded, max(0, runsLeft), b.MaxRuns, b.RunsSpent, b.RunsReserved, by)
	hoursLeft := b.GPUHoursLeft()
	if perRunHours == 0 && b.GPUHours == 0 && b.GPUHoursSpent == 0 {
		// A CPU-only contract: a line of zeros would read like a budget spent.
		add("budget.gpu_hours", true, "runs use no GPU and the contract budgets none")
	} else {
		add("budget.gpu_hours", b.GPUHoursNeeded <= hoursLeft+1e-9, "needs %.2f GPU-hours; %.2f of %.2f left (%.2f spent, %.2f reserved)",
			b.GPUHoursNeeded, max(0, hoursLeft), b.GPUHours, b.GPUHoursSpent, b.GPUHoursHeld)
	}
	add("budget.wall_clock", wall <= maxWall, "%s per run; the contract allows %s", wall, maxWall)
	return b
}

// Verdict is the answer's last line: open, or closed with the number of
// unmet conditions.
func (a Answer) Verdict() string {
	what := "contract"
	if a.Experiment != "" {
		what = a.Experiment
	}
	if a.Open {
		return fmt.Sprintf("GATE %s: OPEN", what)
	}
	return fmt.Sprintf("GATE %s: CLOSED — %d unmet condition%s", what, a.Unmet, pluralS(a.Unmet))
}
