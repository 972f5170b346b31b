package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/ledger"
)

// nextSteps derives what to do next from the state, most blocking first:
// the ledger's integrity, the contract, experiments waiting for a human,
// runs to launch, watch or score, and, when nothing is pending, new
// proposals within what is left of the budget.
func nextSteps(set *experiment.Set, rep *Report, latest map[string]ledger.Entry) []string {
	var next []string
	add := func(format string, args ...any) { next = append(next, fmt.Sprintf(format, args...)) }

	if p := rep.Leaderboard.Problem; p != "" {
		add("The ledger does not verify at %s: run `rlxp ledger verify`; the entries from that line on are left out of this report.", p)
	}
	if n := len(rep.Contract.Problems); n > 0 {
		add("Fix %s in `.rlxp/contract.yaml` outside its sections; `rlxp contract validate` lists them.", plural(n, "problem"))
	}
	var incomplete, unapproved, stale []string
	for _, s := range rep.Contract.Sections {
		switch s.State {
		case contract.Incomplete:
			incomplete = append(incomplete, s.Name)
		case contract.Unapproved:
			unapproved = append(unapproved, s.Name)
		case contract.Stale:
			stale = append(stale, s.Name)
		}
	}
	if len(incomplete) > 0 {
		add("Complete the contract's %s in `.rlxp/contract.yaml`; `rlxp contract validate` says what each lacks.", sections(incomplete))
	}
	if len(unapproved) > 0 {
		add("A human reviews and approves the %s: `rlxp contract approve %s`.", sections(unapproved), strings.Join(unapproved, " "))
	}
	if len(stale) > 0 {
		add("The %s changed after approval: a human re-approves (`rlxp contract approve %s`) or the edit is undone.", sections(stale), strings.Join(stale, " "))
	}

	var proposed, staleExp, launch, launchIDs []string
	for i, e := range set.Experiments {
		x := rep.Experiments[i]
		switch {
		case e.Status != experiment.Proposed && e.Status != experiment.Approved && e.Status != experiment.Running:
		case x.Approval == contract.Stale:
			staleExp = append(staleExp, e.ID)
		case x.Approval == contract.Unapproved:
			proposed = append(proposed, e.ID)
		case x.Runs.Total < len(e.Seeds):
			launch = append(launch, fmt.Sprintf("%s (%d of %d seeds to run)", e.ID, len(e.Seeds)-x.Runs.Total, len(e.Seeds)))
			launchIDs = append(launchIDs, e.ID)
		}
	}
	if len(proposed) > 0 {
		id := oneID(proposed)
		add("Consider the proposed %s: review with `rlxp experiment show %s`; a human approves (`rlxp experiment approve %s`) or rejects (`rlxp experiment reject %s`).", listOf("experiment", proposed), id, id, id)
	}
	if len(staleExp) > 0 {
		add("The %s changed after approval: a human re-approves with `rlxp experiment approve %s`.", listOf("experiment", staleExp), oneID(staleExp))
	}
	if b := rep.Budget; b.Known && (b.RunsLeft < 0 || b.GPUHoursLeft < 0) {
		add("Approved experiments reserve more than the budget has left (%s runs, %s GPU-hours left): the gate refuses launches that do not fit; a human raises the budget or rejects an experiment.",
			fmt.Sprint(b.RunsLeft), num(b.GPUHoursLeft))
	}
	if len(launch) > 0 {
		id := oneID(launchIDs)
		add("Launch the approved %s: `rlxp check %s`, then `rlxp launch %s`.", listOf("experiment", launch), id, id)
	}

	var inFlight int
	var failed, failedIDs []string
	for i, r := range rep.Runs {
		switch r.State {
		case InFlight:
			inFlight++
		case Failed:
			if !rerun(rep.Runs[i+1:], r) {
				failed = append(failed, fmt.Sprintf("%s (%s)", r.ID, r.Detail))
				failedIDs = append(failedIDs, r.ID)
			}
		}
	}
	switch {
	case inFlight == 1:
		add("Watch the run in flight: `rlxp status`.")
	case inFlight > 1:
		add("Watch the %d runs in flight: `rlxp status`.", inFlight)
	}
	if len(failed) > 0 {
		add("Find out why the %s failed: `rlxp status %s` shows the log's last lines.", listOf("run", failed), oneID(failedIDs))
	}

	toScore := unscored(rep, latest)
	if len(toScore) > 0 {
		cmds := make([]string, len(toScore))
		for i, id := range toScore {
			cmds[i] = "`rlxp score " + id + "`"
		}
		add("Score what has finished since its last ledger entry: %s.", strings.Join(cmds, ", "))
	}
	if base := rep.Leaderboard.Baseline; base != "" && !slices.Contains(toScore, base) {
		if e, ok := latest[base]; !ok || e.String("verdict") == "invalid" {
			add("Score the baseline, %s, once its runs have ended (`rlxp score %s`): every experiment is compared with its latest valid entry.", base, base)
		}
	}
	var thin []string
	for _, r := range rep.Leaderboard.Rows {
		if r.Verdict == "inconclusive" && r.Test == "too_few_seeds" {
			thin = append(thin, r.Experiment)
		}
	}
	if len(thin) > 0 {
		add("%s inconclusive with too few seeds for a test: more seeds would tell it from noise.", capitalize(listOf("experiment", thin))+isAre(len(thin)))
	}

	if len(next) == 0 && rep.Contract.Approved && rep.Budget.Known {
		b := rep.Budget
		// Runs on no GPU spend no GPU-hours: a CPU-only contract's 0
		// GPU-hours is its whole need, not a budget already spent.
		gpus := b.GPUsPerRun > 0
		switch {
		case b.RunsLeft <= 0 || gpus && b.GPUHoursLeft <= 0:
			add("The budget is spent (%d of %d runs, %s of %s GPU-hours used or reserved): only a human can raise it, by editing and re-approving the budget section.",
				b.RunsSpent+b.RunsReserved, b.MaxRuns, num(b.GPUHoursSpent+b.GPUHoursReserved), num(b.GPUHours))
		case gpus:
			add("Consider new proposals: `rlxp propose` drafts experiments inside the approved scope and what is left of the budget (%s, %s GPU-hours); a human approves the ones worth running.",
				plural(b.RunsLeft, "run"), num(b.GPUHoursLeft))
		default:
			add("Consider new proposals: `rlxp propose` drafts experiments inside the approved scope and what is left of the budget (%s, on CPU); a human approves the ones worth running.",
				plural(b.RunsLeft, "run"))
		}
	}
	if len(next) == 0 {
		add("Nothing is pending.")
	}
	return next
}

