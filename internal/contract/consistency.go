package contract

import (
	"fmt"
	"strings"

	"github.com/rlxp/rlxp/internal/document"
)

// consistency finds what the schema cannot express: relations between
// fields and sections. It runs only on a schema-valid contract.
func (l *Loaded) consistency() []Finding {
	c := &l.Contract
	var fs []Finding
	add := func(sev string, field []string, format string, args ...any) {
		line, col := l.File.Pos(field)
		fs = append(fs, Finding{sev, &document.Error{Path: l.File.Path, Line: line, Col: col, Field: strings.Join(field, "."), Msg: fmt.Sprintf(format, args...)}})
	}

	train := map[int]bool{}
	for _, s := range c.Baseline.Seeds {
		train[s] = true
	}
	for i, s := range c.Evaluation.Seeds {
		if train[s] {
			add("error", []string{"evaluation", "seeds", fmt.Sprint(i)}, "seed %d is also a baseline training seed; held-out evaluation needs seeds of its own", s)
			break
		}
	}
	if r, ok := c.Evaluation.HeldOutRange(); ok {
		if h := c.Evaluation.HeldOutSeeds; h != nil && h.To != nil && *h.To < h.From {
			add("error", []string{"evaluation", "held_out_seeds", "to"}, "to %d is below from %d", *h.To, h.From)
		}
		for i, s := range c.Baseline.Seeds {
			if r.Contains(s) {
				add("error", []string{"baseline", "seeds", fmt.Sprint(i)}, "training seed %d is inside the held-out evaluation seeds %s", s, r)
				break
			}
		}
	}

	p := c.Metrics.Primary
	if !p.HeldOut {
		add("warning", []string{"metrics", "primary", "held_out"}, "the primary metric is not a held-out evaluation; a training metric can improve while the policy gets worse")
	} else if p.Source != c.Evaluation.Source {
		add("warning", []string{"metrics", "primary", "source"}, "held_out is true but the source %q is not the evaluation source %q", p.Source, c.Evaluation.Source)
	}

	for _, name := range c.Scope.ParamNames() {
		prm := c.Scope.Parameters[name]
		field := []string{"scope", "parameters", name}
		if prm.Min != nil && prm.Max != nil && *prm.Min > *prm.Max {
			add("error", field, "min %s is greater than max %s", fmtNum(*prm.Min), fmtNum(*prm.Max))
		}
		if (prm.Type == "bool" || prm.Type == "string") && (prm.Min != nil || prm.Max != nil) {
			add("error", field, "a %s parameter cannot have min or max", prm.Type)
		}
		if prm.Category != "" && c.Scope.CheckCategory(prm.Category) != nil {
			add("error", append(field, "category"), "category %s is not one of scope.categories [%s]", prm.Category, strings.Join(c.Scope.Categories, ", "))
		}
	}

	if c.Hardware.GPUsPerRun > 0 && c.Budget.GPUHours == 0 {
		add("error", []string{"budget", "gpu_hours"}, "0 GPU-hours but hardware.gpus_per_run is %d: no run fits", c.Hardware.GPUsPerRun)
	}
	if c.Budget.MaxConcurrent > c.Budget.MaxRuns {
		add("warning", []string{"budget", "max_concurrent"}, "%d exceeds max_runs %d", c.Budget.MaxConcurrent, c.Budget.MaxRuns)
	}
	if c.Hardware.Launcher != "slurm" && c.Hardware.Slurm != nil {
		add("warning", []string{"hardware", "slurm"}, "slurm settings are ignored with launcher %s", c.Hardware.Launcher)
	}
	return fs
}
