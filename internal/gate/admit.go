package gate

import (
	"fmt"
	"strings"

	"github.com/rlxp/rlxp/internal/budget"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
)

// Admit adds a proposed experiment to set when it may be written: inside
// the contract's scope, no training seed among the held-out evaluation
// seeds (once the evaluation section is complete), and, once the budget
// and hardware sections are, within the budget left. spend is asked only
// then. Launch asks the gate again; refusing here spares a human the review
// of an experiment that could never run. On error set is unchanged or
// holds e, and the caller writes nothing.
func Admit(l *contract.Loaded, set *experiment.Set, e *experiment.Experiment, spend func() (budget.Spend, error)) error {
	if err := set.Add(e, l.Contract.Scope); err != nil {
		return fmt.Errorf("%w (%s)", err, l.Where("scope"))
	}
	if l.Complete("evaluation") {
		for _, c := range Fit(Input{Contract: l, Experiments: set, Experiment: e}).Conditions {
			if c.Check == "seeds" && !c.OK {
				return fmt.Errorf("%s (%s)", c.Detail, l.Where("evaluation"))
			}
		}
	}
	if !l.Complete("budget") || !l.Complete("hardware") {
		return nil
	}
	s, err := spend()
	if err != nil {
		return err
	}
	var unmet []string
	for _, c := range Fit(Input{Contract: l, Experiments: set, Experiment: e, Spend: s}).Conditions {
		if !c.OK && strings.HasPrefix(c.Check, "budget") {
			unmet = append(unmet, c.Check+": "+c.Detail)
		}
	}
	if len(unmet) > 0 {
		return fmt.Errorf("experiment %s does not fit the budget left: %s (%s)", e.ID, strings.Join(unmet, "; "), l.Where("budget"))
	}
	return nil
}
