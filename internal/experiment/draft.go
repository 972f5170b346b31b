package experiment

import (
	"fmt"

	"github.com/rlxp/rlxp/internal/contract"
)

// A Draft is an experiment as a person describes it on the command line.
type Draft struct {
	ID, Category, Hypothesis string
	WallClock                string   // "" for the budget's maximum
	Params                   []string // NAME=VALUE
	Files                    []string
	Seeds                    []int // nil for the baseline's
	CreatedAt                string
}

// New is the proposed experiment a draft describes, its parameters read
// against the contract's scope (see ParseParams). The scope must be
// complete, and the baseline section too when the draft names no seeds.
func New(l *contract.Loaded, d Draft) (*Experiment, error) {
	if err := l.Require("scope"); err != nil {
		return nil, err
	}
	if d.Seeds == nil {
		if err := l.Require("baseline"); err != nil {
			return nil, fmt.Errorf("no --seeds given, and the baseline seeds cannot be used: %w", err)
		}
		d.Seeds = l.Contract.Baseline.Seeds
	}
	e := &Experiment{
		ID: d.ID, Status: Proposed, Category: d.Category, Hypothesis: d.Hypothesis,
		Files: d.Files, Seeds: d.Seeds, WallClock: contract.Duration(d.WallClock), CreatedAt: d.CreatedAt,
	}
	var err error
	if e.Params, err = ParseParams(l, d.Params); err != nil {
		return nil, err
	}
	return e, nil
}
