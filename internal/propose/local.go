package propose

import (
	"fmt"
	"github.com/rlxp/rlxp/internal/contract"
	"math"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
)

// localLevels is how many step sizes local tries in each direction, each
// half the one before: when a step was tried already, the search narrows
// around the best instead of stopping.
const localLevels = 3

// Local steps: multiplicative by 2 on a log scale, a tenth of the range on
// a linear one (at least 1 for integers), the neighbouring choice, the
// other boolean.
const (
	logFactor     = 2
	linearDivisor = 10
)

// centreOf is the experiment local steps from: the best so far, else the
// baseline; with its own parameters and its effective settings.
func (p *proposer) centreOf() (string, yaml.MapSlice, settings) {
	id := p.c.Baseline.Experiment
	if p.best != nil {
		id = p.best.Experiment
	}
	var own yaml.MapSlice
	for _, e := range p.in.Experiments.Experiments {
		if e.ID == id {
			own = e.Params
		}
	}
	return id, own, p.known[id]
}

// localCandidates are one-factor steps around the centre, up and down for
// each parameter, skipping settings already tried. The text says what
// running out of them means.
func (p *proposer) localCandidates() ([]candidate, string) {
	id, own, eff := p.centreOf()
	centre := p.describeCentre()
	var cands []candidate
	var unknown []string
	for _, d := range p.dims {
		v, ok := eff[d.name]
		if !ok {
			unknown = append(unknown, d.name)
			continue
		}
		for _, dir := range []int{1, -1} {
			nv, how, ok := p.step(d, v, dir, eff)
			if !ok {
				continue
			}
			evidence, rank := p.trend(d, v, nv, dir, id, eff)
			cands = append(cands, candidate{
				id:         d.name + "-" + fmtValue(nv),
				params:     withParam(own, d.name, nv),
				category:   d.category,
				hypothesis: fmt.Sprintf("%s %s→%s (%s): %s; %s", d.name, fmtValue(v), fmtValue(nv), how, centre, evidence),
				rank:       rank,
			})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].rank > cands[j].rank })
	if len(unknown) > 0 {
		base := p.c.Baseline.Experiment
		where := id + " or the baseline"
		if id == base {
			where = base
		}
		// A recorded baseline is not edited (it is approved and scored):
		// an experiment that sets the values gives local steps a start.
		how := fmt.Sprintf("record the baseline's settings with 'rlxp experiment add %s --param NAME=VALUE'", base)
		if p.hasExperiment(base) {
			how = fmt.Sprintf("%s is recorded and not edited: an experiment that sets %s (to the program's defaults, say), once scored, gives local steps a value to start from", base, pronoun(len(unknown)))
		}
		p.notes = append(p.notes, fmt.Sprintf("no value is recorded for %s in %s, so local steps leave %s alone; %s",
			strings.Join(unknown, ", "), where, pronoun(len(unknown)), how))
	}
	if len(unknown) == len(p.dims) {
		return nil, fmt.Sprintf("no one-factor step around %s is possible: neither it nor the baseline records a value for any parameter", id)
	}
	return cands, fmt.Sprintf("scope exhausted: every one-factor step around %s was tried", id)
}

