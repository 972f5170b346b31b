// Package diagnose says what state a run is in and which known failure
// signatures its own metrics show evidence of. Signatures are a table of
// rules (Rules); a rule is claimed only when every piece of its evidence is
// there, and it is "not evaluated" when a tag it needs is not.
package diagnose

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rlxp/rlxp/internal/metrics"
)

// Input is what one run offers the rules. Sources belong to that run only,
// in order of preference: a tag is read from the first source that has it.
type Input struct {
	Sources []*Source
	Facts   Facts
}

// Facts are what the rules may know about a run besides its metrics.
type Facts struct {
	Alive      bool
	AliveKnown bool
	Process    string        // what was found alive, quoted as evidence
	Log        string        // the run's log as shown; "" when there is none
	LogAge     time.Duration // since the log's last write
	Stale      time.Duration // a log older than this is stale
	LastStep   int64
	HasStep    bool   // a step was logged at all
	LastLine   string // the log's last non-blank line
}

// An Outcome is what a rule concluded.
type Outcome string

// Outcomes.
const (
	Matched      Outcome = "matched"
	NotMatched   Outcome = "not_matched"
	NotEvaluated Outcome = "not_evaluated" // a tag is missing, or too few points
)

// A Result is one rule's conclusion on one run.
type Result struct {
	ID       string     `json:"id"`
	Name     string     `json:"name"`
	Outcome  Outcome    `json:"outcome"`
	Reason   string     `json:"reason,omitempty"` // why it did not match, or was not evaluated
	Evidence []Evidence `json:"evidence,omitempty"`
	Advice   string     `json:"advice,omitempty"`
}

// Evidence quotes what a condition saw.
type Evidence struct {
	Tag    string  `json:"tag,omitempty"`
	Source string  `json:"source,omitempty"`
	Points []Quote `json:"points,omitempty"` // the recent points, as logged
	Text   string  `json:"text"`
}

// A Quote is one logged point.
type Quote struct {
	Step  int64 `json:"step"`
	Value Num   `json:"value"`
}

// Num is a value that may be NaN or infinite; JSON has no such numbers, so
// those are written as the strings "NaN", "+Inf" and "-Inf".
type Num float64

// MarshalJSON writes n as a number, or a string when it is not finite.
func (n Num) MarshalJSON() ([]byte, error) {
	s := strconv.FormatFloat(float64(n), 'g', -1, 64)
	if math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
		return json.Marshal(s)
	}
	return []byte(s), nil
}

// Evaluate applies every rule to one run, in table order.
func Evaluate(rules []Rule, in Input) []Result {
	out := make([]Result, len(rules))
	for i, r := range rules {
		out[i] = evaluate(r, in)
	}
	return out
}

// A verdict is one condition's answer.
type verdict int

const (
	holds verdict = iota
	fails
	unknown
)

// A check is a verdict with what it saw: the evidence when it holds, a
// sentence saying why when it does not.
type check struct {
	v    verdict
	ev   Evidence
	text string
}

// A view is one tag of a source read as a need's quantity.
type view struct {
	tag Tag
	key string
	src *Source
	s   *Series
}

func (v view) label() string {
	switch {
	case v.tag.Negate:
		return "-" + v.key
	case v.tag.Reciprocal:
		return "1/" + v.key
	}
	return v.key
}

func (v view) quantity(x float64) float64 {
	switch {
	case v.tag.Negate:
		return -x
	case v.tag.Reciprocal:
		return 1 / x
	}
	return x
}

