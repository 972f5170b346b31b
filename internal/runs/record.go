// Package runs owns run records: .rlxp/runs/<id>/run.json, written by launch
// and its supervisor (or by hand), read by budget, check, status and score.
package runs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/rlxp/rlxp/internal/state"
)

// Backends a record can name. A record written by hand names none.
const (
	Local = "local"
	Slurm = "slurm"
)

// StoppedBudget is Record.StoppedBy when the run outlived its wall-clock
// allowance and was stopped for it.
const StoppedBudget = "budget"

// StoppedWatchdog is Record.StoppedBy when the run lost its supervisor (or
// its shepherd) and was stopped for it: nobody was left to enforce its
// allowance.
const StoppedWatchdog = "watchdog"

// StoppedUnapproved is Record.StoppedBy when the run was not started
// because what it would run differed from its approval (Held.Changes).
const StoppedUnapproved = "unapproved"

// A Record is one run.json.
type Record struct {
	ID         string `json:"id"`
	Experiment string `json:"experiment"`
	Seed       *int   `json:"seed,omitempty"`
	RunDir     string `json:"run_dir,omitempty"` // where the run writes, relative to the repository
	GPUs       int    `json:"gpus"`
	Backend    string `json:"backend,omitempty"`
	Command    string `json:"command,omitempty"`
	Plan       string `json:"plan,omitempty"` // digest of the launch plan the user confirmed
	// Confirmed is how the plan was confirmed: terminal, confirm,
	// host-ask, agent or confirm-unverified (runs.ConfirmationText).
	Confirmed string `json:"confirmed,omitempty"`
	Host      string `json:"host,omitempty"`
	Log       string `json:"log,omitempty"` // relative to the repository
	// WallClock is the allowance the run is stopped at, e.g. "2h0m0s".
	WallClock string `json:"wall_clock,omitempty"`
	// Supervisor is the local supervisor's pid; PID the run's process group
	// leader. StartTicks is the leader's start time in clock ticks since
	// boot, so a recycled pid is not mistaken for the run.
	Supervisor int    `json:"supervisor_pid,omitempty"`
	PID        int    `json:"pid,omitempty"`
	StartTicks uint64 `json:"start_ticks,omitempty"`
	// SupervisorTicks is the supervisor's start time, for the same reason.
	SupervisorTicks uint64 `json:"supervisor_start_ticks,omitempty"`
	JobID           string `json:"job_id,omitempty"`
	StartedAt       string `json:"started_at"`
	EndedAt         string `json:"ended_at,omitempty"`
	Exit            *int   `json:"exit,omitempty"`
	Signal          string `json:"signal,omitempty"`
	StoppedBy       string `json:"stopped_by,omitempty"`
	Note            string `json:"note,omitempty"`
	// Held is the run held to the approval its launch confirmed.
	Held *Held `json:"held,omitempty"`
	// Rewritten is when the supervisor found this record rewritten by
	// another process while it supervised the run (and restored it).
	Rewritten string `json:"rewritten,omitempty"`
}

// Held is what the local supervisor found when it recomputed the run's
// pin (what the experiment's approval pins: commands, adapter, files the
// run reads, environment, code) before the run started and after its last
// process ended. Any change means the run may have used what no human
// approved: a score of it is invalid.
type Held struct {
	// Approval is the digest of the approval held to (Plan.Approved).
	Approval string `json:"approval"`
	// Start and End are when the pin was recomputed (RFC 3339); End is
	// empty until the run has ended and been checked.
	Start string `json:"start,omitempty"`
	End   string `json:"end,omitempty"`
	// Changes name each difference from the approval, as the gate names
	// them, and each pinned file the supervisor's watch saw written,
	// created, deleted or renamed while the run ran.
	Changes []string `json:"changes,omitempty"`
	// Watch says what the watch covered ("5000 pinned files in 250
	// directories"), or why there was none ("not watched: …"): then an
	// edit made and undone while the run ran is not seen.
	Watch string `json:"watch,omitempty"`
}

// Ended says whether the run has an end time recorded.
func (r Record) Ended() bool { return r.EndedAt != "" }

// Hours is the wall-clock time the run has used. A run with no end recorded
// is charged allowance, the most it can use.
func (r Record) Hours(allowance time.Duration) (float64, error) {
	start, err := time.Parse(time.RFC3339, r.StartedAt)
	if err != nil {
		return 0, fmt.Errorf("started_at: %w", err)
	}
	if r.EndedAt == "" {
		return allowance.Hours(), nil
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

// Path is where the record with id lives under runsDir.
func Path(runsDir, id string) string { return filepath.Join(runsDir, id, "run.json") }

// Read reads one record.
func Read(path string) (Record, error) {
	var r Record
	data, err := os.ReadFile(path)
	if err != nil {
		return r, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, fmt.Errorf("%s%s: %w", path, jsonPosition(data, err), err)
	}
	return r, nil
}

// jsonPosition is ":line:col" of a decoding error that has an offset.
func jsonPosition(data []byte, err error) string {
	var off int64
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	default:
		return ""
	}
	// The offset is just past the byte that failed: that byte's column.
	before := data[:min(max(off, 0), int64(len(data)))]
	line := bytes.Count(before, []byte("\n")) + 1
	return fmt.Sprintf(":%d:%d", line, max(len(before)-bytes.LastIndexByte(before, '\n')-1, 1))
}

// Encode is r as Write writes it.
func Encode(r Record) ([]byte, error) {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode run %s: %w", r.ID, err)
	}
	return append(data, '\n'), nil
}

// Write writes r atomically to its place under runsDir.
func Write(runsDir string, r Record) error {
	data, err := Encode(r)
	if err != nil {
		return err
	}
	path := Path(runsDir, r.ID)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	return state.WriteFile(path, data, 0o644)
}

// List returns every record under runsDir, ordered by directory name.
func List(runsDir string) ([]Record, error) {
	ents, err := os.ReadDir(runsDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", runsDir, err)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	var runs []Record
	for _, ent := range ents {
		if !ent.IsDir() {
			continue
		}
		r, err := Read(Path(runsDir, ent.Name()))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}
