// Package check answers "is it safe to run this experiment right now?":
// the gate, the repo's preflight (or rlxp's own) and the machine as it is,
// as rows that block, warn or pass, and the verdict they add up to.
package check

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/budget"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/gate"
	"github.com/rlxp/rlxp/internal/launch"
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/state"
)

// Schema names the JSON form of a Result.
const Schema = "rlxp.check/v1"

// A State is how one row weighs on the answer.
type State string

// The states of a row. Only Block flips the answer.
const (
	OK    State = "ok"
	Warn  State = "warn"
	Block State = "block"
	Skip  State = "skip"
)

// The layers of the table.
const (
	LayerGate      = "gate"
	LayerPreflight = "preflight"
	LayerLive      = "live"
)

// A Kind says which rule made a row, for the advice that follows it.
type Kind string

// The kinds the next steps know.
const (
	KindGate       Kind = "gate"
	KindPreflight  Kind = "preflight"
	KindInFlight   Kind = "in_flight"
	KindTrainer    Kind = "trainer_outside_rlxp"
	KindForeignGPU Kind = "foreign_gpu"
	KindOwnGPU     Kind = "own_gpu"
	KindGPUs       Kind = "gpus"
	KindNoGPU      Kind = "no_gpu"
	KindPort       Kind = "port"
	KindImport     Kind = "import"
)

// A Row is one line of the table. PID and Command name a process the row
// is about, so the advice can say which one to stop.
type Row struct {
	Layer   string `json:"layer"`
	State   State  `json:"state"`
	Detail  string `json:"detail"`
	Kind    Kind   `json:"kind,omitempty"`
	PID     int    `json:"pid,omitempty"`
	Command string `json:"command,omitempty"`
}

// A Result is the answer and what it rests on.
type Result struct {
	Schema     string   `json:"schema"`
	Experiment string   `json:"experiment"`
	Safe       bool     `json:"safe"`
	Blockers   int      `json:"blockers"`
	Warnings   int      `json:"warnings"`
	Rows       []Row    `json:"rows"`
	Preflight  string   `json:"preflight_command,omitempty"`
	Plan       []string `json:"plan"` // the train command of every seed, as it would run
	Next       []string `json:"next"`
}

func (r *Result) add(row Row) {
	r.Rows = append(r.Rows, row)
	switch row.State {
	case Block:
		r.Blockers++
	case Warn:
		r.Warnings++
	}
}

func (r *Result) addf(layer string, st State, format string, args ...any) {
	r.add(Row{Layer: layer, State: st, Detail: fmt.Sprintf(format, args...)})
}

// Input is the state check reads: loaded by the caller, so that check
// itself decides and never loads or prints.
type Input struct {
	Repo        *state.Repo
	Contract    *contract.Loaded
	Experiments *experiment.Set
	Experiment  *experiment.Experiment
	Adapter     *adapter.Adapter
	// Runs are every run record of the repo, as Slurm last said of them.
	Runs []runs.Record
	// Lives judged the runs when they were read (the sweep of lost runs);
	// nil: they are judged through Host.
	Lives *diagnose.Lives
	// Seeds are the seeds asked for (each one of the experiment's); empty:
	// those without a run that finished cleanly.
	Seeds []int
	// Seed is the one the preflight checks; negative: the first to launch.
	Seed int
	// RunDir is the run directories' template.
	RunDir string
	// Timeout bounds the repo's preflight.
	Timeout time.Duration
	Host    probe.Host
	// PlanChanges are every way what the experiment would run differs
	// from what its approval pinned (pin.Judge).
	PlanChanges []string
	// Changes are the repository's changes since the baseline's commit
	// (pin.Judge), held to the scope's file rules.
	Changes *gate.ChangeSet
}

// A Preflight is what a preflight found: its blockers, warnings and how
// many checks passed, and the command that ran.
type Preflight struct {
	Command  string
	Blockers []string
	Warnings []string
	Passed   int
	Duration time.Duration
}

