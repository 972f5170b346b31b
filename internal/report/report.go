// Package report builds .rlxp/report.md from the state rlxp keeps: the
// contract and its approvals, the experiments, the ledger and the run
// records. It reads nothing itself: the caller loads the state, and the same
// state always gives the same bytes, so a committed report can be checked.
package report

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/rlxp/rlxp/internal/budget"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/gate"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/runs"
)

// Schema is the schema field of the report's JSON form.
const Schema = "rlxp.report/v1"

// Input is the state a report is built from.
type Input struct {
	Contract    *contract.Loaded
	Experiments *experiment.Set
	// Ledger holds the entries whose chain verifies, in order; LedgerCheck
	// is the verification that produced them.
	Ledger      []ledger.Entry
	LedgerCheck ledger.Report
	Runs        []runs.Record
}

// Report is everything the report shows.
type Report struct {
	Task        Task         `json:"task"`
	Contract    Contract     `json:"contract"`
	Budget      Budget       `json:"budget"`
	Experiments []Experiment `json:"experiments"`
	Leaderboard Leaderboard  `json:"leaderboard"`
	Runs        []Run        `json:"runs"`
	Next        []string     `json:"next"`
	// Plots are the learning-curve charts written next to report.md, when
	// asked for; the leaderboard links them.
	Plots []Plot `json:"plots,omitempty"`
}

// Plot is one chart file.
type Plot struct {
	Metric string `json:"metric"`
	File   string `json:"file"` // relative to report.md
}

// Task is the task card, from the contract's task section as written.
type Task struct {
	State       string `json:"state"`
	Description string `json:"description"`
	Environment string `json:"environment"`
	Success     string `json:"success"`
	Notes       string `json:"notes,omitempty"`
}

// Contract is the approval state of each section.
type Contract struct {
	Approved bool      `json:"approved"`
	Sections []Section `json:"sections"`
	// Problems are findings about the file as a whole.
	Problems []string `json:"problems,omitempty"`
}

// Section is one contract section.
type Section struct {
	Name        string `json:"name"`
	State       string `json:"state"`
	By          string `json:"by,omitempty"`
	At          string `json:"at,omitempty"`
	Interactive bool   `json:"interactive,omitempty"`
	Summary     string `json:"summary,omitempty"` // what it says, when complete
	Problem     string `json:"problem,omitempty"` // its first error, when incomplete
	Errors      int    `json:"errors,omitempty"`  // how many errors it has in all
}

// Budget is the contract's budget against what runs spent and approved
// experiments will need.
type Budget struct {
	// Known is false while the budget or hardware section is incomplete:
	// only what was spent can be told then.
	Known            bool    `json:"known"`
	GPUHours         float64 `json:"gpu_hours"`
	GPUHoursSpent    float64 `json:"gpu_hours_spent"`
	GPUHoursReserved float64 `json:"gpu_hours_reserved"`
	GPUHoursLeft     float64 `json:"gpu_hours_left"`
	MaxRuns          int     `json:"max_runs"`
	RunsSpent        int     `json:"runs_spent"`
	RunsReserved     int     `json:"runs_reserved"`
	RunsLeft         int     `json:"runs_left"`
	MaxRunWallClock  string  `json:"max_run_wall_clock,omitempty"`
	MaxConcurrent    int     `json:"max_concurrent"`
	GPUsPerRun       int     `json:"gpus_per_run"` // GPUs per node times nodes
}

// Experiment is one experiment of experiments.yaml with what became of it.
type Experiment struct {
	ID         string    `json:"id"`
	Status     string    `json:"status"`
	Approval   string    `json:"approval"` // approved | stale | unapproved
	Category   string    `json:"category,omitempty"`
	Hypothesis string    `json:"hypothesis,omitempty"`
	Changes    []string  `json:"changes"`
	Seeds      []int     `json:"seeds"`
	Runs       RunCounts `json:"runs"`
	// The latest ledger entry of the experiment, if any.
	Verdict string `json:"verdict,omitempty"`
	Seq     int64  `json:"seq,omitempty"`
}

