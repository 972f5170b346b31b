package contract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/schema/validate"
)

// TestRowsAndText: each section's row says what a human does next; the
// section's text is its lines as written.
func TestRowsAndText(t *testing.T) {
	l, err := Parse(validate.Schemas{}, "c.yaml", fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.Digests([]string{"task", "scope"})
	if err != nil {
		t.Fatal(err)
	}
	l.UseApprovals(map[string]Approval{
		"task":  {By: "alice", At: "t1", Digest: d["task"], Interactive: true},
		"scope": {By: "bob", At: "t2", Digest: "sha256:old"},
	}, nil)
	st := l.Status()
	var got [][]string
	for _, s := range st.Sections[:3] {
		got = append(got, s.Row())
	}
	want := [][]string{
		{"task", Approved, "alice", "t1", ""},
		{"metrics", Unapproved, "", "", "waiting for 'rlxp contract approve metrics'"},
		{"scope", Stale, "bob (non-interactive)", "t2", "edited since approval"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if st.Count() != 1 {
		t.Errorf("Count = %d, want 1", st.Count())
	}
	text := l.SectionText("scope")
	if !strings.HasPrefix(text, "scope:\n") || !strings.Contains(text, `files: ["configs/*.json", "cartpole/reward*.py"]`) || strings.Contains(text, "budget:") {
		t.Errorf("SectionText(scope) = %q", text)
	}
	v := l.Views([]string{"task"})
	if len(v) != 1 || v[0].Heading() != " (approved by alice at t1), digest "+d["task"] {
		t.Errorf("Views(task) = %+v", v)
	}
}

// TestValidate: the adapter's findings, undeclared sources and the
// experiments file's problem, sorted by file and line, and counted.
func TestValidate(t *testing.T) {
	l, err := Parse(validate.Schemas{}, "c.yaml", fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	adapterYAML, err := os.ReadFile(filepath.Join("..", "..", "cmd", "rlxp", "testdata", "fixtures", "adapter.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	msgs := func(v Validation) []string {
		var out []string
		for _, f := range v.Findings {
			out = append(out, f.Severity+": "+f.Error.Error())
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		data        []byte
		missing     bool
		experiments *document.Error
		want        []string
	}{
		{"valid", adapterYAML, false, nil, nil},
		{"missing adapter", nil, true, nil, []string{
			"warning: a.yaml: file is missing; run 'rlxp init' to restore the template",
			"warning: c.yaml:13:5: metrics.primary.source: source \"eval\" cannot be checked: adapter.yaml declares no metric sources",
			"warning: c.yaml:20:7: metrics.guardrails.0.source: source \"eval\" cannot be checked: adapter.yaml declares no metric sources",
			"warning: c.yaml:53:3: evaluation.source: source \"eval\" cannot be checked: adapter.yaml declares no metric sources",
		}},
		{"an experiments problem", adapterYAML, false, &document.Error{Path: "e.yaml", Line: 3, Msg: "bad"}, []string{"error: e.yaml:3: bad"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Validate(l, "a.yaml", tc.data, tc.missing, tc.experiments)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, msgs(v)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			errs := 0
			for _, m := range tc.want {
				if strings.HasPrefix(m, "error") {
					errs++
				}
			}
			if v.Errors != errs || v.Warnings != len(tc.want)-errs || v.Valid != (errs == 0) {
				t.Errorf("counts: %d errors, %d warnings, valid %v", v.Errors, v.Warnings, v.Valid)
			}
		})
	}
}
