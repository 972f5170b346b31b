package experiment

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/ledger"
)

func TestShownAfterScoring(t *testing.T) {
	entry := func(seq int64, id, verdict string, partial bool) ledger.Entry {
		f := map[string]any{"experiment": id, "verdict": verdict}
		if partial {
			f["partial"] = true
		}
		return ledger.Entry{Seq: seq, Fields: f}
	}
	entries := []ledger.Entry{
		entry(1, "baseline", "baseline", false),
		entry(2, "lr-up", "invalid", false),
		entry(3, "lr-up", "improved", false),
		entry(4, "lr-up", "invalid", false), // a later invalid score leaves the valid one
		entry(5, "cut", "invalid", false),
		entry(6, "cut", "invalid", false),
		entry(7, "half", "no_change", true),
		entry(8, "half", "invalid", false),
	}
	set := &Set{Experiments: []*Experiment{
		{ID: "baseline", Status: Approved},
		{ID: "lr-up", Status: Approved},
		{ID: "cut", Status: Approved},
		{ID: "half", Status: Approved},
		{ID: "new", Status: Proposed},
		{ID: "no", Status: Rejected},
	}}
	set.Experiments[5].ID = "cut2"
	set.UseLedger(append(entries, entry(9, "cut2", "improved", false)))
	got := map[string]string{}
	stored := map[string]string{}
	for _, e := range set.Experiments {
		got[e.ID], stored[e.ID] = e.Shown(), e.Status
	}
	want := map[string]string{
		"baseline": Scored, "lr-up": Scored, "cut": ScoredInvalid, "half": ScoredPartial,
		"new": Proposed, "cut2": Rejected,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Shown (-want +got):\n%s", d)
	}
	// Scoring rewrites nothing: the stored status, which the gate reads, stays.
	if d := cmp.Diff(map[string]string{"baseline": Approved, "lr-up": Approved, "cut": Approved, "half": Approved, "new": Proposed, "cut2": Rejected}, stored); d != "" {
		t.Errorf("stored status changed (-want +got):\n%s", d)
	}
	lr, _ := set.Get("lr-up")
	if d := cmp.Diff(&Scoring{Entries: 3, Valid: 1, Partial: 0, Latest: 4, Verdict: "invalid"}, lr.Scoring); d != "" {
		t.Errorf("Scoring (-want +got):\n%s", d)
	}
	if v := lr.View(); v.Status != Scored {
		t.Errorf("View status %q", v.Status)
	}
	if !strings.Contains(lr.Text(), "status      scored (approval unapproved)\nscored      3 ledger entries (1 valid, 0 of them partial); latest #4: invalid\n") {
		t.Errorf("Text:\n%s", lr.Text())
	}
}
