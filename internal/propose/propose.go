// Package propose suggests the next experiments: bounded candidates inside
// the contract's approved scope and its remaining budget, chosen from the
// ledger's evidence by one of a few deterministic strategies. Every
// proposal passes the gate's own scope and budget checks, together with
// the proposals made with it, before it is returned; when none can, the
// result says why. The package returns values only.
package propose

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/rlxp/rlxp/internal/budget"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/gate"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/state"
)

// Strategies.
const (
	Auto         = "auto"
	Local        = "local"
	SpaceFilling = "space-filling"
	Halving      = "halving"
)

// Strategies lists the strategy names.
func Strategies() []string { return []string{Auto, Local, SpaceFilling, Halving} }

const (
	// DefaultN is how many proposals a round makes unless told otherwise.
	DefaultN = 4
	// defaultHalvingN is how many configurations a halving plan starts
	// with unless told otherwise: screening runs are cheap.
	defaultHalvingN = 8
	// autoHalvingRounds: auto plans successive halving when the runs left
	// cover at least this many full-length rounds.
	autoHalvingRounds = 3
)

// Input is what a round of proposals is drawn from.
type Input struct {
	Contract    *contract.Loaded
	Experiments *experiment.Set
	Ledger      []ledger.Entry
	Runs        []runs.Record // finished runs' durations estimate costs
	Spend       budget.Spend
	Strategy    string // "" is Auto
	N           int    // most proposals (configurations for halving); 0: the default
	Seeds       []int  // nil: the baseline's
}

// Result is a round of proposals, or the reason there is none.
type Result struct {
	Strategy  string     `json:"strategy"`
	Why       string     `json:"why"`
	Best      *Scored    `json:"best,omitempty"`
	Proposals []Proposal `json:"proposals"`
	Plan      *Plan      `json:"plan,omitempty"`
	Budget    Room       `json:"budget"`
	// Reason says why nothing fits, or why fewer than asked for did.
	Reason string   `json:"reason,omitempty"`
	Notes  []string `json:"notes,omitempty"`
}

// Room is the budget before the round, and what the round reserves once
// its proposals are approved (the gate's arithmetic: wall-clock
// allowances, not estimates).
type Room struct {
	RunsLeft         int     `json:"runs_left"`
	GPUHoursLeft     float64 `json:"gpu_hours_left"`
	RunsProposed     int     `json:"runs_proposed"`
	GPUHoursProposed float64 `json:"gpu_hours_proposed"`
	// CPUOnly says the contract approves no GPUs: runs are the budget,
	// GPU-hours are always zero and not worth a word.
	CPUOnly bool `json:"cpu_only,omitempty"`
}

// A Proposal is an experiment to write with status proposed, and what it
// is expected to cost.
type Proposal struct {
	Experiment *experiment.Experiment `json:"experiment"`
	Cost       Cost                   `json:"cost"`
}

// Cost is a proposal's expected cost, estimated from past runs.
type Cost struct {
	Runs         int     `json:"runs"`
	RunWallClock string  `json:"run_wall_clock"` // expected per run
	Elapsed      string  `json:"elapsed"`        // all runs, max_concurrent at a time
	GPUHours     float64 `json:"gpu_hours"`
	// ReservedGPUHours is what the gate charges: the wall-clock allowance.
	ReservedGPUHours float64 `json:"reserved_gpu_hours"`
	Basis            string  `json:"basis"`
}

// A candidate is a setting a strategy would like to try.
type candidate struct {
	id         string // before it is made unique
	params     yaml.MapSlice
	category   string
	hypothesis string
	rank       int // higher first, for local steps
}

// Propose draws a round of proposals.
func Propose(in Input) (Result, error) {
	p, err := newProposer(in)
	if err != nil {
		return Result{}, err
	}
	var res Result
	switch p.strategy {
	case Local:
		res = p.runLocal("requested")
	case SpaceFilling:
		res = p.runSpace("requested")
	case Halving:
		res = p.runHalving("requested")
	default:
		res = p.runAuto()
	}
	res.Budget.RunsLeft = max(0, p.budget.RunsLeft())
	res.Budget.GPUHoursLeft = math.Max(0, roundHours(p.budget.GPUHoursLeft()))
	res.Budget.CPUOnly = p.c.Hardware.GPUsPerRun == 0 && p.c.Budget.GPUHours == 0
	for _, pr := range res.Proposals {
		res.Budget.RunsProposed += pr.Cost.Runs
		res.Budget.GPUHoursProposed += pr.Cost.ReservedGPUHours
	}
	res.Budget.GPUHoursProposed = roundHours(res.Budget.GPUHoursProposed)
	// Strategies that fall back to another may note the same thing twice.
	for _, n := range p.notes {
		if !slices.Contains(res.Notes, n) {
			res.Notes = append(res.Notes, n)
		}
	}
	if res.Proposals == nil {
		res.Proposals = []Proposal{}
	}
	return res, nil
}

