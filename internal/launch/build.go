package launch

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/runs"
)

// A Source is what a run's commands are filled from: the repo's adapter
// and one approved experiment, with the template of its run directories.
type Source struct {
	Adapter *adapter.Adapter
	// AdapterFile names adapter.yaml in errors.
	AdapterFile string
	Experiment  *experiment.Experiment
	// RunDir is a template with {experiment} and {seed}.
	RunDir string
}

// A RunDirError is a run-directory template that cannot be filled: the
// caller's input, not the repo's.
type RunDirError struct{ Err error }

func (e *RunDirError) Error() string { return e.Err.Error() }
func (e *RunDirError) Unwrap() error { return e.Err }

// Command fills adapter.yaml's command name for one seed, and says the run
// directory it was given.
func (s Source) Command(name string, seed int) (runDir, cmd string, err error) {
	tmpl := s.Adapter.Commands[name]
	if tmpl == "" {
		return "", "", fmt.Errorf("%s declares no commands.%s", s.AdapterFile, name)
	}
	runDir, err = adapter.Expand(s.RunDir, map[string]string{"experiment": s.Experiment.ID, "seed": strconv.Itoa(seed)})
	if err != nil {
		return "", "", &RunDirError{err}
	}
	params, err := Params(s.Adapter, s.Experiment)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", s.AdapterFile, err)
	}
	cmd, err = adapter.Expand(tmpl, map[string]string{
		"config": adapter.ShellQuote(s.Adapter.Config.Default), "seed": strconv.Itoa(seed),
		"run_dir": adapter.ShellQuote(runDir), "params": params, "experiment": s.Experiment.ID,
	})
	if err != nil {
		return "", "", fmt.Errorf("%s commands.%s: %w", s.AdapterFile, name, err)
	}
	return runDir, strings.TrimSpace(cmd), nil
}

// Commands are the train commands of seeds, as they would run.
func (s Source) Commands(seeds []int) ([]string, error) {
	var cmds []string
	for _, seed := range seeds {
		_, cmd, err := s.Command("train", seed)
		if err != nil {
			return nil, err
		}
		cmds = append(cmds, cmd)
	}
	return cmds, nil
}

// Params renders the experiment's parameters for the repo's command line,
// in the order they were written.
func Params(ad *adapter.Adapter, e *experiment.Experiment) (string, error) {
	var names []string
	values := map[string]string{}
	for _, it := range e.Params {
		n := fmt.Sprint(it.Key)
		names = append(names, n)
		values[n] = fmt.Sprint(it.Value)
	}
	return ad.Params(names, values)
}

// A Spec is what a plan is built from: the commands' source, the approved
// contract, and the machine as check found it.
type Spec struct {
	Source
	Root     string
	Contract *contract.Loaded
	// Seeds are the ones to launch.
	Seeds []int
	// Grace is the time between TERM and KILL asked for; nil is
	// DefaultGrace (or less, within the bound).
	Grace *time.Duration
	// FreeGPUs are the indices of the GPUs no process holds.
	FreeGPUs []string
	// Approved is Plan.Approved.
	Approved string
}

// DefaultGrace is a run's time between TERM and KILL unless asked.
const DefaultGrace = 30 * time.Second

// MaxGrace bounds the grace for a run of the given wall-clock allowance: a
// quarter of it (at least 5s) and never over 10 minutes, so that a run
// stopped at its allowance overstays it by little.
func MaxGrace(wall time.Duration) time.Duration {
	return min(max(wall/4, 5*time.Second), 10*time.Minute)
}

// A GraceError is a grace beyond its bound: the caller's input.
type GraceError struct{ Grace, Max, Wall time.Duration }

func (e *GraceError) Error() string {
	return fmt.Sprintf("--grace %s is over its bound %s for a wall-clock allowance of %s", e.Grace, e.Max, e.Wall)
}

// Build resolves what a launch would run.
func Build(s Spec) (*Plan, error) {
	ct := s.Contract.Contract
	e := s.Experiment
	wall := ct.Budget.MaxRunWallClock.Value()
	if e.WallClock != "" {
		wall = e.WallClock.Value()
	}
	grace := min(DefaultGrace, MaxGrace(wall))
	if s.Grace != nil {
		if *s.Grace > MaxGrace(wall) {
			return nil, &GraceError{*s.Grace, MaxGrace(wall), wall}
		}
		grace = *s.Grace
	}
	sections := map[string]any{}
	for _, name := range contract.Sections() {
		sections[name] = s.Contract.Section(name)
	}
	p := &Plan{
		Experiment: e.ID, ExperimentDigest: e.Digest(), ContractDigest: contract.Digest(sections), Approved: s.Approved,
		Backend: ct.Hardware.Launcher, Root: s.Root,
		WallClock: contract.Duration(wall.String()), Grace: contract.Duration(grace.String()),
		GPUsPerRun: ct.Hardware.GPUsPerRun, Nodes: ct.Hardware.Nodes,
		Concurrency: max(ct.Budget.MaxConcurrent, 1),
	}
	for _, seed := range s.Seeds {
		runDir, cmd, err := s.Command("train", seed)
		if err != nil {
			return nil, err
		}
		p.Runs = append(p.Runs, Run{Seed: seed, RunDir: runDir, Command: cmd})
	}
	if err := checkDevices(p, s.FreeGPUs, p.Backend == runs.Local); err != nil {
		return nil, err
	}
	if p.Backend == runs.Local && p.GPUsPerRun > 0 {
		// Each concurrent run gets GPUs of its own.
		p.GPUs = s.FreeGPUs
		p.Concurrency = min(p.Concurrency, len(p.GPUs)/p.GPUsPerRun)
	}
	if sl := ct.Hardware.Slurm; sl != nil && p.Backend == runs.Slurm {
		p.Slurm = &Slurm{Partition: sl.Partition, Account: sl.Account, QOS: sl.QOS}
	}
	if err := checkRunDirs(s.Root, s.RunDir, p.Runs); err != nil {
		return nil, err
	}
	return p, nil
}
