// Package runstatus judges how recorded runs are doing: which runs to
// report, whether each is alive, how far it got, and which failure
// signatures its log and declared metric sources give evidence of. It reads
// files and returns values; the CLI and the dashboard render them.
package runstatus

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/schema/validate"
	"github.com/rlxp/rlxp/internal/state"
)

// Schema names the report's JSON form.
const Schema = "rlxp.status/v1"

// NoSignature is the diagnosis of a run no signature matched.
const NoSignature = "no known signature matched"

// DefaultStale is the log age at which a live run counts as stalled.
const DefaultStale = 30 * time.Minute

// tailLines is how much of a failed run's log the report quotes.
const tailLines = 5

// Report is the status of the runs chosen.
type Report struct {
	Schema string `json:"schema"`
	Note   string `json:"note,omitempty"`
	Runs   []Run  `json:"runs"`
}

// Run is one run's status.
type Run struct {
	ID            string             `json:"id"`
	Experiment    string             `json:"experiment"`
	Seed          *int               `json:"seed"`
	Backend       string             `json:"backend"`
	Confirmed     string             `json:"confirmed,omitempty"` // how the launch was confirmed
	State         diagnose.State     `json:"state"`
	StateDetail   string             `json:"state_detail,omitempty"`
	Liveness      []string           `json:"liveness"`
	SupervisorPID int                `json:"supervisor_pid,omitempty"`
	PID           int                `json:"pid,omitempty"`
	JobID         string             `json:"job_id,omitempty"`
	StartedAt     string             `json:"started_at"`
	EndedAt       string             `json:"ended_at,omitempty"`
	ElapsedS      int64              `json:"elapsed_s"`
	WallClock     string             `json:"wall_clock,omitempty"`
	WallClockLeft *int64             `json:"wall_clock_left_s,omitempty"`
	Exit          *int               `json:"exit,omitempty"`
	Signal        string             `json:"signal,omitempty"`
	StoppedBy     string             `json:"stopped_by,omitempty"`
	Progress      *diagnose.Progress `json:"progress"`
	Log           Log                `json:"log"`
	Sources       []Source           `json:"sources"`
	Diagnosis     string             `json:"diagnosis"`
	Signatures    []diagnose.Result  `json:"signatures"`
	Rules         []Rule             `json:"rules"`
	Negative      bool               `json:"negative"` // failed, lost, or a signature matched

	// What a text report shows besides the JSON fields.
	Live    diagnose.Liveness `json:"-"`
	Elapsed time.Duration     `json:"-"`
	LogAge  time.Duration     `json:"-"`
	// Warnings name files that could not be read; what they held up to
	// the fault still counts.
	Warnings []string `json:"-"`
}

// Log is a run's console log.
type Log struct {
	Path    string   `json:"path"`
	Missing bool     `json:"missing,omitempty"`
	AgeS    *int64   `json:"age_s,omitempty"`
	Stale   bool     `json:"stale"`
	Tail    []string `json:"tail,omitempty"`
}

// Source states.
const (
	SourceRead       = "read"
	SourceMissing    = "missing"
	SourceEarlier    = "earlier" // an earlier run's file
	SourceSkipped    = "skipped"
	SourceUnreadable = "unreadable"
)

// Source is one declared metric source of a run.
type Source struct {
	Name   string `json:"name"`
	Path   string `json:"path,omitempty"`
	Format string `json:"format,omitempty"`
	Points int64  `json:"points"`
	State  string `json:"state"`
	Detail string `json:"detail,omitempty"`
}

// Rule is one failure signature's outcome.
type Rule struct {
	ID      string           `json:"id"`
	Name    string           `json:"name"`
	Outcome diagnose.Outcome `json:"outcome"`
	Reason  string           `json:"reason,omitempty"`
}

// Load reads adapter.yaml and the run records, refusing a record whose
// times cannot be read with the file's name.
func Load(r *state.Repo) (*adapter.Adapter, []runs.Record, error) {
	recs, err := runs.List(r.Path(state.Runs))
	if err != nil {
		return nil, nil, err
	}
	ad, err := Check(r, recs)
	if err != nil {
		return nil, nil, err
	}
	return ad, recs, nil
}

