package metrics

import (
	"path/filepath"
	"testing"
)

func TestWandbCSVExportTwoRuns(t *testing.T) {
	p := filepath.Join(txtSamples(t), "wandb-export", "nRTD-wandb_export-HEAD12.csv")
	rec, info, err := txtRead(t, p, WandbCSV)
	if err != nil {
		t.Fatal(err)
	}
	const run1 = "Layer_2_CH_n_1_out_200_LC_learning_rate_0.01_2nd_epoch_900000_RTD2"
	const run2 = "Layer_2_CH_n_1_out_200_LC_learning_rate_0.01_2nd_epoch_900000"
	if len(rec.asked) != 2 {
		t.Fatalf("tags %v; want the two runs' train/loss only (no _step, __MIN, __MAX)", rec.asked)
	}
	a, b := rec.series(run1+" - train/loss"), rec.series(run2+" - train/loss")
	steps := func(s []Point) (out []int64) {
		for _, p := range s {
			out = append(out, p.Step)
		}
		return out
	}
	if got := steps(a); len(got) != 8 || got[0] != 49 || got[7] != 649 {
		t.Fatalf("%s: steps %v", run1, got)
	}
	if got := steps(b); len(got) != 6 || got[0] != 199 || got[3] != 449 || got[5] != 749 {
		t.Fatalf("%s: steps %v", run2, got)
	}
	for _, c := range []struct {
		s    []Point
		i    int
		want float64
	}{{a, 0, 0.0072547998279333115}, {a, 7, 0.00010990011651301757}, {b, 0, 0.00031488764216192067}, {b, 3, 0.000043842843297170475}, {b, 5, 0.000009959347153198905}} {
		if c.s[c.i].Value != c.want {
			t.Errorf("value %v, want %v", c.s[c.i].Value, c.want)
		}
	}
	txtHasNote(t, info, `Steps come from the x-axis column "epoch"`)
	txtHasNote(t, info, "the export holds 2 runs")
	txtHasNote(t, info, "Skipped 8 __MIN/__MAX columns")
	txtHasNote(t, info, "Skipped 2 columns of W&B's own keys")
}

func TestWandbCSVOneRun(t *testing.T) {
	p := txtWrite(t, "wandb_export.csv", `"Step","my-run - a - b - eval/return","my-run - a - b - eval/return__MIN","my-run - a - b - eval/return__MAX","my-run - a - b - loss"
"0","1.5","1.5","1.5",""
"","9","9","9","9"
"10","NaN","","","0.25"
"20","","","","x"
`)
	rec, info, err := txtRead(t, p, WandbCSV)
	if err != nil {
		t.Fatal(err)
	}
	want := []txtPoint{{"eval/return", Point{Step: 0, Value: 1.5}}, {"eval/return", Point{Step: 10, Value: nan()}}, {"loss", Point{Step: 10, Value: 0.25}}}
	if len(rec.pts) != len(want) {
		t.Fatalf("got %v", rec.pts)
	}
	for i, w := range want {
		if g := rec.pts[i]; g.Tag != w.Tag || g.Step != w.Step || !txtSame(g.Value, w.Value) {
			t.Fatalf("point %d: got %v, want %v", i, g, w)
		}
	}
	txtHasNote(t, info, `the export holds one run, "my-run - a - b"`)
	txtHasNote(t, info, "Skipped 1 row with an empty x-axis cell (first on line 3)")
	txtHasNote(t, info, `Skipped 1 non-numeric value (first "loss" on line 5)`)
}

func TestWandbCSVErrors(t *testing.T) {
	for _, c := range []struct {
		name, content string
		line, col     int
		msg           string
	}{
		{"time axis", "\"Wall Time\",\"r - a\"\n\"1700000000.5\",\"1\"\n", 2, 1, "not an integer step; export the panel with Step"},
		{"ragged row", "\"Step\",\"r - a\"\n\"1\",\"2\",\"3\"\n", 2, 0, "wrong number of fields"},
		{"no metric columns", "\"Step\"\n\"1\"\n", 1, 0, "no metric columns"},
		{"bad quote", "\"Step\",\"r - a\"\n\"1\",\"2\n", 2, 0, "extraneous or missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := txtRead(t, txtWrite(t, "w.csv", c.content), WandbCSV)
			txtWantErr(t, err, c.line, c.col, c.msg)
		})
	}
}
