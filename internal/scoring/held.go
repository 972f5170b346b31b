package scoring

import (
	"fmt"
	"strings"

	"github.com/rlxp/rlxp/internal/runs"
)

// held holds each seed's run to the approval it was launched under
// (runs.Held): a run whose pin changed before it started or while it ran
// may have used what no human approved, and makes the score invalid,
// naming what changed. A launched run whose pin was not recomputed at its
// end (a Slurm run, a record of an older rlxp) is a note: an edit while it
// ran would not have been seen. A record its supervisor found rewritten
// by another process is not evidence of how the run ended.
func held(seeds []SeedRun) (problems, notes []string) {
	for _, sr := range seeds {
		if sr.rewritten != "" {
			problems = append(problems, fmt.Sprintf("seed %d: run %s's record was rewritten by another process while it ran (found at %s): what it says of the run is not evidence", sr.Seed, sr.Run, sr.rewritten))
		}
		h := sr.held
		switch {
		case sr.Run == "" || sr.backend == "":
		case h != nil && len(h.Changes) > 0:
			when := "when it ended"
			if h.End == "" {
				when = "before it started"
			}
			problems = append(problems, fmt.Sprintf("seed %d: run %s ran what no human approved: %s %s", sr.Seed, sr.Run, strings.Join(h.Changes, "; "), when))
		case h == nil || h.End == "":
			notes = append(notes, fmt.Sprintf("seed %d: run %s was not checked against its approval when it ended (%s): an edit while it ran is not seen", sr.Seed, sr.Run, whyUnheld(sr.backend)))
		}
	}
	return problems, notes
}

func whyUnheld(backend string) string {
	if backend == runs.Slurm {
		return "its Slurm job ended before the check at its end: a time limit, a cancel, or a job submitted by an older rlxp"
	}
	return "no supervisor recorded the check"
}
