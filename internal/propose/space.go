package propose

import (
	"fmt"
	"math"
	"strings"

	"github.com/goccy/go-yaml"
)

// spaceSeed fixes the scrambling, so that a scope always yields the same
// points and a later round continues where the last one stopped.
const spaceSeed = 0x726c7870

// minSpaceDraws bounds the points drawn per round, so that a scope that is
// mostly tried still ends quickly.
const minSpaceDraws = 256

// reviewRank orders categories by how much review a change needs, most
// first: a point that sets parameters of several categories takes the
// first of them, so that a reward change is reviewed as one.
func reviewRank(category string) int {
	switch category {
	case "reward":
		return 0
	case "curriculum":
		return 1
	case "domain_randomization":
		return 2
	case "evaluation":
		return 3
	case "launcher":
		return 4
	}
	return 5
}

// spaceCandidates are the first want untried points of a scrambled Halton
// sequence over every dimension; on a finite scope the remaining settings
// are enumerated too, so that "every setting was tried" is a fact. The
// text says what running out of them means.
func (p *proposer) spaceCandidates(want int) ([]candidate, string) {
	category := p.dims[0].category
	var names, logs []string
	for _, d := range p.dims {
		names = append(names, d.name)
		if d.log {
			logs = append(logs, d.name)
		}
		if reviewRank(d.category) < reviewRank(category) {
			category = d.category
		}
	}
	how := "scrambled Halton"
	if len(logs) > 0 {
		how += "; " + strings.Join(logs, ", ") + " on a log scale"
	}
	var cands []candidate
	seen := map[string]bool{}
	add := func(id string, ps yaml.MapSlice, what string) {
		key := overlay(p.base, settingsOf(ps)).key()
		if _, tried := p.tried[key]; tried || seen[key] {
			return
		}
		seen[key] = true
		cands = append(cands, candidate{id: id, params: ps, category: category,
			hypothesis: fmt.Sprintf("%s over %s (%s): samples the approved ranges evenly, so that later local steps start from the best region found rather than from a guess", what, strings.Join(names, ", "), how)})
	}
	h := newHalton(len(p.dims))
	draws := max(minSpaceDraws, 64*want)
	for i := 1; i <= draws && len(cands) < want; i++ {
		u := h.point(uint64(i))
		ps := make(yaml.MapSlice, len(p.dims))
		for k, d := range p.dims {
			ps[k] = yaml.MapItem{Key: d.name, Value: d.fromUnit(u[k])}
		}
		add(fmt.Sprintf("sf-%d", i), ps, fmt.Sprintf("space-filling point %d", i))
	}
	size, finite := p.gridSize(draws)
	if !finite {
		return cands, fmt.Sprintf("scope exhausted: the first %d space-filling points were all tried", draws)
	}
	for k := 0; k < size && len(cands) < want; k++ {
		ps := make(yaml.MapSlice, len(p.dims))
		rest := k
		for j := len(p.dims) - 1; j >= 0; j-- {
			d := p.dims[j]
			n := d.values()
			ps[j] = yaml.MapItem{Key: d.name, Value: d.fromUnit((float64(rest%n) + 0.5) / float64(n))}
			rest /= n
		}
		add(fmt.Sprintf("grid-%d", k+1), ps, fmt.Sprintf("setting %d of the %d in the scope", k+1, size))
	}
	return cands, fmt.Sprintf("scope exhausted: all %d settings of the scope were tried", size)
}

// values is how many settings a dimension has; 0 when they are too many to
// enumerate (a float range).
func (d dim) values() int {
	switch {
	case d.kind == choice:
		return len(d.choices)
	case d.kind == boolean:
		return 2
	case d.isInt && !d.log && d.max-d.min < math.MaxInt32:
		return int(d.max-d.min) + 1
	}
	return 0
}

// gridSize is how many settings the scope has, when it has no more than
// limit of them.
func (p *proposer) gridSize(limit int) (int, bool) {
	size := 1
	for _, d := range p.dims {
		n := d.values()
		if n == 0 || size*n > limit {
			return 0, false
		}
		size *= n
	}
	return size, true
}

// halton is a Halton sequence with each base's digits permuted (0 stays
// 0), which breaks up the correlations plain Halton shows between
// dimensions with large bases.
type halton struct {
	bases []int
	perms [][]int
}

func newHalton(dims int) halton {
	h := halton{bases: primes(dims)}
	rng := splitmix(spaceSeed)
	for _, b := range h.bases {
		perm := make([]int, b)
		for i := range perm {
			perm[i] = i
		}
		for i := b - 1; i > 1; i-- {
			j := 1 + rng.intn(i)
			perm[i], perm[j] = perm[j], perm[i]
		}
		h.perms = append(h.perms, perm)
	}
	return h
}

// point is the i-th point, one coordinate in [0, 1) per dimension.
func (h halton) point(i uint64) []float64 {
	u := make([]float64, len(h.bases))
	for d, b := range h.bases {
		base := uint64(b)
		scale := 1 / float64(b)
		for n := i; n > 0; n /= base {
			u[d] += float64(h.perms[d][n%base]) * scale
			scale /= float64(b)
		}
	}
	return u
}

func primes(n int) []int {
	var ps []int
	for c := 2; len(ps) < n; c++ {
		prime := true
		for _, p := range ps {
			if p*p > c {
				break
			}
			if c%p == 0 {
				prime = false
				break
			}
		}
		if prime {
			ps = append(ps, c)
		}
	}
	return ps
}

// splitmix is SplitMix64: a generator specified here, so that the points
// do not change with the Go release.
type splitmix uint64

func (s *splitmix) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (s *splitmix) intn(n int) int { return int(s.next() % uint64(n)) }
