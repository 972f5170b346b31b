// Package budget accounts for what runs have spent: run count and
// GPU-hours, read from .rlxp/runs/*/run.json.
package budget

import (
	"fmt"
	"time"

	"github.com/rlxp/rlxp/internal/runs"
)

// Spend is what past and running runs have used.
type Spend struct {
	Runs         int            `json:"runs"`
	GPUHours     float64        `json:"gpu_hours"`
	ByExperiment map[string]int `json:"by_experiment,omitempty"`
}

// Sum adds up runs. A run still in flight is charged its wall-clock
// allowance, the most it can use: its own when its record names one,
// else maxWallClock.
func Sum(recs []runs.Record, maxWallClock time.Duration) (Spend, error) {
	s := Spend{ByExperiment: map[string]int{}}
	for _, r := range recs {
		allowance := maxWallClock
		if d, err := time.ParseDuration(r.WallClock); err == nil && r.WallClock != "" {
			allowance = d
		}
		hours, err := r.Hours(allowance)
		if err != nil {
			return s, fmt.Errorf("run %s: %w", r.ID, err)
		}
		s.Runs++
		s.GPUHours += float64(r.GPUs) * hours
		s.ByExperiment[r.Experiment]++
	}
	return s, nil
}
