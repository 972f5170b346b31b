package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/schema/validate"
)

func scope(t *testing.T) contract.Scope {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "cmd", "rlxp", "testdata", "fixtures", "contract.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := contract.Parse(validate.Schemas{}, "c.yaml", b)
	if err != nil || !l.Decoded {
		t.Fatalf("fixture: %v %v", err, l.Findings)
	}
	return l.Contract.Scope
}

const sample = `schema: rlxp.experiments/v1
experiments:
  - id: lr-low
    status: approved
    category: hyperparameter
    hypothesis: steadier
    params:
      lr: 1e-3
      hidden: 32
    files: [configs/low.json]
    seeds: [0, 1, 2]
    wall_clock: 5m
`

func TestParseEncodeRoundTrip(t *testing.T) {
	s, err := Parse(validate.Schemas{}, "e.yaml", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	want := []*Experiment{{
		ID: "lr-low", Status: Approved, Category: "hyperparameter", Hypothesis: "steadier",
		Params: yaml.MapSlice{{Key: "lr", Value: 0.001}, {Key: "hidden", Value: uint64(32)}},
		Files:  []string{"configs/low.json"}, Seeds: []int{0, 1, 2}, WallClock: "5m",
	}}
	if diff := cmp.Diff(want, s.Experiments); diff != "" {
		t.Fatalf("parse mismatch (-want +got):\n%s", diff)
	}
	out, err := s.Encode()
	if err != nil {
		t.Fatal(err)
	}
	s2, err := Parse(validate.Schemas{}, "e.yaml", out)
	if err != nil {
		t.Fatalf("encoded file does not parse: %v\n%s", err, out)
	}
	if diff := cmp.Diff(s.Experiments, s2.Experiments); diff != "" {
		t.Errorf("round trip mismatch (-first +second):\n%s", diff)
	}
}

func TestDigest(t *testing.T) {
	s, err := Parse(validate.Schemas{}, "e.yaml", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	e := s.Experiments[0]
	e.Approval = &contract.Approval{By: "a", At: "t", Digest: e.Digest()}
	if got := e.ApprovalState(); got != contract.Approved {
		t.Fatalf("state = %s, want approved", got)
	}
	e.Hypothesis = "rewritten prose"
	if got := e.ApprovalState(); got != contract.Approved {
		t.Errorf("hypothesis edit: state = %s, want approved", got)
	}
	for name, edit := range map[string]func(){
		"param":      func() { e.Params[0].Value = 0.002 },
		"seeds":      func() { e.Seeds = append(e.Seeds, 3) },
		"files":      func() { e.Files = nil },
		"wall clock": func() { e.WallClock = "6m" },
	} {
		s, _ := Parse(validate.Schemas{}, "e.yaml", []byte(sample))
		e = s.Experiments[0]
		e.Approval = &contract.Approval{Digest: e.Digest()}
		edit()
		if got := e.ApprovalState(); got != contract.Stale {
			t.Errorf("%s edit: state = %s, want stale", name, got)
		}
	}
}

func TestAddAndScope(t *testing.T) {
	sc := scope(t)
	s, err := Parse(validate.Schemas{}, "e.yaml", []byte("schema: rlxp.experiments/v1\nexperiments: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	ok := &Experiment{ID: "a", Status: Proposed, Seeds: []int{0}, Params: yaml.MapSlice{{Key: "lr", Value: 0.01}}}
	if err := s.Add(ok, sc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		e    *Experiment
		want string
	}{
		{&Experiment{ID: "a", Seeds: []int{0}}, `experiment "a" already exists`},
		{&Experiment{ID: "../x", Seeds: []int{0}}, `invalid id "../x"`},
		{&Experiment{ID: "b", Seeds: []int{0}, Params: yaml.MapSlice{{Key: "lr", Value: 1.0}}}, "outside the approved range"},
		{&Experiment{ID: "c", Seeds: []int{0}, Files: []string{"train.py"}}, "file train.py is not in the approved scope"},
		{&Experiment{ID: "d", Seeds: []int{0}, Category: "curriculum"}, "category curriculum is not in the approved scope"},
	}
	for _, tt := range tests {
		err := s.Add(tt.e, sc)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Add(%s) = %v, want %q", tt.e.ID, err, tt.want)
		}
	}
	if len(s.Experiments) != 1 {
		t.Errorf("refused experiments were added: %d experiments", len(s.Experiments))
	}
	// ScopeErrors lists every violation, not the first.
	bad := &Experiment{ID: "e", Seeds: []int{0}, Category: "curriculum", Files: []string{"x.py"},
		Params: yaml.MapSlice{{Key: "lr", Value: 1.0}, {Key: "clip", Value: 0.2}}}
	if n := len(bad.ScopeErrors(sc)); n != 4 {
		t.Errorf("ScopeErrors found %d violations, want 4", n)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"schema: rlxp.experiments/v1\nexperiments:\n  - {id: a, status: proposed, seeds: [0]}\n  - {id: a, status: proposed, seeds: [1]}\n",
			`e.yaml:4:6: experiments.1.id: duplicate id "a"`},
		{"schema: rlxp.experiments/v1\nexperiments:\n  - {id: a, status: proposed, seeds: []}\n", "experiments.0.seeds: must list at least one item"},
		{"schema: rlxp.experiments/v2\n", "e.yaml:1:1: schema: must be"},
		{"schema: [\n", "e.yaml:1:"},
	}
	for _, tt := range tests {
		_, err := Parse(validate.Schemas{}, "e.yaml", []byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

// FuzzParse checks decode → validate → encode → decode on arbitrary input:
// no panics, and whatever parses survives a round trip unchanged.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("schema: rlxp.experiments/v1\nexperiments: []\n"))
	if b, err := os.ReadFile(filepath.Join("..", "..", "templates", "experiments.yaml")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(validate.Schemas{}, "e.yaml", data)
		if err != nil {
			return
		}
		out, err := s.Encode()
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		s2, err := Parse(validate.Schemas{}, "e.yaml", out)
		if err != nil {
			t.Fatalf("encoded file does not parse: %v\n%s", err, out)
		}
		for i := range s.Experiments {
			if s.Experiments[i].Digest() != s2.Experiments[i].Digest() {
				t.Fatalf("experiment %d changed in the round trip:\n%s", i, out)
			}
		}
	})
}

func TestReject(t *testing.T) {
	for _, status := range []string{Proposed, Approved, Running, Done, Rejected} {
		e := &Experiment{ID: "x", Status: status}
		err := e.Reject("alice", "t", "too large")
		if ok := status == Proposed || status == Approved; ok != (err == nil) {
			t.Errorf("%s: Reject = %v", status, err)
			continue
		}
		if err == nil && (e.Status != Rejected || *e.Rejection != (Rejection{By: "alice", At: "t", Reason: "too large"})) {
			t.Errorf("%s: rejected as %+v %+v", status, e.Status, e.Rejection)
		}
		if err != nil && e.Status != status {
			t.Errorf("%s: a refused rejection changed the status to %s", status, e.Status)
		}
	}
}
