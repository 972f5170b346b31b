package metrics

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const txtIrisRun = "mlflow/Iris_MLFlow/mlruns/853099972095872099/425b6205924e4d7ebf10791f8edd827d"

func TestMLflowIrisSample(t *testing.T) {
	run := filepath.Join(txtSamples(t), filepath.FromSlash(txtIrisRun))
	// The expected points come from the files themselves.
	want := map[string]Point{}
	for i := range 5 {
		name := "metric_" + strconv.Itoa(i)
		b, err := os.ReadFile(filepath.Join(run, "metrics", name))
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(b))
		ts, _ := strconv.ParseInt(f[0], 10, 64)
		v, _ := strconv.ParseFloat(f[1], 64)
		s, _ := strconv.ParseInt(f[2], 10, 64)
		want[name] = Point{Step: s, WallTime: float64(ts) / 1000, Value: v}
	}
	if want["metric_0"] != (Point{0, 1731484378.109, 0.975}) || want["metric_4"].Value != 0.4286799430847168 {
		t.Fatalf("the sample changed: %v", want)
	}
	for _, path := range []string{run, filepath.Join(run, "metrics"), filepath.Join(txtSamples(t), "mlflow", "Iris_MLFlow", "mlruns")} {
		rec, _, err := txtRead(t, path, MLflow)
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.pts) != 5 {
			t.Fatalf("%s: %v", path, rec.pts)
		}
		for i, p := range rec.pts {
			if p.Tag != "metric_"+strconv.Itoa(i) || p.Point != want[p.Tag] {
				t.Errorf("%s: point %d is %v, want %v", path, i, p, want[p.Tag])
			}
		}
	}
	rec, _, err := txtRead(t, filepath.Join(run, "metrics", "metric_2"), MLflow)
	if err != nil || len(rec.pts) != 1 || rec.pts[0].Tag != "metric_2" || rec.pts[0].Point != want["metric_2"] {
		t.Fatalf("single file: %v %v", err, rec.pts)
	}
}

// txtMLflowTree writes an mlruns tree: experiment 1 with one run.
func txtMLflowTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestMLflowNestedKeysAndLines(t *testing.T) {
	root := txtMLflowTree(t, map[string]string{
		"mlruns/1/meta.yaml":                         "name: x\n",
		"mlruns/1/abc/meta.yaml":                     "status: 3\n",
		"mlruns/1/abc/metrics/train/reward":          "1700000000000 1.5 0\n1700000001000 nan 1\n1700000002000 inf 2\n1700000003000 -inf 3\n1700000004000 2 10\n",
		"mlruns/1/abc/metrics/eval/success_rate@100": "1700000000500 0.25\n",
		"mlruns/1/abc/metrics/loss":                  "1700000000000 1 0\n\n",
		"mlruns/1/abc/metrics/empty":                 "",
		"mlruns/1/abc/metrics/.DS_Store":             "\x00\x01",
		"mlruns/1/abc/params/lr":                     "0.1",
		"mlruns/.trash/9/meta.yaml":                  "",
	})
	rec, info, err := txtRead(t, filepath.Join(root, "mlruns"), MLflow)
	if err != nil {
		t.Fatal(err)
	}
	type kv struct {
		tag string
		p   Point
	}
	want := []kv{
		{"eval/success_rate@100", Point{0, 1700000000.5, 0.25}},
		{"loss", Point{0, 1700000000, 1}},
		{"train/reward", Point{0, 1700000000, 1.5}}, {"train/reward", Point{1, 1700000001, math.NaN()}},
		{"train/reward", Point{2, 1700000002, math.Inf(1)}}, {"train/reward", Point{3, 1700000003, math.Inf(-1)}},
		{"train/reward", Point{10, 1700000004, 2}},
	}
	if len(rec.pts) != len(want) {
		t.Fatalf("got %v", rec.pts)
	}
	for i, w := range want {
		g := rec.pts[i]
		if g.Tag != w.tag || g.Step != w.p.Step || g.WallTime != w.p.WallTime || !txtSame(g.Value, w.p.Value) {
			t.Errorf("point %d: got %v, want %v", i, g, w)
		}
	}
	txtHasNote(t, info, "Read the only MLflow run below the directory")
	txtHasNote(t, info, "Skipped 1 empty metric file.")
	// A nested metric file on its own keeps its key.
	rec, _, err = txtRead(t, filepath.Join(root, "mlruns/1/abc/metrics/train/reward"), MLflow)
	if err != nil || rec.pts[0].Tag != "train/reward" {
		t.Fatalf("%v %v", err, rec.pts)
	}
}

