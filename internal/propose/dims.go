package propose

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/rlxp/rlxp/internal/contract"
)

// Kinds of dimension a scope parameter becomes.
const (
	numeric = iota
	choice
	boolean
)

// A dim is a scope parameter that propose can vary.
type dim struct {
	name     string
	kind     int
	isInt    bool
	log      bool    // numeric: stepped and sampled on a log scale
	min, max float64 // numeric bounds (integers for an int parameter)
	choices  []any   // choice: the approved values, normalised
	category string
}

// logRatio is how many times its minimum a positive range must span to be
// treated on a log scale: two decades, as learning rates and weight decays
// usually are.
const logRatio = 100

// dims turns the scope's parameters into dimensions, sorted by name, and
// says why any parameter is left alone.
func dims(s contract.Scope) ([]dim, []string) {
	var out []dim
	var notes []string
	for _, name := range s.ParamNames() {
		p := s.Parameters[name]
		d := dim{name: name, category: p.Category}
		if d.category == "" {
			d.category = "hyperparameter"
		}
		if err := s.CheckCategory(d.category); err != nil {
			notes = append(notes, fmt.Sprintf("parameter %s is a %s change, which the scope does not allow; propose leaves it alone", name, d.category))
			continue
		}
		switch {
		case len(p.Choices) > 0:
			d.kind = choice
			for _, c := range p.Choices {
				d.choices = append(d.choices, normalise(c))
			}
		case p.Type == "bool":
			d.kind = boolean
		case p.Type == "string":
			notes = append(notes, fmt.Sprintf("parameter %s is a string without choices; propose leaves it alone", name))
			continue
		case p.Min == nil || p.Max == nil || *p.Min > *p.Max:
			notes = append(notes, fmt.Sprintf("parameter %s has no usable range; propose leaves it alone", name))
			continue
		default:
			d.kind, d.min, d.max = numeric, *p.Min, *p.Max
			if p.Type == "int" {
				d.isInt = true
				d.min, d.max = math.Ceil(d.min), math.Floor(d.max)
				if d.min > d.max {
					notes = append(notes, fmt.Sprintf("parameter %s: no integer lies in %s; propose leaves it alone", name, p.Describe()))
					continue
				}
			}
			d.log = d.min > 0 && d.max/d.min >= logRatio
		}
		out = append(out, d)
	}
	return out, notes
}

// unit maps a value of a numeric dimension to [0, 1] on its own scale.
func (d dim) unit(v float64) float64 {
	if d.max == d.min {
		return 0
	}
	u := (v - d.min) / (d.max - d.min)
	if d.log && v > 0 {
		u = math.Log(v/d.min) / math.Log(d.max/d.min)
	}
	return math.Min(1, math.Max(0, u))
}

// fromUnit maps u in [0, 1) to a rounded value inside the range.
func (d dim) fromUnit(u float64) any {
	switch d.kind {
	case choice:
		return d.choices[min(len(d.choices)-1, int(u*float64(len(d.choices))))]
	case boolean:
		return u >= 0.5
	}
	if d.isInt && !d.log {
		// Each integer gets an equal share of [0, 1).
		return d.round(math.Floor(d.min + u*(d.max-d.min+1)))
	}
	if d.log {
		return d.round(d.min * math.Exp(u*math.Log(d.max/d.min)))
	}
	return d.round(d.min + u*(d.max-d.min))
}

// round makes a numeric value presentable and keeps it in range: three
// significant digits on a log scale, a hundredth of the range (to a power
// of ten) on a linear one; integers stay integers.
func (d dim) round(v float64) any {
	switch {
	case d.isInt:
		v = math.Round(v)
	case d.log:
		v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	case d.max > d.min:
		exp := math.Floor(math.Log10((d.max - d.min) / 100))
		q := math.Pow(10, exp)
		v, _ = strconv.ParseFloat(strconv.FormatFloat(math.Round(v/q)*q, 'f', max(0, int(-exp)), 64), 64)
	}
	v = math.Min(d.max, math.Max(d.min, v))
	if d.isInt {
		return int64(v)
	}
	return v
}

// normalise gives a decoded value one representation per number: integral
// values as int64, others as float64.
func normalise(v any) any {
	if f, ok := contract.Number(v); ok {
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f)
		}
		return f
	}
	return v
}

// sameValue compares decoded values, numbers by value.
func sameValue(a, b any) bool {
	af, aok := contract.Number(a)
	bf, bok := contract.Number(b)
	if aok && bok {
		return af == bf
	}
	return aok == bok && fmtValue(a) == fmtValue(b)
}

// fmtValue renders a value as experiments.yaml and the hypotheses show it.
func fmtValue(v any) string {
	if f, ok := contract.Number(v); ok {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// settings are parameter values by name.
type settings map[string]any

func settingsOf(ps yaml.MapSlice) settings {
	s := settings{}
	for _, it := range ps {
		s[fmt.Sprint(it.Key)] = it.Value
	}
	return s
}

// overlay is base with over's values on top.
func overlay(base, over settings) settings {
	s := make(settings, len(base)+len(over))
	for k, v := range base {
		s[k] = v
	}
	for k, v := range over {
		s[k] = v
	}
	return s
}

// key is a canonical form of a setting, for finding repeats: numbers
// compare by value, whatever their type.
func (s settings) key() string {
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		v := s[n]
		if _, ok := contract.Number(v); ok {
			fmt.Fprintf(&b, "%q=%s;", n, fmtValue(v))
		} else {
			fmt.Fprintf(&b, "%q=%T:%q;", n, v, fmt.Sprint(v))
		}
	}
	return b.String()
}

// distance is how far apart two settings are: each numeric parameter adds
// its gap on its own unit scale, any other difference (or a value known on
// one side only) adds one.
func distance(a, b settings, ds []dim) float64 {
	byName := map[string]dim{}
	for _, d := range ds {
		byName[d.name] = d
	}
	total := 0.0
	for n, av := range a {
		bv, ok := b[n]
		if !ok {
			total++
			continue
		}
		af, aok := contract.Number(av)
		bf, bok := contract.Number(bv)
		if d, known := byName[n]; known && d.kind == numeric && aok && bok {
			total += math.Abs(d.unit(af) - d.unit(bf))
		} else if !sameValue(av, bv) {
			total++
		}
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			total++
		}
	}
	return total
}
