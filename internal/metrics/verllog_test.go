package metrics

import (
	"math"
	"path/filepath"
	"testing"
)

func TestVerlConsoleLog(t *testing.T) {
	rec, info, err := txtRead(t, filepath.Join("testdata", "verl-console.log"), VerlLog)
	if err != nil {
		t.Fatal(err)
	}
	type kv struct {
		tag  string
		step int64
		v    float64
	}
	want := []kv{
		{"val-core/openai/gsm8k/reward/mean@1", 0, 0.104},
		{"global_seqlen/min", 1, 419336}, {"actor/pg_loss", 1, -0.0123}, {"actor/lr", 1, 1e-06},
		{"actor/grad_norm", 1, 0.2057906948029995}, {"critic/score/mean", 1, 0.25}, {"num_turns/mean", 1, 23.5},
		{"response_length/mean", 1, 812}, {"actor/entropy", 1, math.NaN()}, {"perf/max_memory_allocated_gb", 1, math.Inf(1)},
		{"val-aux/ds:math/acc/mean@4", 1, 0.75}, {"training/global_step", 1, 1}, {"training/epoch", 1, 0},
		{"actor/pg_loss", 2, -0.0101}, {"critic/score/mean", 2, 0.31}, {"response_length_non_aborted/mean", 2, 800.5},
		{"timing_s/step", 2, 41.2}, {"training/global_step", 2, 2},
		{"critic/score/mean", 3, 0.375}, {"actor/lr", 3, 0}, {"training/global_step", 3, 3},
	}
	if len(rec.pts) != len(want) {
		t.Fatalf("%d points, want %d: %v", len(rec.pts), len(want), rec.pts)
	}
	for i, w := range want {
		g := rec.pts[i]
		if g.Tag != w.tag || g.Step != w.step || g.WallTime != 0 || !txtSame(g.Value, w.v) {
			t.Errorf("point %d: got %v, want %v", i, g, w)
		}
	}
	// Whole keys only: the non-aborted length is not the length.
	if s := rec.series("response_length/mean"); len(s) != 1 {
		t.Errorf("response_length/mean has %d points", len(s))
	}
	txtHasNote(t, info, "Read 4 step lines.")
	txtHasNote(t, info, `Skipped 1 boolean value (first "actor/is_clipped" on line 8)`)
	txtHasNote(t, info, `Skipped 2 pairs that are not key:number (first "broken pair" on line 9)`)
}

func TestVerlStepLines(t *testing.T) {
	for _, c := range []struct {
		line  string
		ok    bool
		step  int64
		pairs int
	}{
		{"step:12 - actor/lr:0.000 - critic/score/mean:0.250", true, 12, 2},
		{"(TaskRunner pid=1) (WorkerDict pid=2, ip=1.2.3.4) step:3 - a:1", true, 3, 1},
		{"\x1b[32m\x1b[1mstep:4\x1b[0m - a:1", true, 4, 1},
		{"2025-01-01 INFO step:5 - a:1", true, 5, 1},
		{"step:6", true, 6, 0},
		{"training/global_step:34 - a:1", false, 0, 0},
		{"global_step:34 - a:1", false, 0, 0},
		{"step:12abc - a:1", false, 0, 0},
		{"step: - a:1", false, 0, 0},
		{"(something) step:7 - a:1", true, 7, 1},
		{"Training Progress: 10%|█ | 1/10", false, 0, 0},
	} {
		step, pairs, ok := verlStepLine([]byte(c.line))
		if ok != c.ok || step != c.step || len(pairs) != c.pairs {
			t.Errorf("%q: %v %d %q, want %v %d with %d pairs", c.line, ok, step, pairs, c.ok, c.step, c.pairs)
		}
	}
	for in, want := range map[string]float64{"np.float64(0.5)": 0.5, "np.int64(3)": 3, "np.float32(-inf)": math.Inf(-1), "1e-06": 1e-6, "-0.018": -0.018, "nan": math.NaN()} {
		if got, ok := verlValue(in); !ok || !txtSame(got, want) {
			t.Errorf("verlValue(%q) = %v, %v", in, got, ok)
		}
	}
	for _, in := range []string{"np.float64(0.5", "tensor(0.5)", "abc", "True", ""} {
		if _, ok := verlValue(in); ok {
			t.Errorf("verlValue(%q) accepted", in)
		}
	}
}

func TestVerlErrors(t *testing.T) {
	_, _, err := txtRead(t, txtWrite(t, "train.log", "loading\nTraining Progress: 0%\ndone\n"), VerlLog)
	txtWantErr(t, err, 0, 0, "no verl step lines found (3 other lines")
	_, _, err = txtRead(t, txtWrite(t, "train.log", "step:1 - a:1.0 - b:2\nstep:2 - a:1.0 - a:2.0\n"), VerlLog)
	txtWantErr(t, err, 2, 0, `the key "a" has two values in one step line`)
	_, _, err = txtRead(t, txtWrite(t, "train.log", ""), VerlLog)
	txtWantErr(t, err, 0, 0, "empty file")
	_, _, err = txtRead(t, txtWrite(t, "train.log", "\x7fELF\x02\x01\x01\x00\x00"), VerlLog)
	txtWantErr(t, err, 1, 0, "binary data at byte 7; not a verl-log file")
}
