package scoring

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/runs"
)

// TestHeld: a run whose pin changed makes the score invalid, naming what
// changed and when it was found; a launched run never checked at its end
// is a note; a seed no launch produced is neither.
func TestHeld(t *testing.T) {
	changed := []string{"lib.sh: edited since approval"}
	seeds := []SeedRun{
		{Seed: 0, Run: "r0", backend: runs.Local, held: &runs.Held{Start: "t0", End: "t1"}},
		{Seed: 1, Run: "r1", backend: runs.Local, held: &runs.Held{Start: "t0", End: "t1", Changes: changed}},
		{Seed: 2, Run: "r2", backend: runs.Local, held: &runs.Held{Start: "t0", Changes: changed}},
		{Seed: 3, Run: "r3", backend: runs.Slurm},
		{Seed: 4, Run: "r4", backend: runs.Local, held: &runs.Held{Start: "t0"}},
		{Seed: 5, Run: "", Ended: NotLaunched},
		{Seed: 6, Run: "r6"}, // a record written by hand
		{Seed: 7, Run: "r7", backend: runs.Local, held: &runs.Held{Start: "t0", End: "t1"}, rewritten: "t2"},
	}
	problems, notes := held(seeds)
	if diff := cmp.Diff([]string{
		"seed 1: run r1 ran what no human approved: lib.sh: edited since approval when it ended",
		"seed 2: run r2 ran what no human approved: lib.sh: edited since approval before it started",
		"seed 7: run r7's record was rewritten by another process while it ran (found at t2): what it says of the run is not evidence",
	}, problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{
		"seed 3: run r3 was not checked against its approval when it ended (its Slurm job ended before the check at its end: a time limit, a cancel, or a job submitted by an older rlxp): an edit while it ran is not seen",
		"seed 4: run r4 was not checked against its approval when it ended (no supervisor recorded the check): an edit while it ran is not seen",
	}, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}
