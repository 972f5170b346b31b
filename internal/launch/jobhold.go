package launch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/state"
)

// A JobHold holds a Slurm run to its approval from inside its job, on the
// compute node: before the command runs (End false) it recomputes the pin,
// and a change keeps the command from starting (the record says
// stopped_by unapproved); after the command (End) it recomputes it again.
// The record's held names the approval the launch recorded, when each
// check ran and what it found.
type JobHold struct {
	Root, RunsDir, ID string
	End               bool
	// Written is what the start's check returned: the digest of the record
	// it wrote, kept by the batch script's shell, out of the run's reach.
	// At the end a record that no longer matches it was rewritten while
	// the job ran (Record.Rewritten).
	Written string
	Hold    Hold
	// Lock guards the record's rewrite against the launch still writing it.
	Lock func() (*state.Lock, error)
	Now  func() time.Time
}

// Run checks the run and records what it found. line is the run's log
// line when the pin changed or the record was rewritten; written is the
// digest of the record as written now.
func (j JobHold) Run(ctx context.Context) (line, written string, err error) {
	path := runs.Path(j.RunsDir, j.ID)
	rec, err := runs.Read(path)
	if err != nil {
		return "", "", err
	}
	if rec.Held == nil || rec.Held.Approval == "" {
		return "", "", fmt.Errorf("%s: run %s records no approval to hold it to", path, j.ID)
	}
	var changes []string
	h, err := j.Hold(&Plan{Root: j.Root, Experiment: rec.Experiment, Approved: rec.Held.Approval})
	if err != nil {
		changes = []string{err.Error()}
	} else {
		changes = h.Changes(ctx)
	}
	at := j.Now().UTC().Format(time.RFC3339)
	l, err := j.Lock()
	if err != nil {
		return "", "", err
	}
	defer l.Unlock()
	data, err := os.ReadFile(path)
	if err != nil {
		return "", "", fmt.Errorf("read %s: %w", path, err)
	}
	if rec, err = runs.Read(path); err != nil {
		return "", "", err
	}
	var lines []string
	if j.End && digest(data) != j.Written {
		rec.Rewritten = at
		lines = append(lines, fmt.Sprintf("[rlxp] %s was rewritten by another process while the job ran", path))
	}
	if rec.Held == nil {
		rec.Held = &runs.Held{} // removed by a rewrite, found above
	}
	if j.End {
		rec.Held.End = at
		rec.Held.Changes = append(rec.Held.Changes, changes...)
		if len(changes) > 0 {
			// As the local supervisor words it in the run's log.
			lines = append(lines, "[rlxp] changed since approval when the run ended: "+strings.Join(changes, "; "))
		}
	} else {
		rec.Held.Start, rec.Held.Changes = at, changes
		if len(changes) > 0 {
			rec.StoppedBy = runs.StoppedUnapproved
			lines = append(lines, fmt.Sprintf("[rlxp] run %s %v", j.ID, &UnapprovedError{changes}))
		}
	}
	out, err := runs.Encode(rec)
	if err != nil {
		return "", "", err
	}
	if err := state.WriteFile(path, out, 0o644); err != nil {
		return "", "", err
	}
	return strings.Join(lines, "\n"), digest(out), nil
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
