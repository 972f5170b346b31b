package experiment

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/rlxp/rlxp/internal/contract"
)

// ViewSchema is the schema of one experiment as JSON.
const ViewSchema = "rlxp.experiment/v1"

// A View is an experiment as JSON, with parameters as an object and its
// approval state spelled out.
type View struct {
	Schema string `json:"schema,omitempty"`
	*Experiment
	// Status is what the experiment shows (Shown): "scored" once the
	// ledger holds a valid score of it, its stored status until then.
	Status        string         `json:"status"`
	Params        map[string]any `json:"params"`
	ApprovalState string         `json:"approval_state"`
	Digest        string         `json:"digest"`
}

// View is e as JSON, with the schema field.
func (e *Experiment) View() View {
	return View{ViewSchema, e, e.Shown(), e.ParamMap(), e.ApprovalState(), e.Digest()}
}

// Views are the experiments as JSON, without a schema field each.
func Views(es []*Experiment) []View {
	out := make([]View, len(es))
	for i, e := range es {
		out[i] = e.View()
		out[i].Schema = ""
	}
	return out
}

// Describe says in one line what the experiment changes and on which
// seeds.
func (e *Experiment) Describe() string {
	var parts []string
	for _, it := range e.Params {
		parts = append(parts, fmt.Sprintf("%v=%v", it.Key, it.Value))
	}
	if len(parts) == 0 {
		parts = append(parts, "no parameter changes")
	}
	if len(e.Files) > 0 {
		parts = append(parts, "files "+strings.Join(e.Files, ","))
	}
	return strings.Join(parts, " ") + ", seeds " + SeedList(e.Seeds)
}

// SeedList is "0,1,2".
func SeedList(seeds []int) string {
	s := make([]string, len(seeds))
	for i, n := range seeds {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// Text is the experiment in full, one field a line.
func (e *Experiment) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "experiment  %s\n", e.ID)
	fmt.Fprintf(&b, "status      %s (approval %s)\n", e.Shown(), e.ApprovalState())
	if sc := e.Scoring; sc != nil {
		fmt.Fprintf(&b, "scored      %d ledger entries (%d valid, %d of them partial); latest #%d: %s\n", sc.Entries, sc.Valid, sc.Partial, sc.Latest, sc.Verdict)
	}
	if e.Category != "" {
		fmt.Fprintf(&b, "category    %s\n", e.Category)
	}
	if e.Hypothesis != "" {
		fmt.Fprintf(&b, "hypothesis  %s\n", e.Hypothesis)
	}
	for _, it := range e.Params {
		fmt.Fprintf(&b, "param       %v=%v\n", it.Key, it.Value)
	}
	if len(e.Files) > 0 {
		fmt.Fprintf(&b, "files       %s\n", strings.Join(e.Files, ", "))
	}
	fmt.Fprintf(&b, "seeds       %s\n", SeedList(e.Seeds))
	if e.WallClock != "" {
		fmt.Fprintf(&b, "wall-clock  %s per run\n", e.WallClock)
	}
	fmt.Fprintf(&b, "digest      %s\n", e.Digest())
	if e.Approval != nil {
		fmt.Fprintf(&b, "approved    by %s at %s (interactive: %t)\n", e.Approval.By, e.Approval.At, e.Approval.Interactive)
	}
	if e.Rejection != nil {
		fmt.Fprintf(&b, "rejected    by %s at %s: %s\n", e.Rejection.By, e.Rejection.At, e.Rejection.Reason)
	}
	return b.String()
}

// A ParamSyntaxError is a setting that is not NAME=VALUE, or one given
// twice: a usage error, where a value outside the scope is not.
type ParamSyntaxError struct{ Msg string }

func (e *ParamSyntaxError) Error() string { return e.Msg }

// ParseParams reads NAME=VALUE settings against the contract's scope: each
// parameter tunable there, its value in range. A malformed or repeated
// setting is a *ParamSyntaxError; one outside the scope names where in the
// contract the scope says so.
func ParseParams(l *contract.Loaded, settings []string) ([]yaml.MapItem, error) {
	var out []yaml.MapItem
	for _, p := range settings {
		name, raw, ok := strings.Cut(p, "=")
		if !ok || name == "" {
			return nil, &ParamSyntaxError{fmt.Sprintf("invalid --param %q: want NAME=VALUE", p)}
		}
		if slices.ContainsFunc(out, func(it yaml.MapItem) bool { return it.Key == name }) {
			return nil, &ParamSyntaxError{fmt.Sprintf("parameter %s given twice", name)}
		}
		v, err := l.Contract.Scope.ParseParam(name, raw)
		if err != nil {
			where := l.Where("scope", "parameters")
			if _, ok := l.Contract.Scope.Parameters[name]; ok {
				where = l.Where("scope", "parameters", name)
			}
			return nil, fmt.Errorf("%w (%s)", err, where)
		}
		out = append(out, yaml.MapItem{Key: name, Value: v})
	}
	return out, nil
}

// ParseSeeds reads training seeds written "0,1,2": non-negative, none
// repeated.
func ParseSeeds(s string) ([]int, error) {
	var seeds []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("invalid --seeds %q: want non-negative integers separated by commas", s)
		}
		if slices.Contains(seeds, n) {
			return nil, fmt.Errorf("invalid --seeds %q: seed %d repeats", s, n)
		}
		seeds = append(seeds, n)
	}
	return seeds, nil
}