// RunCounts counts an experiment's runs by state.
type RunCounts struct {
	Total    int `json:"total"`
	Finished int `json:"finished"`
	Failed   int `json:"failed"`
	Stopped  int `json:"stopped"`
	InFlight int `json:"in_flight"`
}

// Leaderboard ranks the latest ledger entry of each experiment.
type Leaderboard struct {
	Metric    string `json:"metric"`
	Aggregate string `json:"aggregate"`
	Goal      string `json:"goal"`
	HeldOut   bool   `json:"held_out"`
	Baseline  string `json:"baseline"`
	Entries   int    `json:"entries"` // ledger entries that verify
	Head      string `json:"head,omitempty"`
	// Problem is the first ledger line that does not verify; entries from
	// it on are left out.
	Problem string `json:"problem,omitempty"`
	Rows    []Row  `json:"rows"`
}

// Row is one experiment's latest ledger entry.
type Row struct {
	// Rank is 1 for the best; 0 for an entry that cannot be ranked (no
	// mean, invalid, a guardrail violated, or scored on another metric than
	// the contract's).
	Rank          int         `json:"rank"`
	Experiment    string      `json:"experiment"`
	Baseline      bool        `json:"baseline"`
	Seq           int64       `json:"seq"`
	Metric        string      `json:"metric"`
	Mean          *float64    `json:"mean"`
	Std           *float64    `json:"std"`
	N             int         `json:"n"`
	CI95          *[2]float64 `json:"ci95"`
	Delta         *float64    `json:"delta"`
	RelativeDelta *float64    `json:"relative_delta"`
	Test          string      `json:"test,omitempty"`
	PValue        *float64    `json:"p_value"`
	Guardrails    Guardrails  `json:"guardrails"`
	Verdict       string      `json:"verdict"`
}

// Guardrails sums up an entry's guardrail checks.
type Guardrails struct {
	Total     int      `json:"total"`
	Passed    int      `json:"passed"`
	Failed    []string `json:"failed,omitempty"`
	Unchecked []string `json:"unchecked,omitempty"`
}

// Run states, as run.json records them.
const (
	Finished        = "finished"
	Failed          = "failed"
	StoppedAtBudget = "stopped_at_budget"
	Stopped         = "stopped"
	InFlight        = "in_flight"
)

// Run is one run record.
type Run struct {
	ID         string `json:"id"`
	Experiment string `json:"experiment"`
	Seed       *int   `json:"seed"`
	Backend    string `json:"backend,omitempty"`
	GPUs       int    `json:"gpus"`
	State      string `json:"state"`
	Detail     string `json:"detail,omitempty"`
	StartedAt  string `json:"started_at"`
	EndedAt    string `json:"ended_at,omitempty"`
}

// Build computes the report. It fails only on a run record whose times
// cannot be read, since the budget could not be told without them.
func Build(in Input) (*Report, error) {
	c := in.Contract
	rep := &Report{Runs: []Run{}, Experiments: []Experiment{}}
	st := c.Status()
	rep.Task = task(c, st)
	rep.Contract = contractState(c, st)

	recs := sortedRuns(in.Runs)
	for _, r := range recs {
		rep.Runs = append(rep.Runs, runOf(r))
	}
	var maxWall time.Duration
	if c.Complete("budget") {
		maxWall = c.Contract.Budget.MaxRunWallClock.Value()
	}
	spend, err := budget.Sum(recs, maxWall)
	if err != nil {
		return nil, err
	}
	latest := latestEntries(in.Ledger)
	in.Experiments.UseLedger(in.Ledger)
	rep.Experiments = experiments(in.Experiments, rep.Runs, latest)
	rep.Budget = budgetOf(c, in.Experiments, spend)
	rep.Leaderboard = leaderboard(c, in.Ledger, in.LedgerCheck, latest)
	rep.Next = nextSteps(in.Experiments, rep, latest)
	return rep, nil
}

func task(c *contract.Loaded, st contract.Status) Task {
	t := Task{State: contract.Incomplete}
	for _, s := range st.Sections {
		if s.Section == "task" {
			t.State = s.State
		}
	}
	// Read as written, so a draft still shows what it has.
	m, _ := c.Section("task").(map[string]any)
	str := func(k string) string { s, _ := m[k].(string); return strings.TrimSpace(s) }
	t.Description, t.Environment, t.Success, t.Notes = str("description"), str("environment"), str("success"), str("notes")
	return t
}

