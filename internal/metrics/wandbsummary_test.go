package metrics

import (
	"math"
	"path/filepath"
	"testing"
)

func nan() float64 { return math.NaN() }

func TestWandbSummaryOnline(t *testing.T) {
	p := filepath.Join(txtSamples(t), "wandb", "ConceptPPO", "run-20230723_093735-mxaehod4", "files", "wandb-summary.json")
	rec, info, err := txtRead(t, p, WandbSummary)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{
		"global_step": 25001984, "Loss/pi": -0.006544823758304119, "Loss/v": 0.551832914352417, "Loss/entropy": 1.9487707614898682,
		"Rewards/max_episodes": 82, "Rewards/mean_episodes": 48.70000076293945, "Rewards/min_episodes": 9,
		"Len/max_episodes": 565, "Len/mean_episodes": 444.45001220703125, "Len/min_episodes": 120,
	}
	if len(rec.pts) != len(want) {
		t.Fatalf("%d points: %v", len(rec.pts), rec.pts)
	}
	for _, p := range rec.pts {
		if w, ok := want[p.Tag]; !ok || p.Value != w || p.Step != 762 || p.WallTime != 1690083520.476636 {
			t.Errorf("unexpected point %v", p)
		}
	}
	txtHasNote(t, info, "_step, 762")
}

func TestWandbSummaryOffline(t *testing.T) {
	p := filepath.Join(txtSamples(t), "wandb", "robust-cartpole-offline-run-20231129_215620-ohlnfnqx", "files", "wandb-summary.json")
	rec, info, err := txtRead(t, p, WandbSummary)
	if err != nil || len(rec.pts) != 0 {
		t.Fatalf("%v %v", err, rec.pts)
	}
	txtHasNote(t, info, "no metrics, only W&B's own keys; an offline run keeps its metrics in the run-<id>.wandb log")
}

func TestWandbSummaryFixture(t *testing.T) {
	p := txtWrite(t, "wandb-summary.json", `{"Eval/3/episodic_return": 12.5, "charts": {"sps": 900, "lr": NaN}, "table": {"_type": "table-file", "ncols": 3},
	 "name": "x", "flag": true, "_runtime": 10, "_step": 41, "_timestamp": 1700000000}`)
	rec, info, err := txtRead(t, p, WandbSummary)
	if err != nil {
		t.Fatal(err)
	}
	want := []txtPoint{{"Eval/3/episodic_return", Point{41, 1700000000, 12.5}}, {"charts/sps", Point{41, 1700000000, 900}}, {"charts/lr", Point{41, 1700000000, nan()}}}
	if len(rec.pts) != len(want) {
		t.Fatalf("got %v", rec.pts)
	}
	for i, w := range want {
		if g := rec.pts[i]; g.Tag != w.Tag || g.Step != w.Step || g.WallTime != w.WallTime || !txtSame(g.Value, w.Value) {
			t.Fatalf("point %d: got %v, want %v", i, g, w)
		}
	}
	txtHasNote(t, info, `Skipped 1 W&B media or table object (first "table")`)
	txtHasNote(t, info, `Skipped 1 non-numeric value (first "name")`)

	_, _, err = txtRead(t, txtWrite(t, "wandb-summary.json", "{\"a\": 1,\n \"b\": }"), WandbSummary)
	txtWantErr(t, err, 2, 7, "invalid character '}'")
	_, _, err = txtRead(t, txtWrite(t, "wandb-summary.json", "[1]"), WandbSummary)
	txtWantErr(t, err, 1, 1, "expected the summary object")
	_, _, err = txtRead(t, txtWrite(t, "wandb-summary.json", "{} {}"), WandbSummary)
	txtWantErr(t, err, 1, 4, "unexpected data after the summary object")
	_, _, err = txtRead(t, txtWrite(t, "wandb-summary.json", `{"_step": 3, "a": 1, "a": 2}`), WandbSummary)
	txtWantErr(t, err, 0, 0, `the key "a" has two values`)
}
