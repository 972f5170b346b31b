package experiment

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/repotest"
	"github.com/rlxp/rlxp/internal/schema/validate"
)

func TestNew(t *testing.T) {
	b := repotest.Contract(t)
	parse := func(b []byte) *contract.Loaded {
		l, err := contract.Parse(validate.Schemas{}, "c.yaml", b)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	full := parse(b)
	noBaseline := parse(bytes.Replace(b, []byte("  seeds: [0, 1, 2]\n"), nil, 1))
	noScope := parse(bytes.Replace(b, []byte("  categories: [hyperparameter, reward]\n"), nil, 1))
	tests := []struct {
		name   string
		l      *contract.Loaded
		d      Draft
		want   *Experiment
		err    string // a prefix
		syntax bool
	}{{
		name: "the baseline's seeds",
		l:    full,
		d:    Draft{ID: "a", Category: "hyperparameter", Params: []string{"lr=0.01"}, WallClock: "5m", CreatedAt: "t"},
		want: &Experiment{ID: "a", Status: Proposed, Category: "hyperparameter", Params: yaml.MapSlice{{Key: "lr", Value: 0.01}}, Seeds: []int{0, 1, 2}, WallClock: "5m", CreatedAt: "t"},
	}, {
		name: "its own seeds, no baseline needed",
		l:    noBaseline,
		d:    Draft{ID: "a", Seeds: []int{7}},
		want: &Experiment{ID: "a", Status: Proposed, Seeds: []int{7}},
	}, {
		name: "no seeds and no baseline",
		l:    noBaseline,
		d:    Draft{ID: "a"},
		err:  "no --seeds given, and the baseline seeds cannot be used: contract section baseline is incomplete",
	}, {
		name: "an incomplete scope",
		l:    noScope,
		d:    Draft{ID: "a", Seeds: []int{0}},
		err:  "contract section scope is incomplete",
	}, {
		name:   "a malformed parameter",
		l:      full,
		d:      Draft{ID: "a", Params: []string{"lr"}},
		err:    `invalid --param "lr"`,
		syntax: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := New(tt.l, tt.d)
			if tt.err != "" {
				var se *ParamSyntaxError
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) || errors.As(err, &se) != tt.syntax {
					t.Fatalf("err = %v, want a prefix %q (syntax %t)", err, tt.err, tt.syntax)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, e); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
