package launch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/runs"
)

// Sweep finds the local runs of this host that lost both their supervisor
// and their shepherd (both killed, or the machine restarted) with no end
// recorded. Whatever still runs of one (a process carrying its
// RLXP_RUN_ID) is killed and the run ends now; when nothing runs, it ends
// at the later of its allowance and its log's last write, so it is charged
// at least what it could have used. A run that never started ends where it
// was queued. It updates recs in place and writes their records; errors of
// single records are returned joined, the rest is still swept. lives
// keeps what it found of each run for the checks that follow.
func Sweep(ctx context.Context, lives *diagnose.Lives, runsDir string, recs []runs.Record, now time.Time) error {
	host, _ := os.Hostname()
	var errs []error
	for i := range recs {
		rec := &recs[i]
		if rec.Ended() || rec.Backend != runs.Local || rec.Host != host || rec.Supervisor == 0 {
			continue
		}
		if l := lives.Of(ctx, *rec); l.State != diagnose.Lost {
			continue
		}
		start, err := time.Parse(time.RFC3339, rec.StartedAt)
		if err != nil {
			continue // status reports the malformed record
		}
		rec.StoppedBy = runs.StoppedWatchdog
		switch killed := killTagged(rec.ID); {
		case rec.PID == 0:
			rec.EndedAt = rec.StartedAt
			rec.Note = fmt.Sprintf("never started: its supervisor (pid %d) died", rec.Supervisor)
		case len(killed) > 0:
			rec.EndedAt = now.UTC().Format(time.RFC3339)
			rec.Note = fmt.Sprintf("found lost (its supervisor pid %d and its shepherd gone): sent KILL to the %d processes still running with its run id: %v", rec.Supervisor, len(killed), killed)
		default:
			end := start
			if d, err := time.ParseDuration(rec.WallClock); err == nil {
				end = start.Add(d)
			}
			root := filepath.Dir(filepath.Dir(runsDir)) // runsDir is <root>/.rlxp/runs
			if fi, err := os.Stat(filepath.Join(root, rec.Log)); err == nil && fi.ModTime().After(end) {
				end = fi.ModTime()
			}
			if end.After(now) {
				end = now
			}
			rec.EndedAt = end.UTC().Format(time.RFC3339)
			rec.Note = fmt.Sprintf("found lost (its supervisor pid %d and its shepherd gone, nothing of it running): charged to the later of its allowance and its log's last write", rec.Supervisor)
		}
		if err := runs.Write(runsDir, *rec); err != nil {
			errs = append(errs, err)
		}
	}
	return joinErrs(errs)
}

// killTagged kills every process of this user whose environment names the
// run, and says which it reached.
func killTagged(id string) []int {
	var killed []int
	for _, pid := range tagged(id) {
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed = append(killed, pid)
		}
	}
	return killed
}

func joinErrs(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("record lost runs: %w", errors.Join(errs...))
}
