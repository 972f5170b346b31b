package budget

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rlxp/rlxp/internal/runs"
)

func TestSum(t *testing.T) {
	recs := []runs.Record{
		{ID: "a", Experiment: "x", GPUs: 2, StartedAt: "2026-11-29T10:00:00Z", EndedAt: "2026-11-29T10:30:00Z"},
		// In flight with its own allowance: charged all of it.
		{ID: "b", Experiment: "x", GPUs: 1, StartedAt: "2026-11-29T10:00:00Z", WallClock: "3h0m0s"},
		// In flight without one: charged the contract's maximum.
		{ID: "c", Experiment: "y", GPUs: 4, StartedAt: "2026-11-29T10:00:00Z"},
		{ID: "d", Experiment: "y", GPUs: 0, StartedAt: "2026-11-29T10:00:00Z", EndedAt: "2026-11-29T20:00:00Z"},
	}
	got, err := Sum(recs, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	want := Spend{Runs: 4, GPUHours: 2*0.5 + 1*3 + 4*1, ByExperiment: map[string]int{"x": 2, "y": 2}}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestSumErrors(t *testing.T) {
	for _, tc := range []struct {
		rec  runs.Record
		want string
	}{
		{runs.Record{ID: "a", StartedAt: "yesterday"}, "run a: started_at"},
		{runs.Record{ID: "b", StartedAt: "2026-11-29T10:00:00Z", EndedAt: "soon"}, "run b: ended_at"},
		{runs.Record{ID: "c", StartedAt: "2026-11-29T10:00:00Z", EndedAt: "2026-11-29T09:00:00Z"}, "run c: ended_at 2026-11-29T09:00:00Z is before started_at"},
	} {
		_, err := Sum([]runs.Record{tc.rec}, time.Hour)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Sum(%+v) = %v, want %q", tc.rec, err, tc.want)
		}
	}
}