// A proposer holds what every strategy reads.
type proposer struct {
	in       Input
	c        contract.Contract
	strategy string
	n        int // 0: the strategy's default
	seeds    []int
	wall     time.Duration // the contract's per-run maximum
	dims     []dim
	notes    []string
	budget   *gate.Budget // before the round
	// base holds the baseline's recorded settings, under every
	// experiment's own: a parameter an experiment does not set keeps the
	// baseline's value.
	base   settings
	known  map[string]settings // effective settings by experiment id
	scored map[string]Scored
	best   *Scored
	// tried holds the settings of every experiment, each true when the
	// ledger has its outcome.
	tried   map[string]bool
	taken   map[string]bool // ids in use
	elapsed map[string][]time.Duration
}

func newProposer(in Input) (*proposer, error) {
	l := in.Contract
	for _, s := range []string{"metrics", "scope", "budget", "hardware"} {
		if !l.Complete(s) {
			return nil, fmt.Errorf("contract section %s is incomplete; see 'rlxp contract validate'", s)
		}
	}
	strategy := in.Strategy
	if strategy == "" {
		strategy = Auto
	}
	if !slices.Contains(Strategies(), strategy) {
		return nil, fmt.Errorf("unknown strategy %q (want %s)", strategy, strings.Join(Strategies(), ", "))
	}
	if in.N < 0 {
		return nil, fmt.Errorf("cannot make %d proposals", in.N)
	}
	if in.Experiments == nil {
		return nil, errors.New("no experiments given")
	}
	c := l.Contract
	seeds := in.Seeds
	if len(seeds) == 0 {
		if !l.Complete("baseline") {
			return nil, errors.New("no seeds given, and the contract's baseline section (whose seeds are the default) is incomplete")
		}
		seeds = c.Baseline.Seeds
	}
	p := &proposer{
		in: in, c: c, strategy: strategy, n: in.N, seeds: seeds,
		wall:  c.Budget.MaxRunWallClock.Value(),
		base:  settings{},
		known: map[string]settings{}, tried: map[string]bool{}, taken: map[string]bool{},
		elapsed: map[string][]time.Duration{},
	}
	p.dims, p.notes = dims(c.Scope)
	probe := gate.Fit(gate.Input{Contract: l, Experiments: in.Experiments, Experiment: &experiment.Experiment{}, Spend: in.Spend})
	p.budget = probe.Budget

	for _, e := range in.Experiments.Experiments {
		if e.ID == c.Baseline.Experiment {
			p.base = settingsOf(e.Params)
		}
	}
	p.known[c.Baseline.Experiment] = p.base
	p.taken[c.Baseline.Experiment] = true
	for id := range in.Spend.ByExperiment {
		p.taken[id] = true
	}
	judged := map[string]bool{}
	for _, e := range in.Ledger {
		judged[e.String("experiment")] = true
		p.taken[e.String("experiment")] = true
	}
	for _, e := range in.Experiments.Experiments {
		eff := overlay(p.base, settingsOf(e.Params))
		p.known[e.ID] = eff
		p.tried[eff.key()] = p.tried[eff.key()] || judged[e.ID]
		p.taken[e.ID] = true
	}
	p.scored = scored(in.Ledger, c.Metrics.Primary.Name)
	p.findBest()
	for _, r := range in.Runs {
		// A run that failed early says nothing about how long one takes.
		if !r.Ended() || (r.Exit != nil && *r.Exit != 0 && r.StoppedBy != runs.StoppedBudget) {
			continue
		}
		if h, err := r.Hours(0); err == nil {
			p.elapsed[r.Experiment] = append(p.elapsed[r.Experiment], time.Duration(h*float64(time.Hour)))
		}
	}
	return p, nil
}

// findBest picks the best scored experiment whose settings are known; the
// baseline keeps the title on a tie.
func (p *proposer) findBest() {
	var ids []string
	for id := range p.scored {
		if _, ok := p.known[id]; ok {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return p.scored[ids[i]].Seq < p.scored[ids[j]].Seq })
	base := p.c.Baseline.Experiment
	if s, ok := p.scored[base]; ok {
		p.best = &s
	}
	for _, id := range ids {
		s := p.scored[id]
		if p.best == nil || better(s.Mean, p.best.Mean, p.c.Metrics.Primary.Goal) {
			p.best = &s
		}
	}
}

