package experiment

import (
	"errors"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/repotest"
	"github.com/rlxp/rlxp/internal/schema/validate"
)

func TestDescribeAndText(t *testing.T) {
	tests := []struct {
		name     string
		e        *Experiment
		describe string
		text     []string // lines, in order
	}{{
		name:     "bare",
		e:        &Experiment{ID: "b", Status: Proposed, Seeds: []int{0, 1}},
		describe: "no parameter changes, seeds 0,1",
		text:     []string{"experiment  b", "status      proposed (approval unapproved)", "seeds       0,1"},
	}, {
		name: "params, files, approval",
		e: &Experiment{ID: "lr", Status: Approved, Category: "hyperparameter", Hypothesis: "steadier",
			Params: yaml.MapSlice{{Key: "lr", Value: 0.001}, {Key: "hidden", Value: 32}}, Files: []string{"a.json", "b.json"},
			Seeds: []int{2}, WallClock: "5m", Approval: &contract.Approval{By: "dana", At: "t0", Interactive: true}},
		describe: "lr=0.001 hidden=32 files a.json,b.json, seeds 2",
		text: []string{"experiment  lr", "category    hyperparameter", "hypothesis  steadier", "param       lr=0.001", "param       hidden=32",
			"files       a.json, b.json", "seeds       2", "wall-clock  5m per run", "approved    by dana at t0 (interactive: true)"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.e.Describe(); got != tt.describe {
				t.Errorf("Describe() = %q, want %q", got, tt.describe)
			}
			var kept []string
			for _, l := range strings.Split(tt.e.Text(), "\n") {
				for _, w := range tt.text {
					if l == w {
						kept = append(kept, l)
					}
				}
			}
			if d := cmp.Diff(tt.text, kept); d != "" {
				t.Errorf("Text lines (-want +got):\n%s\n%s", d, tt.e.Text())
			}
			if !strings.Contains(tt.e.Text(), "digest      "+tt.e.Digest()+"\n") {
				t.Error("Text lacks the digest")
			}
		})
	}
}

func TestViews(t *testing.T) {
	e := &Experiment{ID: "a", Status: Proposed, Params: yaml.MapSlice{{Key: "lr", Value: 0.01}}}
	v := e.View()
	want := View{ViewSchema, e, Proposed, map[string]any{"lr": 0.01}, contract.Unapproved, e.Digest()}
	if d := cmp.Diff(want, v); d != "" {
		t.Errorf("View (-want +got):\n%s", d)
	}
	want.Schema = ""
	if d := cmp.Diff([]View{want}, Views([]*Experiment{e})); d != "" {
		t.Errorf("Views (-want +got):\n%s", d)
	}
}

func TestParseParams(t *testing.T) {
	b := repotest.Contract(t)
	l, err := contract.Parse(validate.Schemas{}, "c.yaml", b)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		settings []string
		want     yaml.MapSlice
		syntax   bool   // a usage error
		err      string // a prefix of the error
	}{
		{settings: []string{"lr=0.01", "hidden=32"}, want: yaml.MapSlice{{Key: "lr", Value: 0.01}, {Key: "hidden", Value: int64(32)}}},
		{settings: nil},
		{settings: []string{"lr"}, syntax: true, err: `invalid --param "lr": want NAME=VALUE`},
		{settings: []string{"=1"}, syntax: true, err: `invalid --param "=1"`},
		{settings: []string{"lr=0.01", "lr=0.02"}, syntax: true, err: "parameter lr given twice"},
		{settings: []string{"lr=1"}, err: "parameter lr"},
		{settings: []string{"nosuch=1"}, err: "parameter nosuch is not in the approved scope"},
	}
	for _, tt := range tests {
		got, err := ParseParams(l, tt.settings)
		var se *ParamSyntaxError
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%q: %v", tt.settings, err)
		case tt.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.err)):
			t.Errorf("%q: err = %v, want a prefix %q", tt.settings, err, tt.err)
		case errors.As(err, &se) != tt.syntax:
			t.Errorf("%q: %v is a syntax error: %t, want %t", tt.settings, err, !tt.syntax, tt.syntax)
		case err == nil:
			if d := cmp.Diff([]yaml.MapItem(tt.want), got); d != "" {
				t.Errorf("%q (-want +got):\n%s", tt.settings, d)
			}
		}
	}
	if _, err := ParseParams(l, []string{"lr=1"}); err == nil || !strings.HasSuffix(err.Error(), "(scope.parameters.lr at c.yaml:27:5)") {
		t.Errorf("a value out of range does not say where the scope is: %v", err)
	}
}

func TestParseSeeds(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want []int
		err  string
	}{
		{s: "0,1,2", want: []int{0, 1, 2}},
		{s: " 3 , 10000", want: []int{3, 10000}},
		{s: "1,-1", err: `invalid --seeds "1,-1": want non-negative integers separated by commas`},
		{s: "a", err: `invalid --seeds "a": want non-negative integers separated by commas`},
		{s: "1,,2", err: `invalid --seeds "1,,2": want non-negative integers separated by commas`},
		{s: "2,2", err: `invalid --seeds "2,2": seed 2 repeats`},
	} {
		got, err := ParseSeeds(tt.s)
		if (err == nil) != (tt.err == "") || err != nil && err.Error() != tt.err {
			t.Errorf("ParseSeeds(%q): %v, want %q", tt.s, err, tt.err)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("ParseSeeds(%q) (-want +got):\n%s", tt.s, d)
		}
	}
}
