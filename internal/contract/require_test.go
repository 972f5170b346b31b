package contract

import (
	"bytes"
	"testing"

	"github.com/rlxp/rlxp/internal/schema/validate"
)

func TestRequire(t *testing.T) {
	full, err := Parse(validate.Schemas{}, "c.yaml", fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	noBudget, err := Parse(validate.Schemas{}, "c.yaml", bytes.Replace(fixture(t), []byte("  gpu_hours: 2\n"), nil, 1))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		l        *Loaded
		sections []string
		want     string
	}{
		{"complete", full, Sections(), ""},
		{"none asked", noBudget, nil, ""},
		{"another section incomplete", noBudget, []string{"scope", "baseline"}, ""},
		{"incomplete, with its finding", noBudget, []string{"scope", "budget"}, "contract section budget is incomplete: "},
	}
	for _, tt := range tests {
		err := tt.l.Require(tt.sections...)
		got := ""
		if err != nil {
			got = err.Error()[:min(len(err.Error()), len(tt.want))]
		}
		if got != tt.want || (tt.want == "" && err != nil) {
			t.Errorf("%s: Require(%v) = %v, want %q", tt.name, tt.sections, err, tt.want)
		}
	}
}
