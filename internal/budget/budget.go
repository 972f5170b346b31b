// Package budget accounts for what runs have spent: run count and
// GPU-hours, read from .rlxp/runs/*/run.json.
package budget

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// A Run is the part of run.json that budget accounting needs.
type Run struct {
	ID         string `json:"id"`
	Experiment string `json:"experiment"`
	Seed       *int   `json:"seed,omitempty"`
	RunDir     string `json:"run_dir,omitempty"` // where the run writes, relative to the repository
	GPUs       int    `json:"gpus"`
	StartedAt  string `json:"started_at"`
	EndedAt    string `json:"ended_at,omitempty"`
}

// Spend is what past and running runs have used.
type Spend struct {
	Runs         int            `json:"runs"`
	GPUHours     float64        `json:"gpu_hours"`
	ByExperiment map[string]int `json:"by_experiment,omitempty"`
}

// Runs returns every run record under runsDir, ordered by directory name.
func Runs(runsDir string) ([]Run, error) {
	ents, err := os.ReadDir(runsDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", runsDir, err)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	var runs []Run
	for _, ent := range ents {
		if !ent.IsDir() {
			continue
		}
		path := filepath.Join(runsDir, ent.Name(), "run.json")
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		var r Run
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// Read sums run.json files under runsDir. A run still in flight is charged
// its full wall-clock allowance, the most it can use.
func Read(runsDir string, maxWallClock time.Duration) (Spend, error) {
	s := Spend{ByExperiment: map[string]int{}}
	runs, err := Runs(runsDir)
	if err != nil {
		return s, err
	}
	for _, r := range runs {
		hours, err := r.hours(maxWallClock)
		if err != nil {
			return s, fmt.Errorf("%s: %w", filepath.Join(runsDir, r.ID, "run.json"), err)
		}
		s.Runs++
		s.GPUHours += float64(r.GPUs) * hours
		s.ByExperiment[r.Experiment]++
	}
	return s, nil
}

func (r Run) hours(maxWallClock time.Duration) (float64, error) {
	start, err := time.Parse(time.RFC3339, r.StartedAt)
	if err != nil {
		return 0, fmt.Errorf("started_at: %w", err)
	}
	if r.EndedAt == "" {
		return maxWallClock.Hours(), nil
	}
	end, err := time.Parse(time.RFC3339, r.EndedAt)
	if err != nil {
		return 0, fmt.Errorf("ended_at: %w", err)
	}
	if end.Before(start) {
		return 0, fmt.Errorf("ended_at %s is before started_at %s", r.EndedAt, r.StartedAt)
	}
	return end.Sub(start).Hours(), nil
}
