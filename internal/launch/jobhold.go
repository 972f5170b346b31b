package launch

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/state"
)

// HoldJob holds a Slurm run to its approval from inside its job, on the
// compute node: at the start (end false) it recomputes the pin before the
// trainer runs, and a change keeps the trainer from starting (the record
// says stopped_by unapproved); at the end it
// recomputes it again. The record's held names the approval the launch
// recorded, when each check ran and what it found. A change found is
// line, the run's log line; lock guards the record's rewrite against the
// launch still writing it.
func HoldJob(ctx context.Context, root, runsDir, id string, end bool, hold Hold, lock func() (*state.Lock, error), now func() time.Time) (line string, err error) {
	path := runs.Path(runsDir, id)
	rec, err := runs.Read(path)
	if err != nil {
		return "", err
	}
	if rec.Held == nil || rec.Held.Approval == "" {
		return "", fmt.Errorf("%s: run %s records no approval to hold it to", path, id)
	}
	var changes []string
	h, err := hold(&Plan{Root: root, Experiment: rec.Experiment, Approved: rec.Held.Approval})
	if err != nil {
		changes = []string{err.Error()}
	} else {
		changes = h.Changes(ctx)
	}
	at := now().UTC().Format(time.RFC3339)
	l, err := lock()
	if err != nil {
		return "", err
	}
	defer l.Unlock()
	if rec, err = runs.Read(path); err != nil {
		return "", err
	}
	if rec.Held == nil {
		return "", fmt.Errorf("%s: run %s's held was removed while its job ran", path, id)
	}
	if end {
		rec.Held.End = at
		rec.Held.Changes = append(rec.Held.Changes, changes...)
	} else {
		rec.Held.Start, rec.Held.Changes = at, changes
		if len(changes) > 0 {
			rec.StoppedBy = runs.StoppedUnapproved
		}
	}
	if err := runs.Write(runsDir, rec); err != nil {
		return "", err
	}
	switch {
	case len(changes) == 0:
		return "", nil
	case end:
		// As the local supervisor words it in the run's log.
		return "[rlxp] changed since approval when the run ended: " + strings.Join(changes, "; "), nil
	}
	return fmt.Sprintf("[rlxp] run %s %v", id, &UnapprovedError{changes}), nil
}