func contractState(c *contract.Loaded, st contract.Status) Contract {
	out := Contract{Approved: st.Approved, Sections: []Section{}}
	for _, f := range st.FileFindings {
		out.Problems = append(out.Problems, finding(f))
	}
	for _, s := range st.Sections {
		sec := Section{Name: s.Section, State: s.State}
		if s.Approval != nil {
			sec.By, sec.At, sec.Interactive = s.Approval.By, s.Approval.At, s.Approval.Interactive
		}
		for _, f := range s.Findings {
			if f.Severity != "error" {
				continue
			}
			if sec.Problem == "" {
				sec.Problem = finding(f)
			}
			sec.Errors++
		}
		if sec.State == contract.Incomplete && sec.Problem == "" {
			sec.Problem = "the section is missing"
		}
		if c.Complete(s.Section) {
			sec.Summary = summary(c.Contract, s.Section)
		}
		out.Sections = append(out.Sections, sec)
	}
	return out
}

// finding is a contract finding without the file's path, which depends on
// where rlxp was run from.
func finding(f contract.Finding) string {
	if f.Field == "" {
		return f.Msg
	}
	return f.Field + ": " + f.Msg
}

// summary says in a line what a complete section holds.
func summary(c contract.Contract, section string) string {
	switch section {
	case "task":
		return c.Task.Environment
	case "metrics":
		p := c.Metrics.Primary
		s := fmt.Sprintf("%s (%s, %s, %s)", p.Name, aggregate(p.Metric), p.Goal, heldOut(p.HeldOut))
		var gs []string
		for _, g := range c.Metrics.Guardrails {
			gs = append(gs, g.Name)
		}
		if len(gs) > 0 {
			s += "; guardrails: " + strings.Join(gs, ", ")
		}
		return s
	case "scope":
		names := make([]string, 0, len(c.Scope.Parameters))
		for n := range c.Scope.Parameters {
			names = append(names, n)
		}
		sort.Strings(names)
		var ps []string
		for _, n := range names {
			ps = append(ps, n+" "+c.Scope.Parameters[n].Describe())
		}
		parts := []string{"parameters: " + orNone(strings.Join(ps, ", "))}
		parts = append(parts, "files: "+orNone(strings.Join(c.Scope.Files, ", ")))
		parts = append(parts, "categories: "+orNone(strings.Join(c.Scope.Categories, ", ")))
		return strings.Join(parts, "; ")
	case "budget":
		b := c.Budget
		return fmt.Sprintf("%s GPU-hours, %d runs, %s per run, %d at a time", num(b.GPUHours), b.MaxRuns, b.MaxRunWallClock, b.MaxConcurrent)
	case "hardware":
		h := c.Hardware
		s := fmt.Sprintf("%s; %s, %d GPU per node × %d node", h.Target, h.Launcher, h.GPUsPerRun, h.Nodes)
		if h.Nodes != 1 {
			s += "s"
		}
		return s
	case "baseline":
		return fmt.Sprintf("%s: %s; seeds %s", c.Baseline.Experiment, c.Baseline.Command, ints(c.Baseline.Seeds))
	case "evaluation":
		e := c.Evaluation
		return fmt.Sprintf("%s; source %s, %d episodes, seeds %s; held out: %s", e.Command, e.Source, e.Episodes, ints(e.Seeds), e.HeldOut)
	}
	return ""
}

func aggregate(m contract.Metric) string {
	switch m.Aggregate {
	case "mean_last_n":
		return fmt.Sprintf("mean of last %d", m.N)
	case "at_step":
		return fmt.Sprintf("at step %d", m.Step)
	}
	return m.Aggregate
}

