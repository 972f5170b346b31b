package document

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const doc = `schema: x
budget:
  max_runs: 3
  lr: 1e-3
  quoted: "1e-3"
scope:
  files:
    - a.json
    - b.json
`

func TestPos(t *testing.T) {
	f, err := Parse("f.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		field     string
		line, col int
	}{
		{"budget", 2, 1},
		{"budget.max_runs", 3, 3},
		{"budget.missing", 2, 1},
		{"scope.files.1", 9, 7},
		{"scope.files.7", 7, 3},
		{"nosuch.deeper", 1, 1},
	}
	for _, tt := range tests {
		l, c := f.Pos(strings.Split(tt.field, "."))
		if l != tt.line || c != tt.col {
			t.Errorf("Pos(%s) = %d:%d, want %d:%d", tt.field, l, c, tt.line, tt.col)
		}
	}
}

func TestNormalize(t *testing.T) {
	f, err := Parse("f.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	budget := f.Value.(map[string]any)["budget"].(map[string]any)
	want := map[string]any{"max_runs": uint64(3), "lr": 0.001, "quoted": "1e-3"}
	if diff := cmp.Diff(want, budget); diff != "" {
		t.Errorf("budget mismatch (-want +got):\n%s", diff)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "f.yaml: file is empty"},
		{"  \n\n", "f.yaml: file is empty"},
		{"a: 1\nb: [1, 2\n", "f.yaml:2:"},
		{"a: 1\na: 2\n", `f.yaml:2:1: key "a" appears twice (first on line 1)`},
		{"a: .nan\n", "f.yaml:1:4: NaN and infinite numbers are not allowed"},
		{"a:\n  - -.inf\n", "f.yaml:2:5: NaN and infinite numbers are not allowed"},
		{"- 1\n", "f.yaml:1: top level must be a mapping"},
		{"a: 1\n---\nb: 2\n", "f.yaml:3: more than one YAML document"},
		{"!", "f.yaml:1: top level must be a mapping"},
		{"\x00\x01\x02", "f.yaml"},
		{"a: &x 1\nb: *x\n", "f.yaml:1:4: YAML anchor not allowed"},
		{"a:\n  - {<<: {k: 1}}\n", "f.yaml:2:6: YAML merge key not allowed"},
		{"a: *x\n", "f.yaml:1:"},
	}
	for _, tt := range tests {
		_, err := Parse("f.yaml", []byte(tt.in))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want prefix %q", tt.in, err, tt.want)
			continue
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) error spans lines: %q", tt.in, err)
		}
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{Path: "p", Msg: "m"}, "p: m"},
		{Error{Path: "p", Line: 3, Msg: "m"}, "p:3: m"},
		{Error{Path: "p", Line: 3, Col: 4, Field: "a.b", Msg: "m"}, "p:3:4: a.b: m"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// An alias chain expands exponentially when decoded ("billion laughs"); it
// must be refused before any expansion, whatever its depth.
func TestParseAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 30; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := 0; j < 9; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	_, err := Parse("contract.yaml", []byte(b.String()))
	if err == nil || !strings.HasPrefix(err.Error(), "contract.yaml:1:5: YAML anchor not allowed") {
		t.Fatalf("Parse(alias bomb) = %v, want the first anchor refused", err)
	}
}