func TestMLflowErrors(t *testing.T) {
	root := txtMLflowTree(t, map[string]string{
		"mlruns/1/a/meta.yaml":    "",
		"mlruns/1/a/metrics/x":    "1 2 3\n",
		"mlruns/1/b/meta.yaml":    "",
		"mlruns/1/b/metrics/x":    "1 2 3\n",
		"bad/meta.yaml":           "",
		"bad/metrics/fields":      "1700000000000 1.5 0\n1700000000000 1.5 0 7\n",
		"timestamp/metrics/ts":    "2023-01-01 1.5 0\n",
		"value/metrics/v":         "1 abc 0\n",
		"step/metrics/s":          "1 1 1.5\n",
		"notmlflow/readme.txt":    "hello",
		"binary/metrics/b":        "1 1 0\n\x00\x00\n",
		"emptyfile/metrics/empty": "",
	})
	for _, c := range []struct {
		path      string
		line, col int
		msg       string
	}{
		{"mlruns", 0, 0, "holds 2 MLflow runs"},
		{"bad", 2, 0, `4 fields; an MLflow metric line is "<timestamp_ms> <value> <step>"`},
		{"timestamp", 1, 1, `the timestamp "2023-01-01" is not an integer of milliseconds`},
		{"value", 1, 3, `the value "abc" is not a number`},
		{"step", 1, 5, `the step "1.5" is not an integer`},
		{"notmlflow", 0, 0, "not an MLflow run"},
		{"binary", 2, 0, "binary data at byte 6; not a mlflow file"},
		{"emptyfile/metrics/empty", 0, 0, "empty file"},
	} {
		_, _, err := txtRead(t, filepath.Join(root, c.path), MLflow)
		txtWantErr(t, err, c.line, c.col, c.msg)
	}
}

// A run's meta.yaml says whether it finished: the Iris sample's (status
// 3) does; the same run killed, failed, still running or deleted does not,
// whichever path names it.
func TestMLflowRunState(t *testing.T) {
	src := filepath.Join(txtSamples(t), filepath.FromSlash(txtIrisRun))
	meta, err := os.ReadFile(filepath.Join(src, "meta.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	metric, err := os.ReadFile(filepath.Join(src, "metrics", "metric_0"))
	if err != nil {
		t.Fatal(err)
	}
	finished := string(meta)
	for _, tc := range []struct {
		name, meta, want string
	}{
		{"finished", finished, ""},
		{"killed", strings.Replace(finished, "status: 3", "status: 5", 1), "says status 5 (KILLED): the run did not finish"},
		{"failed", strings.Replace(finished, "status: 3", "status: 4", 1), "says status 4 (FAILED): the run did not finish"},
		{"running", strings.Replace(finished, "status: 3", "status: 1", 1), "says status 1 (RUNNING): the run did not finish"},
		{"deleted", strings.Replace(finished, "lifecycle_stage: active", "lifecycle_stage: deleted", 1), "says it was deleted"},
		{"no status", strings.Replace(finished, "status: 3\n", "", 1), "has no status"},
		{"no meta.yaml", "", ""},
	} {
		files := map[string]string{"mlruns/1/abc/metrics/eval/return": string(metric)}
		if tc.meta != "" {
			files["mlruns/1/abc/meta.yaml"] = tc.meta
		}
		root := txtMLflowTree(t, files)
		run := filepath.Join(root, "mlruns", "1", "abc")
		for _, path := range []string{run, filepath.Join(run, "metrics"), filepath.Join(run, "metrics", "eval", "return")} {
			rec, info, err := txtRead(t, path, MLflow)
			if err != nil {
				t.Fatalf("%s: %s: %v", tc.name, path, err)
			}
			if len(rec.pts) != 1 || rec.pts[0].Tag != "eval/return" {
				t.Errorf("%s: %s: points %v", tc.name, path, rec.pts)
			}
			if tc.want == "" && info.Unfinished != "" || !strings.Contains(info.Unfinished, tc.want) {
				t.Errorf("%s: %s: Unfinished = %q, want %q", tc.name, path, info.Unfinished, tc.want)
			}
		}
	}
	root := txtMLflowTree(t, map[string]string{"r/metrics/x": string(metric), "r/meta.yaml": "status: [\n"})
	if _, _, err := txtRead(t, filepath.Join(root, "r"), MLflow); err == nil || !strings.Contains(err.Error(), filepath.Join(root, "r", "meta.yaml")+": the run's meta.yaml does not parse: ") {
		t.Errorf("a broken meta.yaml: %v", err)
	}
}

// FuzzMLflowRunState reads a run's meta.yaml, seeded with the real Iris
// run's: no input panics, an error is an *Error on one line naming the
// meta.yaml, and a status read is one sentence.
func FuzzMLflowRunState(f *testing.F) {
	txtSeed(f, []string{txtIrisRun + "/meta.yaml", "mlflow/Iris_MLFlow/mlruns/853099972095872099/meta.yaml"},
		"status: 1\n", "status: 3\nlifecycle_stage: deleted\n", "status: x\n", "status: [\n", "- 1\n", "status: 99999999999999999999\n", "")
	f.Fuzz(func(t *testing.T, meta []byte) {
		run := filepath.Join(t.TempDir(), "run")
		if err := os.MkdirAll(filepath.Join(run, "metrics"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(run, "meta.yaml"), meta, 0o644); err != nil {
			t.Fatal(err)
		}
		why, err := mlflowRunState(filepath.Join(run, "metrics", "x"), "x")
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Path != filepath.Join(run, "meta.yaml") || strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error %q (%T)", err, err)
			}
			return
		}
		if strings.ContainsAny(why, "\n\r") {
			t.Fatalf("state %q spans lines", why)
		}
	})
}
