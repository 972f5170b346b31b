package launch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDecide: a digest that is not the plan's is refused, no confirmation
// without a prompt is refused, and without --confirm a prompt asks.
func TestDecide(t *testing.T) {
	p := &Plan{Experiment: "fast", Backend: "local", GPUsPerRun: 1, Nodes: 1, Concurrency: 1, GPUs: []string{"0"},
		WallClock: "10m", Grace: "30s", Runs: []Run{{Seed: 0, RunDir: "runs/fast/seed0", Command: "python train.py --seed 0"}}}
	d := p.Short()
	type answer struct {
		Refusal string
		Ask     bool
	}
	for _, tc := range []struct {
		confirm   string
		canPrompt bool
		want      answer
	}{
		{d, false, answer{}},
		{d, true, answer{}},
		{"", true, answer{Ask: true}},
		{"", false, answer{Refusal: "not confirmed: a human reviews the plan above and confirms it, at a terminal or with --confirm " + d}},
		{"0123456789ab", true, answer{Refusal: "--confirm 0123456789ab does not match this plan (" + d + "): it changed since it was shown; review it and confirm again"}},
	} {
		r, ask := p.Decide(tc.confirm, tc.canPrompt)
		if diff := cmp.Diff(tc.want, answer{r, ask}); diff != "" {
			t.Errorf("Decide(%q, %v) (-want +got):\n%s", tc.confirm, tc.canPrompt, diff)
		}
	}
	if !p.Accepts("yes") || !p.Accepts(d) || p.Accepts("y") {
		t.Error("Accepts: yes and the digest confirm, nothing else")
	}
	if want := "plan " + d + ": 1 run of fast on local, 1 at a time, 1 GPU per node from 0, 1 node, 10m0s wall clock each (then TERM, KILL after 30s)"; p.Summary() != want {
		t.Errorf("Summary = %q, want %q", p.Summary(), want)
	}
	if diff := cmp.Diff([][]string{{"0", "runs/fast/seed0", "python train.py --seed 0"}}, p.Rows()); diff != "" {
		t.Errorf("Rows (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		l    Launched
		want string
	}{
		{Launched{ID: "r0", Seed: 0, State: "started", PID: 42, Log: "l"}, "started r0 (seed 0, pid 42), log l"},
		{Launched{ID: "r1", Seed: 1, State: "submitted", JobID: "7", Log: "l"}, "submitted r1 (seed 1, Slurm job 7), log l"},
		{Launched{ID: "r2", Seed: 2, State: "queued"}, "queued r2 (seed 2): starts when a slot frees"},
	} {
		if got := tc.l.Text(); got != tc.want {
			t.Errorf("Text = %q, want %q", got, tc.want)
		}
	}
}