// hasExperiment says whether experiments.yaml records id.
func (p *proposer) hasExperiment(id string) bool {
	for _, e := range p.in.Experiments.Experiments {
		if e.ID == id {
			return true
		}
	}
	return false
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// describeCentre is the evidence for stepping from the centre.
func (p *proposer) describeCentre() string {
	switch {
	case p.best == nil:
		return "nothing is scored yet, so this starts from the baseline's settings"
	case p.best.Experiment == p.c.Baseline.Experiment:
		return fmt.Sprintf("the baseline is still the best so far (%s)", p.best.Summary())
	}
	return fmt.Sprintf("the best so far (%s, %s) %s", p.best.Experiment, p.best.Summary(), verdictPhrase(p.best.Verdict))
}

// step is the value one step from v in direction dir, at the largest step
// size whose setting was not tried, and how it was stepped. A step whose
// result is in is halved; one still awaiting its result stops the
// direction.
func (p *proposer) step(d dim, v any, dir int, eff settings) (any, string, bool) {
	switch d.kind {
	case choice:
		i := d.index(v)
		if i < 0 || i+dir < 0 || i+dir >= len(d.choices) {
			return nil, "", false
		}
		nv := d.choices[i+dir]
		how := map[int]string{1: "next choice", -1: "previous choice"}[dir]
		return nv, how, !p.isTried(overlay(eff, settings{d.name: nv}))
	case boolean:
		b, ok := v.(bool)
		if !ok || dir < 0 {
			return nil, "", false
		}
		return !b, "switched", !p.isTried(overlay(eff, settings{d.name: !b}))
	}
	f, ok := contract.Number(v)
	if !ok {
		return nil, "", false
	}
	for k := range localLevels {
		var raw float64
		var how string
		if d.log {
			factor := math.Pow(logFactor, 1/math.Pow(2, float64(k)))
			raw = f * math.Pow(factor, float64(dir))
			how = map[int]string{1: "×", -1: "÷"}[dir] + num(factor) + ", log scale"
		} else {
			s := (d.max - d.min) / linearDivisor / math.Pow(2, float64(k))
			if d.isInt {
				s = math.Max(1, math.Round(s))
			}
			raw = f + float64(dir)*s
		}
		nv := d.round(raw)
		if sameValue(nv, v) {
			continue
		}
		if judged, tried := p.tried[overlay(eff, settings{d.name: nv}).key()]; tried {
			if !judged {
				// The step awaits its result; a smaller one would not
				// tell more before it is in.
				return nil, "", false
			}
			continue
		}
		if !d.log {
			nf, _ := contract.Number(nv)
			how = signed(nf-f) + ", linear scale"
		}
		return nv, how, true
	}
	return nil, "", false
}

func signed(f float64) string {
	if f >= 0 {
		return "+" + num(f)
	}
	return num(f)
}

func (d dim) index(v any) int {
	for i, c := range d.choices {
		if sameValue(c, v) {
			return i
		}
	}
	return -1
}

// pos places a value of the dimension on a line, to tell which side of
// the centre another experiment's value lies.
func (d dim) pos(v any) (float64, bool) {
	switch d.kind {
	case choice:
		i := d.index(v)
		return float64(i), i >= 0
	case boolean:
		b, ok := v.(bool)
		if b {
			return 1, ok
		}
		return 0, ok
	}
	return contract.Number(v)
}

// trend is what the ledger says about moving from v towards nv: scored
// experiments that differ from the centre in this parameter alone. Steps
// that continue away from a worse neighbour rank first.
func (p *proposer) trend(d dim, v, nv any, dir int, centre string, eff settings) (string, int) {
	at, _ := d.pos(v)
	var ahead, behind *Scored
	var aheadV, behindV any
	var aheadD, behindD float64
	for id, s := range p.scored {
		other, ok := p.known[id]
		if id == centre || !ok {
			continue
		}
		ov, ok := other[d.name]
		if !ok || distance(overlay(other, settings{d.name: v}), eff, p.dims) != 0 {
			continue
		}
		op, ok := d.pos(ov)
		if !ok || op == at {
			continue
		}
		gap := (op - at) * float64(dir)
		switch {
		case gap > 0 && (ahead == nil || gap < aheadD || gap == aheadD && s.Seq > ahead.Seq):
			ahead, aheadV, aheadD = &s, ov, gap
		case gap < 0 && (behind == nil || -gap < behindD || -gap == behindD && s.Seq > behind.Seq):
			behind, behindV, behindD = &s, ov, -gap
		}
	}
	way := map[int]string{1: "larger", -1: "smaller"}[dir]
	if d.kind != numeric {
		way = "different"
	}
	switch {
	case ahead != nil:
		np, _ := d.pos(nv)
		if (np-at)*float64(dir) < aheadD {
			return fmt.Sprintf("%s=%s scored no better (%s), so this tries a value in between", d.name, fmtValue(aheadV), ahead.Summary()), 0
		}
		return fmt.Sprintf("%s=%s scored no better (%s)", d.name, fmtValue(aheadV), ahead.Summary()), 0
	case behind != nil:
		return fmt.Sprintf("%s=%s scored no better (%s), so a %s value may help further", d.name, fmtValue(behindV), behind.Summary(), way), 2
	}
	return fmt.Sprintf("no %s value has been scored yet", way), 1
}

// withParam is ps with name set to v, in place or appended.
func withParam(ps yaml.MapSlice, name string, v any) yaml.MapSlice {
	out := make(yaml.MapSlice, 0, len(ps)+1)
	found := false
	for _, it := range ps {
		if fmt.Sprint(it.Key) == name {
			it.Value, found = v, true
		}
		out = append(out, it)
	}
	if !found {
		out = append(out, yaml.MapItem{Key: name, Value: v})
	}
	return out
}
