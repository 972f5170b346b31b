package launch

import (
	"fmt"
	"strconv"
	"strings"
)

// Decide says what launch does with the plan before starting it: refuse
// (a --confirm digest that is not this plan's, or no confirmation and no
// prompt to ask at), or ask at the prompt (ask). Neither: confirm names
// the plan.
func (p *Plan) Decide(confirm string, canPrompt bool) (refusal string, ask bool) {
	switch {
	case confirm != "" && !p.Confirms(confirm):
		return fmt.Sprintf("--confirm %s does not match this plan (%s): it changed since it was shown; review it and confirm again", confirm, p.Short()), false
	case confirm == "" && !canPrompt:
		return fmt.Sprintf("not confirmed: a human reviews the plan above and confirms it, at a terminal or with --confirm %s", p.Short()), false
	}
	return "", confirm == ""
}

// Question is the prompt's question.
func (p *Plan) Question() string {
	return fmt.Sprintf("Launch this plan? Type its digest (%s) or yes: ", p.Short())
}

// Accepts says whether an answer at the prompt confirms the plan.
func (p *Plan) Accepts(answer string) bool { return answer == "yes" || p.Confirms(answer) }

// Summary is the plan in one line: digest, runs, backend, concurrency,
// GPUs, nodes and the wall-clock allowance.
func (p *Plan) Summary() string {
	gpus := "no GPUs"
	if p.GPUsPerRun > 0 {
		gpus = fmt.Sprintf("%d GPU%s per node", p.GPUsPerRun, plural(p.GPUsPerRun))
		if len(p.GPUs) > 0 {
			gpus += " from " + strings.Join(p.GPUs, ",")
		}
	}
	return fmt.Sprintf("plan %s: %d run%s of %s on %s, %d at a time, %s, %d node%s, %s wall clock each (then TERM, KILL after %s)",
		p.Short(), len(p.Runs), plural(len(p.Runs)), p.Experiment, p.Backend, p.Concurrency,
		gpus, p.Nodes, plural(p.Nodes), p.WallClock.Value(), p.Grace.Value())
}

// Rows are the plan's runs: seed, run directory, command.
func (p *Plan) Rows() [][]string {
	rows := make([][]string, len(p.Runs))
	for i, r := range p.Runs {
		rows[i] = []string{strconv.Itoa(r.Seed), r.RunDir, r.Command}
	}
	return rows
}

// Text says what became of a launched run, in one line.
func (l Launched) Text() string {
	switch l.State {
	case "started":
		return fmt.Sprintf("started %s (seed %d, pid %d), log %s", l.ID, l.Seed, l.PID, l.Log)
	case "submitted":
		return fmt.Sprintf("submitted %s (seed %d, Slurm job %s), log %s", l.ID, l.Seed, l.JobID, l.Log)
	}
	return fmt.Sprintf("queued %s (seed %d): starts when a slot frees", l.ID, l.Seed)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