func heldOut(b bool) string {
	if b {
		return "held out"
	}
	return "NOT held out"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func ints(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// sortedRuns orders runs by start, then id, as status does.
func sortedRuns(recs []runs.Record) []runs.Record {
	out := append([]runs.Record(nil), recs...)
	sort.SliceStable(out, func(i, j int) bool {
		a, _ := time.Parse(time.RFC3339, out[i].StartedAt)
		b, _ := time.Parse(time.RFC3339, out[j].StartedAt)
		return a.Before(b) || a.Equal(b) && out[i].ID < out[j].ID
	})
	return out
}

// runOf reads a run's state from its record alone: no process table and no
// scheduler, so that the report depends on the state files only.
func runOf(r runs.Record) Run {
	run := Run{ID: r.ID, Experiment: r.Experiment, Seed: r.Seed, Backend: r.Backend, GPUs: r.GPUs, StartedAt: r.StartedAt, EndedAt: r.EndedAt}
	switch {
	case !r.Ended():
		run.State = InFlight
	case r.StoppedBy == runs.StoppedBudget:
		run.State = StoppedAtBudget
		if r.WallClock != "" {
			run.Detail = "allowance " + r.WallClock
		}
	case r.StoppedBy != "":
		run.State, run.Detail = Stopped, "by "+r.StoppedBy
	case r.Exit != nil && *r.Exit == 0 && r.Signal == "":
		run.State = Finished
	default:
		run.State = Failed
		switch {
		case r.Signal != "":
			run.Detail = "signal " + r.Signal
		case r.Exit != nil:
			run.Detail = fmt.Sprintf("exit %d", *r.Exit)
		default:
			run.Detail = "no exit status recorded"
		}
	}
	return run
}

// latestEntries maps each experiment to its latest ledger entry.
func latestEntries(entries []ledger.Entry) map[string]ledger.Entry {
	m := map[string]ledger.Entry{}
	for _, e := range entries {
		if id := e.String("experiment"); id != "" {
			m[id] = e
		}
	}
	return m
}

func experiments(set *experiment.Set, rs []Run, latest map[string]ledger.Entry) []Experiment {
	out := []Experiment{}
	for _, e := range set.Experiments {
		x := Experiment{ID: e.ID, Status: e.Shown(), Approval: e.ApprovalState(), Category: e.Category, Hypothesis: e.Hypothesis,
			Changes: []string{}, Seeds: e.Seeds}
		if x.Seeds == nil {
			x.Seeds = []int{}
		}
		for _, it := range e.Params {
			x.Changes = append(x.Changes, fmt.Sprintf("%v=%v", it.Key, it.Value))
		}
		x.Changes = append(x.Changes, e.Files...)
		x.Runs = countRuns(rs, e.ID)
		if le, ok := latest[e.ID]; ok {
			x.Verdict, x.Seq = le.String("verdict"), le.Seq
		}
		out = append(out, x)
	}
	return out
}

func countRuns(rs []Run, id string) RunCounts {
	var c RunCounts
	for _, r := range rs {
		if r.Experiment != id {
			continue
		}
		c.Total++
		switch r.State {
		case Finished:
			c.Finished++
		case Failed:
			c.Failed++
		case InFlight:
			c.InFlight++
		default:
			c.Stopped++
		}
	}
	return c
}

// budgetOf accounts as the gate does: spent is what run records used (a run
// in flight at its whole allowance), reserved is what the seeds not yet run
// of approved experiments will take.
func budgetOf(c *contract.Loaded, set *experiment.Set, spend budget.Spend) Budget {
	b := Budget{GPUHoursSpent: spend.GPUHours, RunsSpent: spend.Runs}
	if !c.Complete("budget") || !c.Complete("hardware") {
		return b
	}
	cb, hw := c.Contract.Budget, c.Contract.Hardware
	b.Known = true
	b.GPUHours, b.MaxRuns = cb.GPUHours, cb.MaxRuns
	b.MaxRunWallClock, b.MaxConcurrent = string(cb.MaxRunWallClock), cb.MaxConcurrent
	b.GPUsPerRun = hw.GPUsPerRun * hw.Nodes
	b.RunsReserved, b.GPUHoursReserved = gate.Reserved(c.Contract, set.Experiments, nil, spend, "")
	b.RunsLeft = b.MaxRuns - b.RunsSpent - b.RunsReserved
	b.GPUHoursLeft = b.GPUHours - b.GPUHoursSpent - b.GPUHoursReserved
	if math.Abs(b.GPUHoursLeft) < 1e-9 {
		b.GPUHoursLeft = 0 // float residue of an exactly spent budget
	}
	return b
}

func leaderboard(c *contract.Loaded, entries []ledger.Entry, check ledger.Report, latest map[string]ledger.Entry) Leaderboard {
	lb := Leaderboard{Rows: []Row{}, Entries: check.Entries, Head: check.Head, Goal: "maximize"}
	if p := check.Problem; p != nil {
		lb.Problem = fmt.Sprintf("line %d: %s", p.Line, p.Msg)
	}
	if c.Complete("metrics") {
		p := c.Contract.Metrics.Primary
		lb.Metric, lb.Aggregate, lb.Goal, lb.HeldOut = p.Name, aggregate(p.Metric), p.Goal, p.HeldOut
	}
	if c.Complete("baseline") {
		lb.Baseline = c.Contract.Baseline.Experiment
	}
	for _, e := range entries {
		id := e.String("experiment")
		if id == "" || latest[id].Seq != e.Seq {
			continue
		}
		lb.Rows = append(lb.Rows, rowOf(e, lb.Baseline))
	}
	// Rank the entries that can be compared: a mean on the contract's
	// primary metric, from a valid scoring that kept its guardrails (a gain
	// that breaks one is a violation, not a gain).
	rankable := func(r Row) bool {
		return r.Mean != nil && r.Verdict != "invalid" && r.Verdict != "guardrail_violated" && (lb.Metric == "" || r.Metric == lb.Metric)
	}
	sort.SliceStable(lb.Rows, func(i, j int) bool {
		a, b := lb.Rows[i], lb.Rows[j]
		ra, rb := rankable(a), rankable(b)
		switch {
		case ra != rb:
			return ra
		case !ra:
			return a.Experiment < b.Experiment
		case *a.Mean != *b.Mean:
			if lb.Goal == "minimize" {
				return *a.Mean < *b.Mean
			}
			return *a.Mean > *b.Mean
		}
		return a.Experiment < b.Experiment
	})
	rank := 0
	for i := range lb.Rows {
		if !rankable(lb.Rows[i]) {
			break
		}
		// Equal means share a rank.
		if i == 0 || *lb.Rows[i].Mean != *lb.Rows[i-1].Mean {
			rank = i + 1
		}
		lb.Rows[i].Rank = rank
	}
	return lb
}

func rowOf(e ledger.Entry, baseline string) Row {
	id := e.String("experiment")
	r := Row{
		Experiment: id, Seq: e.Seq, Metric: e.String("primary", "name"), Verdict: e.String("verdict"),
		Baseline: id == baseline || baseline == "" && e.String("verdict") == "baseline",
		Mean:     number(e, "primary", "mean"), Std: number(e, "primary", "std"),
		Delta: number(e, "baseline", "delta"), RelativeDelta: number(e, "baseline", "relative_delta"),
		PValue: number(e, "baseline", "p_value"), Test: e.String("baseline", "test"),
	}
	if n := number(e, "primary", "n"); n != nil {
		r.N = int(*n)
	}
	if r.N == 0 {
		r.Mean, r.Std = nil, nil // no seed had a value: the mean is no number
	}
	if v, ok := e.Lookup("primary", "ci95"); ok {
		if a, ok := v.([]any); ok && len(a) == 2 {
			lo, ok1 := toFloat(a[0])
			hi, ok2 := toFloat(a[1])
			if ok1 && ok2 {
				r.CI95 = &[2]float64{lo, hi}
			}
		}
	}
	gs, _ := e.Lookup("guardrails")
	list, _ := gs.([]any)
	for _, g := range list {
		m, _ := g.(map[string]any)
		name, _ := m["name"].(string)
		r.Guardrails.Total++
		switch m["pass"] {
		case true:
			r.Guardrails.Passed++
		case false:
			r.Guardrails.Failed = append(r.Guardrails.Failed, name)
		default:
			r.Guardrails.Unchecked = append(r.Guardrails.Unchecked, name)
		}
	}
	return r
}

func number(e ledger.Entry, path ...string) *float64 {
	v, ok := e.Lookup(path...)
	if !ok {
		return nil
	}
	f, ok := toFloat(v)
	if !ok {
		return nil
	}
	return &f
}

func toFloat(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}
