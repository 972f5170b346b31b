package gate

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/rlxp/rlxp/internal/budget"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/repotest"
	"github.com/rlxp/rlxp/internal/schema/validate"
)

func TestAdmit(t *testing.T) {
	exp := func(id string, seeds ...int) *experiment.Experiment {
		return &experiment.Experiment{ID: id, Status: experiment.Proposed, Params: yaml.MapSlice{{Key: "lr", Value: 0.01}}, Seeds: seeds}
	}
	none := func() (budget.Spend, error) { return budget.Spend{}, nil }
	tests := []struct {
		name  string
		e     *experiment.Experiment
		spend func() (budget.Spend, error)
		err   string // a prefix; "" admits
	}{
		{"fits", exp("a", 0, 1, 2), none, ""},
		{"out of scope", func() *experiment.Experiment { e := exp("a", 0); e.Params[0].Value = 0.5; return e }(), none, "parameter lr"},
		{"a held-out seed", exp("a", 0, 10001), none, "training seed 10001 inside the held-out evaluation seeds"},
		{"over the runs left", exp("a", 0, 1, 2), func() (budget.Spend, error) { return budget.Spend{Runs: 11}, nil }, "experiment a does not fit the budget left: budget.runs: "},
		{"spend unreadable", exp("a", 0), func() (budget.Spend, error) { return budget.Spend{}, errors.New("runs/x/run.json: bad") }, "runs/x/run.json: bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := &experiment.Set{}
			err := Admit(loadContract(t), set, tt.e, tt.spend)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.err)):
				t.Fatalf("err = %v, want a prefix %q", err, tt.err)
			case tt.err == "" && len(set.Experiments) != 1:
				t.Errorf("admitted but not added: %v", set.Experiments)
			}
		})
	}
}

// TestAdmitAsksSpendOnlyForABudget: with the budget section incomplete,
// the runs are not read and the budget is not checked.
func TestAdmitAsksSpendOnlyForABudget(t *testing.T) {
	l, err := contract.Parse(validate.Schemas{}, "c.yaml", bytes.Replace(repotest.Contract(t), []byte("  gpu_hours: 2\n"), nil, 1))
	if err != nil {
		t.Fatal(err)
	}
	if l.Complete("budget") {
		t.Fatal("the budget section is still complete")
	}
	e := &experiment.Experiment{ID: "a", Status: experiment.Proposed, Seeds: []int{0}}
	spend := func() (budget.Spend, error) { t.Error("spend was read"); return budget.Spend{}, nil }
	if err := Admit(l, &experiment.Set{}, e, spend); err != nil {
		t.Errorf("refused: %v", err)
	}
}
