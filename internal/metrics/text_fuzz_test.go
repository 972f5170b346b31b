package metrics

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Fuzz tests for the text readers: no input may panic, every error must
// be an *Error on one line, and where a reader has a fast path, what it
// accepts must match the full decoder.

// txtSeed adds the real samples (when present) and fixtures to a corpus.
func txtSeed(f *testing.F, samples []string, fixtures ...string) {
	dir := filepath.Join("..", "..", "..", "shared", "metrics-samples")
	for _, s := range samples {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(s))); err == nil {
			f.Add(b)
		}
	}
	for _, s := range fixtures {
		f.Add([]byte(s))
	}
}

// txtFuzzRead reads data as a file of format fm named name and checks the
// general promises.
func txtFuzzRead(t *testing.T, name string, fm Format, data []byte) (*txtRec, error) {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &txtRec{}
	info, err := Read(p, fm, rec)
	txtCheckRead(t, p, info, err, len(rec.pts), rec.asked)
	return rec, err
}

// txtCheckRead checks the promises every read of file p keeps: an error is
// one *Error on one line naming the file, Info.Points counts the points
// delivered, and each tag is asked for once.
func txtCheckRead(t testing.TB, p string, info Info, err error, delivered int, asked map[string]int) {
	t.Helper()
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v is a %T, not an *Error", err, err)
		}
		if strings.ContainsAny(err.Error(), "\n\r") {
			t.Fatalf("error spans lines: %q", err)
		}
		if e.Path != p || !strings.HasPrefix(err.Error(), p) {
			t.Fatalf("error does not name the file %s first: %v", p, err)
		}
	}
	if info.Points != int64(delivered) {
		t.Fatalf("Info.Points = %d, delivered %d", info.Points, delivered)
	}
	for tag, n := range asked {
		if n != 1 {
			t.Fatalf("Want(%q) asked %d times", tag, n)
		}
	}
}

func FuzzJSONL(f *testing.F) {
	txtSeed(f, nil,
		"{\"step\": 1, \"a\": 0.5, \"b\": {\"c\": NaN}}\n{\"step\": 2, \"a\": -Infinity}\n",
		"{\"step\": 1, \"data\": {\"actor/lr\": 1e-06, \"x\": [1]}}\n{\"step\": 2, \"data\": {\"actor/lr\": 2e-06}}\n",
		"{\"_step\": 0, \"img\": {\"_type\": \"image\"}, \"s\": \"x\\\"y\", \"k\\u0041\": 1}\n{\"a\": 1 x}\n",
		"\xef\xbb\xbf{\"epoch\": 0.5, \"iteration\": 3, \"time\": 1700000000}\r\n\r\n{\"iteration\": 4}",
		"{\"a\": 0e0, \"b\": 0e000000, \"c\": 1e999, \"d\": -0}\n[1]\n",
		"{\"step\": 1, \"extra\": [1, 2], \"h\": [[NaN, -1e-3], [], [\"x\", true, null]], \"a\": 0.5}\n{\"step\": 2, \"extra\": [1, {\"b\": 2}], \"a\": [1 2]}\n",
	)
	cfgs := []rowConfig{{stepKey: "step", wallKey: "_timestamp"}, {stepKey: "step", verl: true}, {}}
	f.Fuzz(func(t *testing.T, data []byte) {
		txtFuzzRead(t, "f.jsonl", JSONL, data)
		for i := range cfgs {
			// One parser for all lines, so its caches carry from row to row.
			fast := newJSONLParser(&cfgs[i], newTagTable(&txtRec{}))
			for line := range bytes.SplitSeq(data, []byte{'\n'}) {
				txtCheckJSONLine(t, fast, trimCR(line))
			}
		}
	})
}