func evaluate(r Rule, in Input) Result {
	res := Result{ID: r.ID, Name: r.Name}
	needs := map[string]Need{}
	for _, n := range r.Needs {
		needs[n.Role] = n
	}
	// Conditions group by role, in the order they first appear, so that a
	// tag must satisfy all of its role's conditions at once.
	type group struct {
		role  string
		conds []Cond
		views []view
	}
	var groups []*group
	byRole := map[string]*group{}
	for _, c := range r.When {
		if c.Role == "" {
			groups = append(groups, &group{conds: []Cond{c}})
			continue
		}
		g := byRole[c.Role]
		if g == nil {
			g = &group{role: c.Role}
			byRole[c.Role] = g
			groups = append(groups, g)
		}
		g.conds = append(g.conds, c)
	}
	// Missing tags leave the rule unevaluated before anything is judged.
	for _, g := range groups {
		if g.role == "" {
			continue
		}
		n := needs[g.role]
		g.views = resolve(n, in.Sources)
		if len(g.views) == 0 {
			res.Outcome, res.Reason = NotEvaluated, "no "+tagList(n.Tags)+" in the run's metrics"
			return res
		}
		if n.Precise {
			for _, v := range g.views {
				if v.src.coarse() {
					res.Outcome = NotEvaluated
					res.Reason = fmt.Sprintf("%s prints every value with at most three decimals, so a small %s reads as 0", v.src.Path, v.key)
					return res
				}
			}
		}
	}
	var failed, unsure string
	for _, g := range groups {
		var c check
		if g.role == "" {
			c = g.conds[0].onFacts(in.Facts)
			if c.v == holds {
				res.Evidence = append(res.Evidence, c.ev)
			}
		} else {
			var evs []Evidence
			c, evs = onViews(g.conds, g.views, needs[g.role].Match)
			res.Evidence = append(res.Evidence, evs...)
		}
		switch {
		case c.v == fails && failed == "":
			failed = c.text
		case c.v == unknown && unsure == "":
			unsure = c.text
		}
	}
	// A condition that plainly fails settles it, even if another could not
	// be judged.
	if failed != "" {
		return Result{ID: r.ID, Name: r.Name, Outcome: NotMatched, Reason: failed}
	}
	if unsure != "" {
		return Result{ID: r.ID, Name: r.Name, Outcome: NotEvaluated, Reason: unsure}
	}
	for _, u := range r.Unless {
		views := resolve(needs[u.Role], in.Sources)
		if len(views) == 0 {
			continue
		}
		if c, evs := onViews([]Cond{u}, views, needs[u.Role].Match); c.v == holds {
			return Result{ID: r.ID, Name: r.Name, Outcome: NotMatched, Reason: "ruled out: " + u.Why + " (" + evs[0].Text + ")"}
		}
	}
	res.Outcome, res.Advice = Matched, r.Advice
	return res
}

// resolve finds the tags that carry a need in a run's sources.
func resolve(n Need, sources []*Source) []view {
	var out []view
	seen := map[string]bool{}
	for _, t := range n.Tags {
		for _, src := range sources {
			for _, key := range src.keys(t.Name) {
				if seen[key] {
					continue
				}
				seen[key] = true
				out = append(out, view{tag: t, key: key, src: src, s: src.series[key]})
			}
		}
		if n.Match == First && len(out) > 0 {
			return out[:1]
		}
	}
	return out
}

