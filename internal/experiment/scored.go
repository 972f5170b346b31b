package experiment

import (
	"github.com/rlxp/rlxp/internal/ledger"
)

// What an experiment shows once the ledger holds a score of it. A score
// writes neither experiments.yaml nor the approvals log: the stored status
// stays "approved" (the gate still lets it launch again) and the approval
// record is untouched; what it shows comes from the ledger.
const (
	Scored        = "scored"         // a valid score of complete runs
	ScoredPartial = "scored-partial" // valid scores, each of runs that had not finished (--partial)
	ScoredInvalid = "scored-invalid" // scored, every score invalid
)

// A Scoring is what the ledger says of one experiment.
type Scoring struct {
	Entries int   `json:"entries"` // entries scoring it
	Valid   int   `json:"valid"`   // of them, those whose verdict is not invalid
	Partial int   `json:"partial"` // of the valid, those scored with --partial
	Latest  int64 `json:"latest_seq"`
	// Verdict is the latest entry's.
	Verdict string `json:"latest_verdict"`
}

// UseLedger gives each experiment what entries say of it; entries are
// those whose chain verifies, in order.
func (s *Set) UseLedger(entries []ledger.Entry) {
	byID := map[string]*Scoring{}
	for _, en := range entries {
		id := en.String("experiment")
		if id == "" {
			continue
		}
		sc := byID[id]
		if sc == nil {
			sc = &Scoring{}
			byID[id] = sc
		}
		sc.Entries++
		sc.Latest, sc.Verdict = en.Seq, en.String("verdict")
		if sc.Verdict == "invalid" {
			continue
		}
		sc.Valid++
		if p, _ := en.Fields["partial"].(bool); p {
			sc.Partial++
		}
	}
	for _, e := range s.Experiments {
		e.Scoring = byID[e.ID]
	}
}

// Shown is the status an experiment shows: its stored status, or, once
// scored (and not rejected), how: scored, scored-partial or
// scored-invalid.
func (e *Experiment) Shown() string {
	sc := e.Scoring
	switch {
	case sc == nil || sc.Entries == 0 || e.Status == Rejected:
		return e.Status
	case sc.Valid > sc.Partial:
		return Scored
	case sc.Valid > 0:
		return ScoredPartial
	}
	return ScoredInvalid
}