// rerun says whether a later run of the same experiment and seed finished.
func rerun(later []Run, r Run) bool {
	for _, l := range later {
		if l.Experiment == r.Experiment && l.State == Finished && (l.Seed == nil) == (r.Seed == nil) && (l.Seed == nil || *l.Seed == *r.Seed) {
			return true
		}
	}
	return false
}

// unscored lists the experiments, in the order of their first run, whose
// runs have all ended, at least one finished, and the last of them ended
// after the experiment's latest ledger entry.
func unscored(rep *Report, latest map[string]ledger.Entry) []string {
	type acc struct {
		inFlight, finished bool
		lastEnd            time.Time
	}
	var order []string
	byExp := map[string]*acc{}
	for _, r := range rep.Runs {
		a := byExp[r.Experiment]
		if a == nil {
			a = &acc{}
			byExp[r.Experiment] = a
			order = append(order, r.Experiment)
		}
		switch r.State {
		case InFlight:
			a.inFlight = true
		case Finished:
			a.finished = true
		}
		if end, err := time.Parse(time.RFC3339, r.EndedAt); err == nil && end.After(a.lastEnd) {
			a.lastEnd = end
		}
	}
	var out []string
	for _, id := range order {
		a := byExp[id]
		if a.inFlight || !a.finished {
			continue
		}
		if e, ok := latest[id]; ok {
			if t, err := time.Parse(time.RFC3339, e.Time); err == nil && !t.Before(a.lastEnd) {
				continue
			}
		}
		out = append(out, id)
	}
	return out
}

// oneID is the id to put in a command: the only one, or a placeholder.
func oneID(ids []string) string {
	if len(ids) == 1 {
		return ids[0]
	}
	return "ID"
}

func sections(names []string) string {
	if len(names) == 1 {
		return "section " + names[0]
	}
	return "sections " + strings.Join(names, ", ")
}

func listOf(noun string, items []string) string {
	if len(items) == 1 {
		return noun + " " + items[0]
	}
	return noun + "s " + strings.Join(items, ", ")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func isAre(n int) string {
	if n == 1 {
		return " is"
	}
	return " are"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
