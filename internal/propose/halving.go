package propose

import (
	"fmt"
	"time"
)

// maxRungs bounds a halving plan: with more, the first rung's runs are so
// short that their metric says little about the full run.
const maxRungs = 3

// Plan is a successive-halving plan: every configuration runs at a
// fraction of the wall-clock allowance, and the better half of each rung
// runs again at twice the length, up to the full allowance. Only rung 0
// is proposed; later rungs are promoted by hand once a rung is scored.
type Plan struct {
	Metric   string  `json:"metric"`
	Rungs    []Rung  `json:"rungs"`
	Runs     int     `json:"runs"`
	GPUHours float64 `json:"gpu_hours"` // at the allowances, if every rung runs
}

// A Rung is one stage of a plan.
type Rung struct {
	Configs   int     `json:"configs"`
	WallClock string  `json:"wall_clock"`
	Runs      int     `json:"runs"`
	GPUHours  float64 `json:"gpu_hours"`
}

// rungsFor is how many rungs n configurations support: halving until one
// is left, at most maxRungs.
func rungsFor(n int) int {
	rungs := 1
	for m := n; m >= 2 && rungs < maxRungs; m /= 2 {
		rungs++
	}
	return rungs
}

// rungWall is rung r's wall-clock: the allowance halved once per rung left
// above it, in whole seconds.
func (p *proposer) rungWall(r, rungs int) time.Duration {
	return (p.wall >> (rungs - 1 - r)).Truncate(time.Second)
}

func (p *proposer) plan(n, rungs int) *Plan {
	pl := &Plan{Metric: p.c.Metrics.Primary.Name}
	gpus := float64(p.c.Hardware.GPUsPerRun * p.c.Hardware.Nodes)
	hours := 0.0
	for r := range rungs {
		configs := (n + 1<<r - 1) >> r
		wall := p.rungWall(r, rungs)
		rg := Rung{Configs: configs, WallClock: fmtDuration(wall), Runs: configs * len(p.seeds)}
		h := float64(rg.Runs) * gpus * wall.Hours()
		rg.GPUHours = roundHours(h)
		pl.Rungs = append(pl.Rungs, rg)
		pl.Runs += rg.Runs
		hours += h
	}
	pl.GPUHours = roundHours(hours)
	return pl
}

func (p *proposer) fits(pl *Plan) bool {
	return pl.Runs <= p.budget.RunsLeft() && pl.GPUHours <= p.budget.GPUHoursLeft()+1e-9
}

// runHalving plans successive halving over the largest number of
// configurations (at most n) whose whole plan fits the budget left, and
// proposes rung 0. The configurations are space-filling points on a fresh
// scope, else local steps around the best so far and then space-filling
// points.
func (p *proposer) runHalving(why string) Result {
	res := Result{Strategy: Halving, Why: why, Best: p.best}
	if len(p.dims) == 0 {
		res.Reason = p.noDims()
		return res
	}
	most := p.nOr(defaultHalvingN)
	if most < 2 {
		res.Reason = "a halving plan needs at least 2 configurations"
		return res
	}
	cands, none := p.spaceCandidates(most)
	if !p.fresh() {
		local, _ := p.localCandidates()
		cands = append(local, cands...)
	}
	if len(cands) < 2 {
		res.Reason = "a halving plan needs at least 2 untried settings: " + none
		return res
	}
	n, rungs := min(most, len(cands)), 0
	for ; n >= 2; n-- {
		rungs = rungsFor(n)
		if p.rungWall(0, rungs) >= time.Second && p.fits(p.plan(n, rungs)) {
			break
		}
	}
	if n < 2 {
		pl := p.plan(2, rungsFor(2))
		res.Reason = fmt.Sprintf("budget too small for a halving plan: the smallest (2 configurations, %d rungs) needs %d runs and %.2f GPU-hours; %d runs and %.2f GPU-hours are left",
			len(pl.Rungs), pl.Runs, pl.GPUHours, max(0, p.budget.RunsLeft()), max(0, p.budget.GPUHoursLeft()))
		return res
	}
	for i := range cands {
		cands[i].id += "-r0"
	}
	props, reason := p.admit(cands, n, p.rungWall(0, rungs), none)
	if len(props) < 2 {
		res.Reason = "a halving plan needs at least 2 configurations that fit: " + reason
		return res
	}
	res.Plan = p.plan(len(props), rungs)
	res.Reason = reason
	r0, r1 := res.Plan.Rungs[0], res.Plan.Rungs[1]
	for _, pr := range props {
		pr.Experiment.Hypothesis = fmt.Sprintf("%s. Rung 0 of a %d-rung successive-halving plan: a %s screening run of the %s allowed; the best %d of %d by %s continue at %s",
			pr.Experiment.Hypothesis, len(res.Plan.Rungs), r0.WallClock, fmtDuration(p.wall), r1.Configs, r0.Configs, res.Plan.Metric, r1.WallClock)
	}
	res.Proposals = props
	return res
}