// keys lists the source's tags matching a key or pattern, sorted.
func (s *Source) keys(pattern string) []string {
	if !strings.Contains(pattern, "*") {
		if s.series[pattern] != nil {
			return []string{pattern}
		}
		return nil
	}
	var keys []string
	for k := range s.series {
		if match(pattern, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func tagList(tags []Tag) string {
	names := make([]string, len(tags))
	for i, t := range tags {
		names[i] = t.Name
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// onViews judges a role's conditions on each of its tags and combines the
// answers as the need's Match says.
func onViews(conds []Cond, views []view, m Match) (check, []Evidence) {
	var per []check
	var evs [][]Evidence
	for _, v := range views {
		c := check{v: holds}
		var ev []Evidence
		for _, cond := range conds {
			cc := cond.onSeries(v)
			if cc.v == holds {
				ev = append(ev, cc.ev)
				continue
			}
			if c.v == holds || cc.v == fails && c.v == unknown {
				c = cc
			}
		}
		per = append(per, c)
		evs = append(evs, ev)
	}
	first := func(want verdict) (check, bool) {
		for _, c := range per {
			if c.v == want {
				return c, true
			}
		}
		return check{}, false
	}
	switch m {
	case AnyTag:
		var all []Evidence
		for i, c := range per {
			if c.v == holds {
				all = append(all, evs[i]...)
			}
		}
		if all != nil {
			return check{v: holds}, all
		}
		if c, ok := first(fails); ok {
			return c, nil
		}
		c, _ := first(unknown)
		return c, nil
	default: // First has one view; AllTags needs every one.
		if c, ok := first(fails); ok {
			return c, nil
		}
		if c, ok := first(unknown); ok {
			return c, nil
		}
		var all []Evidence
		for _, ev := range evs {
			all = append(all, ev...)
		}
		return check{v: holds}, all
	}
}

// onSeries judges one condition on one tag.
func (c Cond) onSeries(v view) check {
	need := c.Window + c.Earlier
	if c.Test == Plateau {
		need = 2 * c.Window
	}
	if c.Window < 1 || c.Window > tailLen || need > tailLen || c.Earlier > headLen {
		return check{v: unknown, text: fmt.Sprintf("the rule asks for %d recent and %d earlier points; %d and %d are kept", c.Window, c.Earlier, tailLen, headLen)}
	}
	if n := v.s.Len(); n < need {
		return check{v: unknown, text: fmt.Sprintf("%s has %d point%s in %s; this needs %d", v.key, n, plural(n), v.src.Path, need)}
	}
	recent := v.s.last(c.Window)
	ev := Evidence{Tag: v.key, Source: v.src.Path}
	for _, p := range recent {
		ev.Points = append(ev.Points, Quote{p.Step, Num(p.Value)})
	}
	ys := v.values(recent)
	if c.Test == NonFinite {
		for i, y := range ys {
			if !finite(y) {
				ev.Text = fmt.Sprintf("%s %s at %s", v.label(), fmtNum(y), stepText(recent[i:i+1]))
				return check{v: holds, ev: ev}
			}
		}
		return check{v: fails, text: fmt.Sprintf("%s %s: all finite", v.label(), quoted(recent, ys))}
	}
	var earlier []metrics.Point
	switch {
	case c.Test == Plateau:
		earlier = v.s.last(2 * c.Window)[:c.Window]
	case c.Earlier > 0:
		earlier = v.s.first(c.Earlier)
	}
	xs := v.values(earlier)
	for _, part := range []struct {
		ps []metrics.Point
		ys []float64
	}{{earlier, xs}, {recent, ys}} {
		for i, y := range part.ys {
			if !finite(y) {
				return check{v: unknown, text: fmt.Sprintf("%s is %s at step %d", v.key, fmtNum(y), part.ps[i].Step)}
			}
		}
	}
	head := fmt.Sprintf("%s %s", v.label(), quoted(recent, ys))
	verdictOf := func(ok bool, claim string) check {
		if ok {
			ev.Text = head + ": " + claim
			return check{v: holds, ev: ev}
		}
		return check{v: fails, text: head + ": " + claim}
	}
	stat := "median "
	if c.Window == 1 {
		stat = ""
	}
	switch c.Test {
	case AllBelow:
		ok := true
		for _, y := range ys {
			ok = ok && y < c.Value
		}
		return verdictOf(ok, either(ok, "all below ", "not all below ")+fmtNum(c.Value))
	case AllEqual:
		ok := true
		for _, y := range ys {
			ok = ok && y == c.Value
		}
		return verdictOf(ok, either(ok, "all equal to ", "not all equal to ")+fmtNum(c.Value))
	case AtLeast:
		m := median(ys)
		return verdictOf(m >= c.Value, fmt.Sprintf("%s%s %s %s", stat, fmtNum(m), either(m >= c.Value, "≥", "<"), fmtNum(c.Value)))
	case AtMost:
		m := median(ys)
		return verdictOf(m <= c.Value, fmt.Sprintf("%s%s %s %s", stat, fmtNum(m), either(m <= c.Value, "≤", ">"), fmtNum(c.Value)))
	case MeanAbove:
		m := mean(ys)
		return verdictOf(m > c.Value, fmt.Sprintf("mean %s %s %s", fmtNum(m), either(m > c.Value, ">", "≤"), fmtNum(c.Value)))
	case FellTo, RoseTo:
		m, base := median(ys), median(xs)
		than := fmt.Sprintf("%s × %s, the median at %s", fmtNum(c.Value), fmtNum(base), stepText(earlier))
		if c.Test == FellTo {
			if base <= 0 {
				return check{v: unknown, text: fmt.Sprintf("%s: median %s at %s is not positive, so a fall cannot be measured against it", v.label(), fmtNum(base), stepText(earlier))}
			}
			return verdictOf(m <= c.Value*base, fmt.Sprintf("median %s %s %s", fmtNum(m), either(m <= c.Value*base, "≤", ">"), than))
		}
		if base < 0 {
			return check{v: unknown, text: fmt.Sprintf("%s: median %s at %s is negative, so a rise cannot be measured against it", v.label(), fmtNum(base), stepText(earlier))}
		}
		// From an earlier median of 0 any positive value is a rise beyond
		// every factor; the rule's absolute bound decides.
		ok := m >= c.Value*base && m > 0
		return verdictOf(ok, fmt.Sprintf("median %s %s %s", fmtNum(m), either(ok, "≥", "<"), than))
	case Rising, Falling:
		t, ok := slopeT(recent, ys)
		if !ok {
			return check{v: unknown, text: fmt.Sprintf("%s: every recent point is at one step; no slope", v.key)}
		}
		if c.Test == Rising {
			return verdictOf(t >= c.Value, fmt.Sprintf("%s, slope t = %s", either(t >= c.Value, "rising", "not rising"), fmtT(t)))
		}
		return verdictOf(t <= -c.Value, fmt.Sprintf("%s, slope t = %s", either(t <= -c.Value, "falling", "not falling"), fmtT(t)))
	case Plateau:
		t, ok := slopeT(recent, ys)
		if !ok {
			return check{v: unknown, text: fmt.Sprintf("%s: every recent point is at one step; no slope", v.key)}
		}
		g := welchT(xs, ys)
		flat := math.Abs(t) < c.Value && math.Abs(g) < c.Value
		text := fmt.Sprintf("%s mean %s at %s vs %s at %s (t = %s), slope t = %s: %s", v.label(),
			fmtNum(mean(ys)), stepText(recent), fmtNum(mean(xs)), stepText(earlier), fmtT(g), fmtT(t),
			either(flat, "flat", "still moving"))
		if flat {
			ev.Text = text
			return check{v: holds, ev: ev}
		}
		return check{v: fails, text: text}
	}
	return check{v: unknown, text: fmt.Sprintf("unknown test %q", c.Test)}
}

// onFacts judges a condition about the run itself.
func (c Cond) onFacts(f Facts) check {
	switch c.Test {
	case Alive:
		switch {
		case !f.AliveKnown:
			return check{v: unknown, text: "whether the run is alive is not known"}
		case !f.Alive:
			return check{v: fails, text: "the run is not alive"}
		}
		return check{v: holds, ev: Evidence{Text: f.Process}}
	case LogStale:
		if f.Log == "" {
			return check{v: unknown, text: "the run has no log to judge"}
		}
		age := fmt.Sprintf("%s last written %s ago", f.Log, roundDur(f.LogAge))
		if f.LogAge <= f.Stale {
			return check{v: fails, text: fmt.Sprintf("%s, within --stale %s", age, roundDur(f.Stale))}
		}
		text := fmt.Sprintf("%s (stale after %s); ", age, roundDur(f.Stale))
		if f.HasStep {
			text += fmt.Sprintf("the last step logged is %d", f.LastStep)
		} else {
			text += "no step logged yet"
		}
		if f.LastLine != "" {
			text += fmt.Sprintf("; its last line: %q", f.LastLine)
		}
		return check{v: holds, ev: Evidence{Source: f.Log, Text: text}}
	}
	return check{v: unknown, text: fmt.Sprintf("unknown fact %q", c.Test)}
}

func (v view) values(ps []metrics.Point) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = v.quantity(p.Value)
	}
	return out
}

// quoted shows values with their steps: "0.91, 0.9, 0.89 at steps 18..20".
// Long windows show their last five values.
func quoted(ps []metrics.Point, ys []float64) string {
	const show = 5
	var parts []string
	if len(ys) > show {
		parts = append(parts, "…")
		ys = ys[len(ys)-show:]
	}
	for _, y := range ys {
		parts = append(parts, fmtNum(y))
	}
	return strings.Join(parts, ", ") + " at " + stepText(ps)
}

func stepText(ps []metrics.Point) string {
	if len(ps) == 1 || ps[0].Step == ps[len(ps)-1].Step {
		return fmt.Sprintf("step %d", ps[0].Step)
	}
	return fmt.Sprintf("steps %d..%d", ps[0].Step, ps[len(ps)-1].Step)
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

func fmtT(t float64) string {
	if math.IsInf(t, 0) {
		return fmtNum(t)
	}
	return strconv.FormatFloat(t, 'f', 1, 64)
}

func roundDur(d time.Duration) string { return d.Round(time.Second).String() }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func either(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func mean(ys []float64) float64 {
	s := 0.0
	for _, y := range ys {
		s += y
	}
	return s / float64(len(ys))
}

func median(ys []float64) float64 {
	s := append([]float64(nil), ys...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// slopeT is the t statistic of the least-squares slope of values over
// steps: |t| < 2 is noise. A noiseless line has an infinite t. ok is false
// when every point is at one step.
func slopeT(ps []metrics.Point, ys []float64) (float64, bool) {
	n := float64(len(ys))
	if n < 3 {
		return 0, false
	}
	var mx float64
	for _, p := range ps {
		mx += float64(p.Step)
	}
	mx /= n
	my := mean(ys)
	var sxx, sxy float64
	for i, p := range ps {
		dx := float64(p.Step) - mx
		sxx += dx * dx
		sxy += dx * (ys[i] - my)
	}
	if sxx == 0 {
		return 0, false
	}
	b := sxy / sxx
	var sse float64
	for i, p := range ps {
		r := ys[i] - my - b*(float64(p.Step)-mx)
		sse += r * r
	}
	return tRatio(b, math.Sqrt(sse/(n-2)/sxx)), true
}

// welchT is Welch's t for the gain of ys's mean over xs's.
func welchT(xs, ys []float64) float64 {
	return tRatio(mean(ys)-mean(xs), math.Sqrt(variance(xs)/float64(len(xs))+variance(ys)/float64(len(ys))))
}

// tRatio is d/se, where a difference without noise is infinitely
// significant and no difference is none.
func tRatio(d, se float64) float64 {
	// Rounding leaves a noiseless series some residue; below this relative
	// size it is none.
	if se <= 1e-12*math.Abs(d) {
		switch {
		case d > 0:
			return math.Inf(1)
		case d < 0:
			return math.Inf(-1)
		}
		return 0
	}
	return d / se
}

func variance(ys []float64) float64 {
	if len(ys) < 2 {
		return 0
	}
	m := mean(ys)
	var s float64
	for _, y := range ys {
		s += (y - m) * (y - m)
	}
	return s / float64(len(ys)-1)
}
