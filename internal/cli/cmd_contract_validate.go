package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
)

func newContractValidateCmd() *Command {
	var o contractOptions
	fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp contract validate [--root DIR] [--json]",
		Short:     "check the contract, adapter and experiments files",
		Long: `Validate checks contract.yaml, adapter.yaml and experiments.yaml against
their schemas, then checks what a schema cannot: held-out evaluation seeds
that are also training seeds, metric sources that adapter.yaml does not
declare, empty ranges, a GPU budget that no run fits. Every finding names
the file, line and field. Warnings are advice and do not fail validation.

EXIT STATUS
  0  no errors (warnings may be printed)
  1  a file is missing or is not valid YAML
  2  usage error
  3  findings: at least one error`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runContractValidate(env, &o, args)
		},
	}
}

type validateResult struct {
	Schema   string             `json:"schema"`
	Valid    bool               `json:"valid"`
	Errors   int                `json:"errors"`
	Warnings int                `json:"warnings"`
	Findings []contract.Finding `json:"findings"`
}

func runContractValidate(env *Env, o *contractOptions, args []string) error {
	if len(args) > 0 {
		return usagef("validate takes no arguments")
	}
	r, l, err := openContract(env, o.root)
	if err != nil {
		return err
	}
	findings := append([]contract.Finding{}, l.Findings...)
	adapterFindings, sources, err := checkAdapter(r)
	if err != nil {
		return err
	}
	findings = append(findings, adapterFindings...)
	findings = append(findings, checkSources(l, sources)...)
	if _, err := workspace.Experiments(r); err != nil {
		var de *document.Error
		if !errors.As(err, &de) {
			return err
		}
		findings = append(findings, contract.Finding{Severity: "error", Error: de})
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
	res := validateResult{Schema: "rlxp.validate/v1", Findings: findings}
	for _, f := range findings {
		if f.Severity == "error" {
			res.Errors++
		} else {
			res.Warnings++
		}
	}
	res.Valid = res.Errors == 0
	if o.json {
		if err := writeJSON(env.Stdout, res); err != nil {
			return err
		}
	} else {
		for _, f := range findings {
			sev := env.paint(red, "error")
			if f.Severity != "error" {
				sev = env.paint(yellow, "warning")
			}
			fmt.Fprintf(env.Stdout, "%s: %s\n", sev, f.Error.Error())
		}
		verdict := "valid"
		if !res.Valid {
			verdict = "not valid"
		}
		fmt.Fprintf(env.Stdout, "%s: %s (%d errors, %d warnings)\n", r.Show(""), verdict, res.Errors, res.Warnings)
	}
	if !res.Valid {
		return errNegative
	}
	return nil
}

// checkAdapter validates adapter.yaml and returns the metric sources it
// declares (nil when it declares none).
func checkAdapter(r *state.Repo) ([]contract.Finding, map[string]bool, error) {
	data, err := r.Read(state.Adapter)
	if err != nil {
		if _, serr := os.Stat(r.Path(state.Adapter)); errors.Is(serr, os.ErrNotExist) {
			return []contract.Finding{{Severity: "warning", Error: &document.Error{Path: r.Show(state.Adapter), Msg: "file is missing; run 'rlxp init' to restore the template"}}}, nil, nil
		}
		return nil, nil, err
	}
	f, err := document.Parse(r.Show(state.Adapter), data)
	if err != nil {
		var de *document.Error
		if errors.As(err, &de) {
			return []contract.Finding{{Severity: "error", Error: de}}, nil, nil
		}
		return nil, nil, err
	}
	errs, err := adapter.Check(f)
	if err != nil {
		return nil, nil, err
	}
	var fs []contract.Finding
	for _, e := range errs {
		fs = append(fs, contract.Finding{Severity: "error", Error: e})
	}
	var doc struct {
		Metrics struct {
			Sources map[string]any `json:"sources"`
		} `json:"metrics"`
	}
	if len(errs) > 0 || f.Decode(&doc) != nil || len(doc.Metrics.Sources) == 0 {
		return fs, nil, nil
	}
	sources := map[string]bool{}
	for name := range doc.Metrics.Sources {
		sources[name] = true
	}
	return fs, sources, nil
}

// checkSources checks that the contract's metric sources are declared in
// adapter.yaml, where scoring will look for them.
func checkSources(l *contract.Loaded, sources map[string]bool) []contract.Finding {
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
	var fs []contract.Finding
	for _, rf := range refs {
		if sources[rf.source] {
			continue
		}
		line, col := l.File.Pos(rf.field)
		sev, msg := "error", fmt.Sprintf("source %q is not declared in adapter.yaml metrics.sources", rf.source)
		if sources == nil {
			sev, msg = "warning", fmt.Sprintf("source %q cannot be checked: adapter.yaml declares no metric sources", rf.source)
		}
		fs = append(fs, contract.Finding{Severity: sev, Error: &document.Error{Path: l.File.Path, Line: line, Col: col, Field: strings.Join(rf.field, "."), Msg: msg}})
	}
	return fs
}
