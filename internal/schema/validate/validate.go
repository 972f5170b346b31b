// Package validate checks decoded documents against rlxp's JSON Schemas
// (package schema holds them) with gojsonschema. It is kept apart from
// the schemas and their cached verdicts so that a program that only looks
// verdicts up does not link the validator and what it imports (net/http).
package validate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/xeipuuv/gojsonschema"

	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/schema"
	"github.com/rlxp/rlxp/internal/state"
)

// Schemas is the schema.Checker that validates every document it is given.
type Schemas struct{}

// Check is Check.
func (Schemas) Check(f *document.File, name string) ([]*document.Error, error) { return Check(f, name) }

// Cached is the repository's verdicts (schema.VerdictsOf), validating on a
// miss.
func Cached(r *state.Repo) *schema.Verdicts { return schema.VerdictsOf(r, Schemas{}) }

// A Violation is one schema failure at a field path.
type Violation struct {
	Field   []string
	Message string
}

// sep joins context segments; no YAML key a user writes contains it, so
// keys with dots in them survive the round trip.
const sep = "\x00"

// Validate checks a decoded document (maps, slices, scalars) against the
// named schema and returns its violations ordered by field path.
func Validate(name string, doc any) ([]Violation, error) {
	src, err := schema.Source(name)
	if err != nil {
		return nil, err
	}
	s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(src))
	if err != nil {
		return nil, fmt.Errorf("compile schema %s: %w", name, err)
	}
	res, err := s.Validate(gojsonschema.NewGoLoader(doc))
	if err != nil {
		return nil, fmt.Errorf("validate against %s: %w", name, err)
	}
	var vs []Violation
	seen := map[string]bool{}
	for _, re := range res.Errors() {
		switch re.Type() {
		case "number_any_of", "number_one_of", "number_all_of", "condition_then", "condition_else":
			// Summaries of nested failures that are reported on their own.
			continue
		}
		v := violation(re)
		key := strings.Join(v.Field, sep) + sep + v.Message
		if seen[key] {
			continue
		}
		seen[key] = true
		vs = append(vs, v)
	}
	sort.SliceStable(vs, func(i, j int) bool {
		return strings.Join(vs[i].Field, sep) < strings.Join(vs[j].Field, sep)
	})
	return vs, nil
}

// patternHint explains one of the schemas' patterns in words.
func patternHint(pattern string) (string, bool) {
	switch pattern {
	case `^([0-9]+(\.[0-9]+)?(h|m|s))+$`:
		return "must be a duration such as 45m, 4h or 1h30m", true
	case `^[A-Za-z0-9][A-Za-z0-9._-]*$`:
		return "must be an id: letters, digits, '.', '_' or '-', starting with a letter or digit", true
	case `^sha256:[0-9a-f]+$`:
		return "must be sha256: followed by hex digits", true
	}
	return "", false
}

func violation(re gojsonschema.ResultError) Violation {
	var field []string
	for _, seg := range strings.Split(re.Context().String(sep), sep) {
		if seg != "(root)" && seg != "" {
			field = append(field, seg)
		}
	}
	d := re.Details()
	switch re.Type() {
	case "required":
		return Violation{append(field, fmt.Sprint(d["property"])), "missing required field"}
	case "additional_property_not_allowed":
		return Violation{append(field, fmt.Sprint(d["property"])), "unknown field"}
	case "invalid_type":
		return Violation{field, fmt.Sprintf("expected %v, found %v", d["expected"], d["given"])}
	case "enum":
		return Violation{field, fmt.Sprintf("must be one of %v", d["allowed"])}
	case "const":
		return Violation{field, fmt.Sprintf("must be %v", d["allowed"])}
	case "string_gte":
		if fmt.Sprint(d["min"]) == "1" {
			return Violation{field, "must not be empty"}
		}
	case "array_min_items":
		if fmt.Sprint(d["min"]) == "1" {
			return Violation{field, "must list at least one item"}
		}
	case "pattern":
		if hint, ok := patternHint(fmt.Sprint(d["pattern"])); ok {
			return Violation{field, hint}
		}
		return Violation{field, fmt.Sprintf("does not match the pattern %v", d["pattern"])}
	case "number_gte":
		return Violation{field, fmt.Sprintf("must be at least %v", d["min"])}
	case "number_gt":
		return Violation{field, fmt.Sprintf("must be greater than %v", d["min"])}
	case "number_lte":
		return Violation{field, fmt.Sprintf("must be at most %v", d["max"])}
	}
	msg := re.Description()
	if msg != "" {
		msg = strings.ToLower(msg[:1]) + msg[1:]
	}
	return Violation{field, msg}
}

// Check validates a parsed document against the named schema. Each
// violation comes back as an error positioned in the file, in file order.
func Check(f *document.File, name string) ([]*document.Error, error) {
	vs, err := Validate(name, f.Value)
	if err != nil {
		return nil, err
	}
	errs := make([]*document.Error, 0, len(vs))
	for _, v := range vs {
		l, c := f.Pos(v.Field)
		errs = append(errs, &document.Error{Path: f.Path, Line: l, Col: c, Field: strings.Join(v.Field, "."), Msg: v.Message})
	}
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].Line != errs[j].Line {
			return errs[i].Line < errs[j].Line
		}
		return errs[i].Col < errs[j].Col
	})
	return errs, nil
}
