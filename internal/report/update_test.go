package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/scaffold"
	"github.com/rlxp/rlxp/internal/state"
)

func TestUpdate(t *testing.T) {
	root := t.TempDir()
	r, err := state.Open(root, root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scaffold.Init(r, "demo"); err != nil {
		t.Fatal(err)
	}
	svg := []byte("<svg/>")
	charts := func(context.Context) ([]Plot, map[string][]byte, error) {
		return []Plot{{Metric: "return", File: "plots/return.svg"}}, map[string][]byte{"plots/return.svg": svg}, nil
	}
	noWarn := func(w string) { t.Errorf("warning: %s", w) }
	steps := []struct {
		name   string
		check  bool
		charts Charts
		want   string
	}{
		{"check a fresh report", true, nil, OutOfDate},
		{"write it", false, nil, Written},
		{"check again", true, nil, UpToDate},
		{"check with a chart not drawn yet", true, charts, OutOfDate},
		{"draw it", false, charts, Written},
		{"check with the chart", true, charts, UpToDate},
	}
	for _, s := range steps {
		before, _ := os.ReadFile(r.Path(state.Report))
		res, err := Update(t.Context(), r, s.check, s.charts, noWarn)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if res.Action != s.want || res.Check != s.check || res.Schema != Schema || res.File != ".rlxp/report.md" {
			t.Errorf("%s: %+v, want action %s", s.name, res, s.want)
		}
		after, _ := os.ReadFile(r.Path(state.Report))
		if s.check && string(after) != string(before) {
			t.Errorf("%s: --check wrote report.md", s.name)
		}
	}
	got, err := os.ReadFile(filepath.Join(r.Dir(), "plots", "return.svg"))
	if err != nil || string(got) != string(svg) {
		t.Errorf("chart: %q, %v", got, err)
	}
	report, _ := os.ReadFile(r.Path(state.Report))
	if !strings.Contains(string(report), "plots/return.svg") {
		t.Errorf("report.md does not link the chart:\n%s", report)
	}
}

func TestOutcomeText(t *testing.T) {
	rep := &Report{Next: []string{"approve the contract", "launch"}}
	for _, tt := range []struct {
		o     Outcome
		first string
	}{
		{Outcome{Action: Written, Wrote: []string{"R"}}, "wrote R"},
		{Outcome{Action: Written, Wrote: []string{"R", "P/a.svg"}, plots: true}, "wrote R\nwrote P/a.svg"},
		{Outcome{Action: Written, Wrote: []string{"P/a.svg"}, plots: true}, "wrote P/a.svg\nR is up to date"},
		{Outcome{Action: UpToDate}, "R is up to date"},
		{Outcome{Action: OutOfDate}, "R is out of date: run 'rlxp report' to regenerate it"},
		{Outcome{Action: OutOfDate, plots: true}, "R is out of date: run 'rlxp report --plots' to regenerate it"},
	} {
		want := tt.first + "\nnext:\n  1. approve the contract\n  2. launch\n"
		tt.o.File, tt.o.Report = "R", rep
		if d := cmp.Diff(want, tt.o.Text()); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.first, d)
		}
	}
}

func TestUpdateRefusesBrokenMarkers(t *testing.T) {
	root := t.TempDir()
	r, _ := state.Open(root, root)
	if _, err := scaffold.Init(r, "demo"); err != nil {
		t.Fatal(err)
	}
	broken := "<!-- rlxp:generated:begin -->\nno end\n"
	if err := os.WriteFile(r.Path(state.Report), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Update(t.Context(), r, false, nil, func(string) {}); err == nil {
		t.Error("broken markers are not refused")
	}
	if b, _ := os.ReadFile(r.Path(state.Report)); string(b) != broken {
		t.Error("report.md was changed")
	}
}
