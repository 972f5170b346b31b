package diagnose

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/runs"
)

// countingProc counts what the process table is asked.
type countingProc struct {
	fakeProc
	reads *int
}

func (c countingProc) ReadFile(p string) ([]byte, error) {
	*c.reads++
	return c.fakeProc.ReadFile(p)
}

func TestLivesJudgeEachRunOnce(t *testing.T) {
	reads := 0
	h := countingProc{fakeProc{}.proc(10, "python3", "R", 500), &reads}
	live := runs.Record{ID: "r1", Backend: runs.Local, PID: 10, StartTicks: 500, StartedAt: "2026-11-29T10:00:00Z"}
	gone := runs.Record{ID: "r2", Backend: runs.Local, PID: 11, StartedAt: "2026-11-29T10:00:00Z"}
	lives := NewLives(h, nil)
	ctx := context.Background()

	first := lives.Of(ctx, live)
	if first.State != Running {
		t.Fatalf("r1: %+v", first)
	}
	after := reads
	if d := cmp.Diff(first, lives.Of(ctx, live)); d != "" || reads != after {
		t.Errorf("r1 judged again (%d reads, then %d):\n%s", after, reads, d)
	}
	if lives.Of(ctx, gone).State != Lost || reads == after {
		t.Errorf("r2 was not judged on its own")
	}
	// A sweep records the lost run's end: its record says so from now on.
	gone.EndedAt, gone.StoppedBy = "2026-11-29T11:00:00Z", runs.StoppedWatchdog
	before := reads
	if got := lives.Of(ctx, gone); got.State != Stopped || reads != before {
		t.Errorf("an ended run: %+v after %d reads", got, reads-before)
	}
	if d := cmp.Diff(Check(ctx, h, nil, live), first); d != "" {
		t.Errorf("Of differs from Check (-check +of):\n%s", d)
	}
}