// A Checked experiment: the answer, and what a launch needs from it.
type Checked struct {
	Result
	// FreeGPUs are the indices of the GPUs a run may use.
	FreeGPUs []string
	// Seeds are the ones a launch would start.
	Seeds []int
}

// Evaluate answers check. The error is for state that cannot be read, or
// a seed asked that the experiment does not run (a *SeedError); everything
// about the run itself is a row.
func Evaluate(ctx context.Context, in Input) (*Checked, error) {
	l, e := in.Contract, in.Experiment
	asked := in.Seeds
	if in.Seed >= 0 {
		asked = append(slices.Clone(asked), in.Seed)
	}
	if s, ok := unknownSeed(e, asked); ok {
		return nil, &SeedError{Seed: s, Experiment: e}
	}
	spend, err := budget.Sum(in.Runs, l.Contract.Budget.MaxRunWallClock.Value())
	if err != nil {
		return nil, err
	}
	c := &Checked{Result: Result{Schema: Schema, Experiment: e.ID}}
	res := &c.Result
	c.Seeds = Seeds(in.Runs, e, in.Seeds)
	if len(c.Seeds) == 0 {
		c.Seeds = e.Seeds
		res.addf(LayerGate, Warn, "every seed of %s has a run that finished with exit status 0; launching again reruns them", e.ID)
	}

	a := gate.Evaluate(gate.Input{Contract: l, Experiments: in.Experiments, Experiment: e, Spend: spend, Runs: len(c.Seeds),
		PlanChecked: true, PlanChanges: in.PlanChanges, Changes: in.Changes})
	for _, cond := range a.Conditions {
		if !cond.OK {
			res.add(Row{Layer: LayerGate, State: Block, Kind: KindGate, Detail: fmt.Sprintf("%s: %s", cond.Check, cond.Detail)})
		}
	}
	if a.Open {
		res.addf(LayerGate, OK, "contract approved and current; experiment approved, in scope and in budget")
	}

	seed := in.Seed
	if seed < 0 {
		seed = c.Seeds[0]
	}
	src := launch.Source{Adapter: in.Adapter, AdapterFile: in.Repo.Show(state.Adapter), Experiment: e, RunDir: in.RunDir}
	checkPreflight(ctx, in, src, seed, len(c.Seeds), res)
	c.FreeGPUs = checkLive(ctx, in, res)
	plan, err := src.Commands(c.Seeds)
	if err != nil {
		plan = []string{err.Error()}
	}
	res.Plan = plan
	res.Next = NextSteps(res.Rows, e.ID)
	res.Safe = res.Blockers == 0
	return c, nil
}

// Seeds are the seeds a launch starts: those asked for, or else the
// experiment's seeds without a run that finished cleanly, so a relaunch
// after a failure picks up where it left.
func Seeds(recs []runs.Record, e *experiment.Experiment, asked []int) []int {
	if len(asked) > 0 {
		return asked
	}
	done := map[int]bool{}
	for _, rec := range recs {
		if rec.Experiment == e.ID && rec.Seed != nil && rec.Exit != nil && *rec.Exit == 0 && rec.StoppedBy == "" {
			done[*rec.Seed] = true
		}
	}
	var seeds []int
	for _, s := range e.Seeds {
		if !done[s] {
			seeds = append(seeds, s)
		}
	}
	return seeds
}

// A SeedError is a seed asked of an experiment that does not run it.
type SeedError struct {
	Seed       int
	Experiment *experiment.Experiment
}

func (e *SeedError) Error() string {
	return fmt.Sprintf("--seed %d: experiment %s runs seeds %v", e.Seed, e.Experiment.ID, e.Experiment.Seeds)
}

// unknownSeed returns the first asked seed the experiment does not run,
// and whether there is one.
func unknownSeed(e *experiment.Experiment, asked []int) (int, bool) {
	for _, s := range asked {
		if !slices.Contains(e.Seeds, s) {
			return s, true
		}
	}
	return 0, false
}
