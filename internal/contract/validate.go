package contract

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/schema"
)

// A Validation is what 'contract validate' found across the state files.
type Validation struct {
	Schema   string    `json:"schema"`
	Valid    bool      `json:"valid"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	Findings []Finding `json:"findings"`
}

// Validate checks the contract together with adapter.yaml (data, read
// from the file adapterName; missing when it does not exist) and the
// problem found reading experiments.yaml (nil when none): every finding,
// by file and position, and the counts.
func Validate(l *Loaded, adapterName string, data []byte, missing bool, experiments *document.Error) (Validation, error) {
	findings := append([]Finding{}, l.Findings...)
	adapterFindings, sources, af, err := checkAdapter(l.checker, adapterName, data, missing)
	if err != nil {
		return Validation{}, err
	}
	findings = append(findings, adapterFindings...)
	findings = append(findings, checkSources(l, sources)...)
	findings = append(findings, checkListNames(l, af)...)
	if experiments != nil {
		findings = append(findings, Finding{Severity: "error", Error: experiments})
	}
	sort.SliceStable(findings, func(i, j int) bool {
		a, b := findings[i].Error, findings[j].Error
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	v := Validation{Schema: "rlxp.validate/v1", Findings: findings}
	for _, f := range findings {
		if f.Severity == "error" {
			v.Errors++
		} else {
			v.Warnings++
		}
	}
	v.Valid = v.Errors == 0
	return v, nil
}

// checkAdapter validates adapter.yaml and returns the metric sources it
// declares (nil when it declares none) and the file, when it is valid.
func checkAdapter(c schema.Checker, name string, data []byte, missing bool) ([]Finding, map[string]bool, *document.File, error) {
	if missing {
		return []Finding{{Severity: "warning", Error: &document.Error{Path: name, Msg: "file is missing; run 'rlxp init' to restore the template"}}}, nil, nil, nil
	}
	f, err := document.Parse(name, data)
	if err != nil {
		var de *document.Error
		if errors.As(err, &de) {
			return []Finding{{Severity: "error", Error: de}}, nil, nil, nil
		}
		return nil, nil, nil, err
	}
	errs, err := adapter.Check(c, f)
	if err != nil {
		return nil, nil, nil, err
	}
	var fs []Finding
	for _, e := range errs {
		fs = append(fs, Finding{Severity: "error", Error: e})
	}
	var doc struct {
		Metrics struct {
			Sources map[string]any `json:"sources"`
		} `json:"metrics"`
	}
	if len(errs) > 0 || f.Decode(&doc) != nil {
		return fs, nil, nil, nil
	}
	if len(doc.Metrics.Sources) == 0 {
		return fs, nil, f, nil
	}
	sources := map[string]bool{}
	for name := range doc.Metrics.Sources {
		sources[name] = true
	}
	return fs, sources, f, nil
}

// checkListNames checks config.list against the scope: a name it lists
// that the scope lacks (a misspelling sends the real parameter through
// config.override, as an option the program may not read), and a scope
// parameter with no way to the program at all.
func checkListNames(l *Loaded, f *document.File) []Finding {
	if f == nil || !l.Decoded {
		return nil
	}
	var doc struct {
		Config struct {
			Override string        `json:"override"`
			List     *adapter.List `json:"list"`
		} `json:"config"`
	}
	if f.Decode(&doc) != nil || doc.Config.List == nil {
		return nil
	}
	list := doc.Config.List
	params := l.Contract.Scope.ParamNames()
	var fs []Finding
	add := func(sev string, field []string, format string, args ...any) {
		line, col := f.Pos(field)
		fs = append(fs, Finding{Severity: sev, Error: &document.Error{Path: f.Path, Line: line, Col: col, Field: strings.Join(field, "."), Msg: fmt.Sprintf(format, args...)}})
	}
	for i, n := range list.Names {
		if !slices.Contains(params, n) {
			add("warning", []string{"config", "list", "names", fmt.Sprint(i)}, "%s is not a parameter of the contract's scope (%s)", n, strings.Join(params, ", "))
		}
	}
	for _, n := range params {
		if !list.Takes(n) && doc.Config.Override == "" {
			add("error", []string{"config", "override"}, "empty, and config.list.names does not name scope parameter %s: it has no way to the program", n)
		}
	}
	return fs
}

// checkSources checks that the contract's metric sources are declared in
// adapter.yaml, where scoring will look for them.
func checkSources(l *Loaded, sources map[string]bool) []Finding {
	if !l.Decoded {
		return nil
	}
	c := l.Contract
	type ref struct {
		field  []string
		source string
	}
	refs := []ref{{[]string{"metrics", "primary", "source"}, c.Metrics.Primary.Source}, {[]string{"evaluation", "source"}, c.Evaluation.Source}}
	for i, g := range c.Metrics.Guardrails {
		refs = append(refs, ref{[]string{"metrics", "guardrails", fmt.Sprint(i), "source"}, g.Source})
	}
	var fs []Finding
	for _, rf := range refs {
		if sources[rf.source] {
			continue
		}
		line, col := l.File.Pos(rf.field)
		sev, msg := "error", fmt.Sprintf("source %q is not declared in adapter.yaml metrics.sources", rf.source)
		if sources == nil {
			sev, msg = "warning", fmt.Sprintf("source %q cannot be checked: adapter.yaml declares no metric sources", rf.source)
		}
		fs = append(fs, Finding{Severity: sev, Error: &document.Error{Path: l.File.Path, Line: line, Col: col, Field: strings.Join(rf.field, "."), Msg: msg}})
	}
	return fs
}