func (p *proposer) isTried(s settings) bool {
	_, ok := p.tried[s.key()]
	return ok
}

// scoredBeyond counts the experiments other than the baseline with a
// usable ledger entry.
func (p *proposer) scoredBeyond() int {
	n := len(p.scored)
	if _, ok := p.scored[p.c.Baseline.Experiment]; ok {
		n--
	}
	return n
}

// fresh reports whether nothing beyond the baseline has been scored.
func (p *proposer) fresh() bool { return p.scoredBeyond() == 0 }

func (p *proposer) nOr(def int) int {
	if p.n > 0 {
		return p.n
	}
	return def
}

// runAuto: halving when the runs left cover several full-length rounds,
// else space-filling on a fresh scope and local steps once something is
// scored (space-filling again when every local step was tried).
func (p *proposer) runAuto() Result {
	round := p.nOr(DefaultN) * len(p.seeds)
	if left := p.budget.RunsLeft(); left >= autoHalvingRounds*round && p.nOr(defaultHalvingN) >= 2 {
		res := p.runHalving(fmt.Sprintf("%d runs are left, at least %d full-length rounds of %d", left, autoHalvingRounds, round))
		if len(res.Proposals) > 0 {
			return res
		}
		p.notes = append(p.notes, "no halving plan fits ("+res.Reason+"); proposing full-length runs instead")
	}
	if p.fresh() {
		return p.runSpace("nothing beyond the baseline is scored yet")
	}
	n := p.scoredBeyond()
	return p.runLocal(fmt.Sprintf("%d scored experiment%s beyond the baseline", n, plural(n)))
}

// runLocal proposes one-factor steps around the best so far; when none is
// left and the strategy is auto, a space-filling round instead.
func (p *proposer) runLocal(why string) Result {
	res := Result{Strategy: Local, Why: why, Best: p.best}
	if len(p.dims) == 0 {
		res.Reason = p.noDims()
		return res
	}
	cands, none := p.localCandidates()
	if len(cands) == 0 && p.strategy == Auto {
		sf := p.runSpace(none + ", so sampling the rest of the scope")
		sf.Best = p.best
		return sf
	}
	if len(cands) == 0 {
		res.Reason = none
		return res
	}
	res.Proposals, res.Reason = p.admit(cands, p.nOr(DefaultN), p.wall, none)
	return res
}

// runSpace proposes space-filling points.
func (p *proposer) runSpace(why string) Result {
	res := Result{Strategy: SpaceFilling, Why: why}
	if len(p.dims) == 0 {
		res.Reason = p.noDims()
		return res
	}
	n := p.nOr(DefaultN)
	cands, none := p.spaceCandidates(n)
	if len(cands) == 0 {
		res.Reason = none
		return res
	}
	res.Proposals, res.Reason = p.admit(cands, n, p.wall, none)
	return res
}

func (p *proposer) noDims() string {
	if len(p.c.Scope.Parameters) == 0 {
		return "the scope has no tunable parameters; changes to files are for 'rlxp experiment add'"
	}
	return "no parameter in the scope can be varied: " + strings.Join(p.notes, "; ")
}

// admit turns candidates into proposals, in order, each checked by the
// gate together with those admitted before it, until n are admitted. The
// reason says why fewer than n were: a refusal, or exhausted, the
// generator's word for running out of candidates.
func (p *proposer) admit(cands []candidate, n int, wall time.Duration, exhausted string) ([]Proposal, string) {
	var out []Proposal
	var pending []*experiment.Experiment
	seen := map[string]bool{}
	var reason string
	for _, c := range cands {
		if len(out) == n {
			break
		}
		eff := overlay(p.base, settingsOf(c.params))
		if p.isTried(eff) || seen[eff.key()] {
			continue
		}
		e := &experiment.Experiment{
			ID: p.freeID(c.id), Status: experiment.Proposed, Category: c.category, Hypothesis: c.hypothesis,
			Params: c.params, Seeds: slices.Clone(p.seeds), WallClock: p.duration(wall),
		}
		a := gate.Fit(gate.Input{Contract: p.in.Contract, Experiments: p.in.Experiments, Experiment: e, Spend: p.in.Spend, Pending: pending})
		if !a.Open {
			var scopeUnmet []string
			for _, cond := range a.Conditions {
				if !cond.OK && !strings.HasPrefix(cond.Check, "budget") {
					scopeUnmet = append(scopeUnmet, cond.Detail)
				}
			}
			if len(scopeUnmet) == 0 {
				// Every candidate of a round needs the same runs and hours:
				// when one does not fit, none after it will.
				reason = budgetReason(a.Budget, len(pending) > 0)
				break
			}
			if reason == "" {
				reason = "outside the approved scope: " + strings.Join(scopeUnmet, "; ")
			}
			continue
		}
		seen[eff.key()] = true
		p.taken[e.ID] = true
		pending = append(pending, e)
		out = append(out, Proposal{Experiment: e, Cost: p.estimate(e, wall)})
	}
	if reason == "" {
		reason = exhausted
	}
	switch {
	case len(out) == n:
		reason = ""
	case len(out) > 0:
		reason = fmt.Sprintf("only %d of %d: %s", len(out), n, reason)
	}
	return out, reason
}