// Check reads adapter.yaml and checks the run records recs, naming the
// file at fault.
func Check(r *state.Repo, recs []runs.Record) (*adapter.Adapter, error) {
	data, err := r.Read(state.Adapter)
	if err != nil {
		return nil, err
	}
	ad, err := adapter.Parse(validate.Schemas{}, r.Show(state.Adapter), data)
	if err != nil {
		return nil, err
	}
	for _, rec := range recs {
		if err := CheckRecord(rec); err != nil {
			return nil, fmt.Errorf("%s: %w", r.Display(filepath.Join(state.DirName, state.Runs, rec.ID, "run.json")), err)
		}
	}
	return ad, nil
}

// CheckRecord rejects a run.json whose times cannot be read.
func CheckRecord(rec runs.Record) error {
	if rec.StartedAt == "" {
		return errors.New("started_at is missing")
	}
	if _, err := time.Parse(time.RFC3339, rec.StartedAt); err != nil {
		return fmt.Errorf("started_at %q is not an RFC 3339 time", rec.StartedAt)
	}
	if rec.EndedAt != "" {
		if _, err := time.Parse(time.RFC3339, rec.EndedAt); err != nil {
			return fmt.Errorf("ended_at %q is not an RFC 3339 time", rec.EndedAt)
		}
	}
	if rec.WallClock != "" {
		if d, err := time.ParseDuration(rec.WallClock); err != nil || d <= 0 {
			return fmt.Errorf("wall_clock %q is not a positive duration", rec.WallClock)
		}
	}
	return nil
}

// Select picks the runs to report: the one named, the latest of each seed
// of the experiment named, or the runs in flight; with none in flight, the
// latest run, with a note saying so. runsDir names .rlxp/runs in messages.
func Select(runsDir string, recs []runs.Record, id string, liveness func(runs.Record) diagnose.Liveness) ([]runs.Record, string, error) {
	recs = append([]runs.Record(nil), recs...)
	sort.SliceStable(recs, func(i, j int) bool {
		a, _ := time.Parse(time.RFC3339, recs[i].StartedAt)
		b, _ := time.Parse(time.RFC3339, recs[j].StartedAt)
		return a.Before(b) || a.Equal(b) && recs[i].ID < recs[j].ID
	})
	if id != "" {
		for _, rec := range recs {
			if rec.ID == id {
				return []runs.Record{rec}, "", nil
			}
		}
		latest := map[int]runs.Record{}
		for _, rec := range recs {
			if rec.Experiment == id {
				latest[seedKey(rec)] = rec
			}
		}
		if len(latest) == 0 {
			return nil, "", fmt.Errorf("no run or experiment %q in %s", id, runsDir)
		}
		var out []runs.Record
		for _, rec := range latest {
			out = append(out, rec)
		}
		sort.Slice(out, func(i, j int) bool { return seedKey(out[i]) < seedKey(out[j]) })
		return out, "", nil
	}
	if len(recs) == 0 {
		return nil, "no runs recorded in " + runsDir, nil
	}
	var flying []runs.Record
	for _, rec := range recs {
		if rec.Ended() {
			continue
		}
		switch liveness(rec).State {
		case diagnose.Running, diagnose.Pending, diagnose.Unknown:
			flying = append(flying, rec)
		}
	}
	if len(flying) > 0 {
		return flying, "", nil
	}
	last := recs[len(recs)-1]
	return []runs.Record{last}, fmt.Sprintf("no run in flight; the latest run, %s, is shown", last.ID), nil
}

// seedKey orders runs by seed, a run without one first.
func seedKey(rec runs.Record) int {
	if rec.Seed == nil {
		return -1
	}
	return *rec.Seed
}

// judge evaluates the rules on what was read and fills in the verdict.
func judge(run *Run, rules []diagnose.Rule, in diagnose.Input) {
	for _, res := range diagnose.Evaluate(rules, in) {
		run.Rules = append(run.Rules, Rule{res.ID, res.Name, res.Outcome, res.Reason})
		if res.Outcome == diagnose.Matched {
			run.Signatures = append(run.Signatures, res)
		}
	}
	run.Diagnosis = NoSignature
	if n := len(run.Signatures); n > 0 {
		names := make([]string, n)
		for i, s := range run.Signatures {
			names[i] = s.Name
		}
		run.Diagnosis = strings.Join(names, ", ")
	}
	failed := run.Live.State == diagnose.Failed || run.Live.State == diagnose.Lost
	run.Negative = failed || len(run.Signatures) > 0
	// The log's last lines say why a run failed or where it hangs; a
	// healthy report does without them.
	if !failed && !matched(run.Signatures, "deadlock") {
		run.Log.Tail = nil
	}
}

func matched(rs []diagnose.Result, id string) bool {
	for _, r := range rs {
		if r.ID == id {
			return true
		}
	}
	return false
}
