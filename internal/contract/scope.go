package contract

import (
	"fmt"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
)

// Scope is what experiments may change.
type Scope struct {
	Parameters map[string]Parameter `json:"parameters"`
	Files      []string             `json:"files"`
	Categories []string             `json:"categories"`
}

// A Parameter is one tunable knob: a numeric range, a set of choices, or a
// boolean.
type Parameter struct {
	Type        string   `json:"type,omitempty"`
	Min         *float64 `json:"min,omitempty"`
	Max         *float64 `json:"max,omitempty"`
	Choices     []any    `json:"choices,omitempty"`
	Description string   `json:"description,omitempty"`
	Category    string   `json:"category,omitempty"` // the kind of change; empty: hyperparameter
}

// kind is the parameter's type, inferred when not written.
func (p Parameter) kind() string {
	switch {
	case p.Type != "":
		return p.Type
	case len(p.Choices) > 0:
		return "choice"
	default:
		return "float"
	}
}

// Describe renders the allowed values, e.g. "[0.0001, 0.1]" or "{16, 32}".
func (p Parameter) Describe() string {
	if len(p.Choices) > 0 {
		cs := make([]string, len(p.Choices))
		for i, c := range p.Choices {
			cs[i] = fmt.Sprint(c)
		}
		return "{" + strings.Join(cs, ", ") + "}"
	}
	if p.kind() == "bool" {
		return "{true, false}"
	}
	if p.Min != nil && p.Max != nil {
		return fmt.Sprintf("[%s, %s]", fmtNum(*p.Min), fmtNum(*p.Max))
	}
	return p.kind()
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// ParseParam converts a command-line value for the named parameter to its
// typed form and checks it against the scope.
func (s Scope) ParseParam(name, raw string) (any, error) {
	p, ok := s.Parameters[name]
	if !ok {
		return nil, fmt.Errorf("parameter %s is not in the approved scope (tunable: %s)", name, strings.Join(s.ParamNames(), ", "))
	}
	var v any
	switch p.kind() {
	case "float":
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("parameter %s=%s: not a finite number", name, raw)
		}
		v = f
	case "int":
		i, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("parameter %s=%s: not an integer", name, raw)
		}
		v = i
	case "bool":
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return nil, fmt.Errorf("parameter %s=%s: not true or false", name, raw)
		}
		v = b
	default:
		v = raw
		// Choices may be numbers: 32 on the command line matches 32 in YAML.
		if f, err := strconv.ParseFloat(raw, 64); err == nil {
			for _, c := range p.Choices {
				if cf, ok := Number(c); ok && cf == f {
					v = f
					if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
						v = int64(f)
					}
				}
			}
		}
	}
	if err := s.CheckParam(name, v); err != nil {
		return nil, err
	}
	return v, nil
}

// CheckParam checks a typed value (as decoded from experiments.yaml)
// against the scope.
func (s Scope) CheckParam(name string, v any) error {
	p, ok := s.Parameters[name]
	if !ok {
		return fmt.Errorf("parameter %s is not in the approved scope", name)
	}
	if len(p.Choices) > 0 {
		for _, c := range p.Choices {
			if equalValue(c, v) {
				return nil
			}
		}
		return fmt.Errorf("parameter %s=%v is not one of the approved choices %s", name, v, p.Describe())
	}
	switch p.kind() {
	case "bool":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("parameter %s=%v: not true or false", name, v)
		}
		return nil
	case "string":
		return nil
	}
	f, ok := Number(v)
	if !ok {
		return fmt.Errorf("parameter %s=%v: not a number", name, v)
	}
	if p.kind() == "int" && f != math.Trunc(f) {
		return fmt.Errorf("parameter %s=%v: not an integer", name, v)
	}
	if (p.Min != nil && f < *p.Min) || (p.Max != nil && f > *p.Max) {
		return fmt.Errorf("parameter %s=%v is outside the approved range %s", name, v, p.Describe())
	}
	return nil
}

// ParamNames lists the tunable parameters, sorted.
func (s Scope) ParamNames() []string {
	names := make([]string, 0, len(s.Parameters))
	for n := range s.Parameters {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// CheckFile checks that a file an experiment touches matches one of the
// allowed globs. Globs use path.Match per segment, plus "**" for any number
// of directories.
func (s Scope) CheckFile(file string) error {
	clean := path.Clean(file)
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return fmt.Errorf("file %s is outside the repository", file)
	}
	return s.checkGlobs(file, clean)
}

// CheckChanged checks a file the repository changed against the allowed
// globs, as CheckFile does; a file above the rlxp root (../lib/util.py,
// when the root lies below the git top-level) matches only a glob that
// starts with "../" itself.
func (s Scope) CheckChanged(file string) error {
	clean := path.Clean(file)
	if !strings.HasPrefix(clean, "../") {
		return s.CheckFile(file)
	}
	return s.checkGlobs(file, clean)
}

func (s Scope) checkGlobs(file, clean string) error {
	above := strings.HasPrefix(clean, "../")
	for _, g := range s.Files {
		g = path.Clean(g)
		if above == strings.HasPrefix(g, "../") && matchGlob(g, clean) {
			return nil
		}
	}
	if len(s.Files) == 0 {
		return fmt.Errorf("file %s is not in the approved scope (no files may be changed)", file)
	}
	return fmt.Errorf("file %s is not in the approved scope (allowed: %s)", file, strings.Join(s.Files, ", "))
}

// CheckCategory checks a change category against the scope.
func (s Scope) CheckCategory(c string) error {
	if c == "" {
		return nil
	}
	for _, a := range s.Categories {
		if a == c {
			return nil
		}
	}
	return fmt.Errorf("category %s is not in the approved scope (allowed: %s)", c, strings.Join(s.Categories, ", "))
}

func matchGlob(glob, name string) bool {
	return matchSegs(strings.Split(glob, "/"), strings.Split(name, "/"))
}

func matchSegs(glob, name []string) bool {
	for len(glob) > 0 {
		if glob[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchSegs(glob[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(glob[0], name[0]); err != nil || !ok {
			return false
		}
		glob, name = glob[1:], name[1:]
	}
	return len(name) == 0
}

// Number reads a decoded YAML or JSON number of any Go numeric type as a
// float64; ok is false for anything else.
func Number(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case uint64:
		return float64(v), true
	}
	return 0, false
}

func equalValue(a, b any) bool {
	af, aok := Number(a)
	bf, bok := Number(b)
	if aok && bok {
		return af == bf
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}