func budgetReason(b *gate.Budget, more bool) string {
	what := "budget exhausted"
	if more {
		what = "budget exhausted by the proposals above"
	}
	return fmt.Sprintf("%s: %d run%s and %.2f GPU-hours left (of %d runs and %.2f GPU-hours; %d runs and %.2f GPU-hours spent or reserved), and each proposal needs %d run%s and %.2f GPU-hours",
		what, max(0, b.RunsLeft()), plural(max(0, b.RunsLeft())), math.Max(0, b.GPUHoursLeft()), b.MaxRuns, b.GPUHours,
		b.RunsSpent+b.RunsReserved, b.GPUHoursSpent+b.GPUHoursHeld, b.RunsNeeded, plural(b.RunsNeeded), b.GPUHoursNeeded)
}

// duration is a wall-clock as experiments.yaml holds it: the contract's
// own spelling for its maximum.
func (p *proposer) duration(d time.Duration) contract.Duration {
	if d == p.wall {
		return p.c.Budget.MaxRunWallClock
	}
	return contract.Duration(d.String())
}

// freeID makes an id valid and unused, adding -2, -3… when taken.
func (p *proposer) freeID(base string) string {
	b := []byte(base)
	for i, c := range b {
		if !(c == '.' || c == '_' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[i] = '_'
		}
	}
	s := strings.TrimLeft(strings.ReplaceAll(string(b), "..", "._"), "._-")
	if s == "" {
		s = "p"
	}
	s = s[:min(len(s), 56)]
	id := s
	for i := 2; p.taken[id] || state.ValidID(id) != nil; i++ {
		id = fmt.Sprintf("%s-%d", s, i)
	}
	return id
}

// estimate is a proposal's expected cost: the mean duration of the
// finished runs of the experiment closest to it, else the allowance.
func (p *proposer) estimate(e *experiment.Experiment, wall time.Duration) Cost {
	eff := overlay(p.base, settingsOf(e.Params))
	var ids []string
	for id := range p.elapsed {
		if _, ok := p.known[id]; ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	closest, best := "", math.Inf(1)
	for _, id := range ids {
		d := distance(eff, p.known[id], p.dims)
		if d < best || (d == best && len(p.elapsed[id]) > len(p.elapsed[closest])) {
			closest, best = id, d
		}
	}
	per := wall
	basis := fmt.Sprintf("no finished runs to go by: the %s allowance", fmtDuration(wall))
	if closest != "" {
		var sum time.Duration
		for _, d := range p.elapsed[closest] {
			sum += d
		}
		n := len(p.elapsed[closest])
		mean := sum / time.Duration(n)
		per = min(mean, wall)
		basis = fmt.Sprintf("mean of %d finished run%s of %s (%s)", n, plural(n), closest, fmtDuration(mean))
		if mean > wall {
			basis += fmt.Sprintf(", capped at the %s allowance", fmtDuration(wall))
		}
	}
	runs := len(e.Seeds)
	gpus := float64(p.c.Hardware.GPUsPerRun * p.c.Hardware.Nodes)
	waves := (runs + max(1, p.c.Budget.MaxConcurrent) - 1) / max(1, p.c.Budget.MaxConcurrent)
	return Cost{
		Runs:             runs,
		RunWallClock:     fmtDuration(per),
		Elapsed:          fmtDuration(per * time.Duration(waves)),
		GPUHours:         roundHours(float64(runs) * gpus * per.Hours()),
		ReservedGPUHours: roundHours(float64(runs) * gpus * wall.Hours()),
		Basis:            basis,
	}
}

func fmtDuration(d time.Duration) string { return d.Round(time.Second).String() }

func roundHours(h float64) float64 { return math.Round(h*1e4) / 1e4 }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