func FuzzJSON(f *testing.F) {
	txtSeed(f, []string{"wandb/ConceptPPO/run-20230723_093735-mxaehod4/files/wandb-metadata.json", "wandb/ConceptPPO/run-20230723_093735-mxaehod4/files/wandb-summary.json"},
		`{"accuracy": 0.9, "loss": {"train": 0.1}}`,
		`[{"step": 1, "r": NaN}, {"step": 2, "r": Infinity}, {"r": 3}]`,
		`[{"step": 1, "data": {"a": 1}}]`,
		"{\"step\": 1}\n{\"step\": 2}\n",
		`[[1, 2, 3]]`, `[`, `{"a": [1, {"b": 2}], "c": {"_type": "x", "d": 1}}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		txtFuzzRead(t, "f.json", JSON, data)
	})
}

func FuzzCSV(f *testing.F) {
	txtSeed(f, []string{"sb3/formalRL/progress.csv", "progress-csv/SIMPLE-baselines-progress.csv", "progress-csv/OptionGAN-rllab-progress.csv"},
		"step,a,b\n1,0.5\n2,0.6,7\n3,,8\n",
		"#c\r\nr,l,t\r\n1.5,10,0.1\r\n",
		",step,wall_time,loss\n0,1,1700000000.5,0.25\n1,2,1700000001.5,nan\n",
		"step,name,r\n1,\"hopper, v4\",1.5\n2,\"[1 2]\",2\nstep,name,r\n",
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		txtFuzzRead(t, "f.csv", CSV, data)
		// Every line as a row of a fixed header: the shortcut must agree
		// with the per-cell path, and the split with encoding/csv.
		header := []string{"step", "a", "b", "wall_time"}
		tt := newTagTable(&txtRec{only: map[string]bool{"a": true}})
		cfg := &csvConfig{header: header, role: []uint8{colStep, colMetric, colSkip, colWall}, ids: []int32{-1, 0, -1, -1}, stepCol: 0, wallCol: 3, last: 3}
		tt.intern("a")
		for line := range bytes.SplitSeq(data, []byte{'\n'}) {
			line = trimCR(line)
			quick, full := &csvParser{cfg: cfg}, &csvParser{cfg: cfg}
			var bq, bf batch
			ok := quick.quickRow(line, &bq, 1, 0)
			var e *Error
			full.cells, full.cols, e = splitCSVLine(line, nil, nil, nil)
			if e == nil {
				e = full.row(&bf, 1, 0)
			}
			if ok && (e != nil || len(bq.vals) != len(bf.vals) || !txtSameRows(bq.rowm, bf.rowm) || bq.notes != bf.notes) {
				t.Fatalf("%q: shortcut and full path differ (%v)", line, e)
			}
			for k := range bq.vals {
				if !txtSame(bq.vals[k].v, bf.vals[k].v) {
					t.Fatalf("%q: value %d differs", line, k)
				}
			}
		}
	})
}

func FuzzWandbCSV(f *testing.F) {
	txtSeed(f, []string{"wandb-export/nRTD-wandb_export-HEAD12.csv"},
		"\"Step\",\"r - a - loss\",\"r - a - loss__MIN\"\n\"0\",\"1.5\",\"\"\n\"\",\"2\",\"2\"\n",
		"\"Wall Time\",\"r - a\"\n\"1.5\",\"1\"\n",
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		txtFuzzRead(t, "wandb_export.csv", WandbCSV, data)
	})
}

func FuzzWandbSummary(f *testing.F) {
	txtSeed(f, []string{"wandb/ConceptPPO/run-20230723_093735-mxaehod4/files/wandb-summary.json",
		"wandb/robust-cartpole-offline-run-20231129_215620-ohlnfnqx/files/wandb-summary.json"},
		`{"a": {"b": NaN, "t": {"_type": "table"}}, "_step": 3, "_timestamp": 1.5}`,
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		txtFuzzRead(t, "wandb-summary.json", WandbSummary, data)
	})
}

func FuzzTBExport(f *testing.F) {
	txtSeed(f, nil, "Wall time,Step,Value\n1443856985.705543,1448,0.7461960315704346\n", "[[1443856985.705543, 1448, 0.746], [1, 2, NaN]]")
	f.Fuzz(func(t *testing.T, data []byte) {
		txtFuzzRead(t, "run-a-tag-b.csv", TBCSV, data)
		txtFuzzRead(t, "run-a-tag-b.json", TBJSON, data)
	})
}

func FuzzMLflowLine(f *testing.F) {
	txtSeed(f, []string{txtIrisRun + "/metrics/metric_0", txtIrisRun + "/metrics/metric_4"},
		"1700000000000 nan 1\n1700000001000 -inf\n", "1 2 3 4\n", "x y z\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		for line := range bytes.SplitSeq(data, []byte{'\n'}) {
			if p, e := parseMLflowLine(line); e != nil && (e.Msg == "" || p != (Point{})) {
				t.Fatalf("%q: %v %v", line, p, e)
			}
		}
		dir := t.TempDir()
		p := filepath.Join(dir, "metrics", "m")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, data, 0o644)
		rec := &txtRec{}
		if _, err := Read(p, MLflow, rec); err != nil {
			var e *Error
			if !errors.As(err, &e) || strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("bad error %v (%T)", err, err)
			}
		}
		for _, q := range rec.pts {
			if q.Tag != "m" {
				t.Fatalf("tag %q", q.Tag)
			}
		}
	})
}

func FuzzVerlLog(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("testdata", "verl-console.log")); err == nil {
		f.Add(b)
	}
	txtSeed(f, nil, "step:1 - a:np.float64(0.5) - b:nan - c:True - d\n", "(x pid=1) step:2 - k:v:3\rstep:3 - z:1\n", "no steps here\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := txtFuzzRead(t, "train.log", VerlLog, data)
		if err == nil && len(rec.pts) > 0 && !bytes.Contains(data, []byte("step:")) {
			t.Fatal("points from a file without a step line")
		}
	})
}

func FuzzDetect(f *testing.F) {
	txtSeed(f, []string{"sb3/formalRL/progress.csv", "wandb-export/nRTD-wandb_export-HEAD12.csv"},
		"{\"a\": 1}\n{\"a\": 2}\n", "[[1, 2, 3]]", "Wall time,Step,Value\n", "step:1 - a:1\n")
	names := []string{"x.json", "x.jsonl", "x.csv", "x.log", "x", "wandb-summary.json", "x.bin"}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		for _, n := range names {
			p := filepath.Join(dir, n)
			os.WriteFile(p, data, 0o644)
			fm, err := Detect(p)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("%s: error %v is a %T", n, err, err)
				}
				continue
			}
			if readerFor(fm) == nil {
				t.Fatalf("%s: detected %q, which has no reader", n, fm)
			}
			if fm == TFEvents || fm == Wandb {
				continue // binary formats belong to another reader's fuzz tests
			}
			txtFuzzRead(t, n, fm, data)
		}
	})
}
