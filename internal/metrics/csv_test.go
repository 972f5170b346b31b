package metrics

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// txtAt finds a tag's value at a step.
func txtAt(t testing.TB, rec *txtRec, tag string, step int64) float64 {
	t.Helper()
	for _, p := range rec.series(tag) {
		if p.Step == step {
			return p.Value
		}
	}
	t.Fatalf("no %q point at step %d", tag, step)
	return 0
}

func TestCSVStableBaselines3(t *testing.T) {
	p := filepath.Join(txtSamples(t), "sb3", "formalRL", "progress.csv")
	rec, info, err := txtRead(t, p, CSV)
	if err != nil {
		t.Fatal(err)
	}
	txtHasNote(t, info, `Steps come from column "time/total_timesteps"`)
	// 25 rows of 16 columns, less the step column and the 10 train/*
	// cells that are empty in the first row.
	if len(rec.pts) != 25*15-10 {
		t.Fatalf("%d points", len(rec.pts))
	}
	if len(rec.series("time/total_timesteps")) != 0 {
		t.Fatal("the step column is also a tag")
	}
	for _, tag := range []string{"train/loss", "train/approx_kl", "train/n_updates", "train/clip_range"} {
		if s := rec.series(tag); len(s) != 24 || s[0].Step != 4096 {
			t.Fatalf("%s: %d points from step %d; want 24 from 4096 (row 1 is empty)", tag, len(s), s[0].Step)
		}
	}
	for _, c := range []struct {
		tag  string
		step int64
		want float64
	}{
		{"rollout/ep_rew_mean", 2048, -5870.8766545},
		{"rollout/ep_rew_mean", 4096, -6222.186595249999},
		{"train/loss", 4096, 4367.97607421875},
		{"train/approx_kl", 6144, 0.014682252},
		{"train/explained_variance", 6144, 9.775161743164062e-06},
		{"rollout/ep_rew_mean", 51200, -3648.151500939999},
		{"train/value_loss", 51200, 5166.906683349609},
		{"time/iterations", 51200, 25},
		{"rollout/ep_len_mean", 51200, 1024},
	} {
		if got := txtAt(t, rec, c.tag, c.step); got != c.want {
			t.Errorf("%s at %d = %v, want %v", c.tag, c.step, got, c.want)
		}
	}
}

func TestCSVBaselines(t *testing.T) {
	p := filepath.Join(txtSamples(t), "progress-csv", "SIMPLE-baselines-progress.csv")
	rec, info, err := txtRead(t, p, CSV)
	if err != nil {
		t.Fatal(err)
	}
	txtHasNote(t, info, `Steps come from column "TimestepsSoFar"`)
	if len(rec.pts) != 18*11 {
		t.Fatalf("%d points", len(rec.pts))
	}
	for _, c := range []struct {
		tag  string
		step int64
		want float64
	}{
		{"EpRewMean", 1024, 0.08333333333333333},
		{"EpLenMean", 2048, 96.23809523809524},
		{"EpRewMean", 18432, 0.11},
		{"EpLenMean", 18432, 110.08},
		{"TimeElapsed", 18432, 55.9669451713562},
		{"EpisodesSoFar", 18432, 184},
	} {
		if got := txtAt(t, rec, c.tag, c.step); got != c.want {
			t.Errorf("%s at %d = %v, want %v", c.tag, c.step, got, c.want)
		}
	}
}

func TestCSVRejectsOptionGAN(t *testing.T) {
	p := filepath.Join(txtSamples(t), "progress-csv", "OptionGAN-rllab-progress.csv")
	rec, _, err := txtRead(t, p, CSV)
	txtWantErr(t, err, 3, 0, "a second header (MeanGateDist,MinGateDist,MaxGateDist) appears mid-file; rlxp rejects the file")
	// Only the row before the second header was delivered: 30 columns
	// less the step column, at Timesteps 327.
	if len(rec.pts) != 29 || rec.pts[0].Step != 327 || rec.pts[0].Tag != "vf_loss_before" || rec.pts[0].Value != 0.30338648 {
		t.Fatalf("delivered %d points, first %v", len(rec.pts), rec.pts[0])
	}
}

func TestCSVFixtures(t *testing.T) {
	for _, c := range []struct {
		name, content string
		want          []txtPoint
		notes         []string
	}{
		{"padded rows after a new column", "step,a,b\n1,0.5,\n2,0.6,7\n3,,8\n",
			[]txtPoint{{"a", Point{Step: 1, Value: 0.5}}, {"a", Point{Step: 2, Value: 0.6}}, {"b", Point{Step: 2, Value: 7}}, {"b", Point{Step: 3, Value: 8}}}, nil},
		{"quoted cells and strings", "step,name,r\n1,\"hopper, v4\",1.5\n2,\"say \"\"hi\"\"\",2.5\n",
			[]txtPoint{{"r", Point{Step: 1, Value: 1.5}}, {"r", Point{Step: 2, Value: 2.5}}}, []string{`Skipped 2 non-numeric values (first "name" on line 2)`}},
		{"comments, CRLF, blank lines", "#{\"t_start\": 1, \"env_id\": \"x\"}\r\nr,l,t\r\n1.5,10,0.1\r\n\r\n2.5,12,0.2\r\n",
			[]txtPoint{{"r", Point{Step: 0, Value: 1.5}}, {"l", Point{Step: 0, Value: 10}}, {"t", Point{Step: 0, Value: 0.1}},
				{"r", Point{Step: 1, Value: 2.5}}, {"l", Point{Step: 1, Value: 12}}, {"t", Point{Step: 1, Value: 0.2}}},
			[]string{"Skipped 1 comment line before the header.", "the step is the row number"}},
		{"missing step carries", "global_step,x\n10,1\n,2\n20,3\n",
			[]txtPoint{{"x", Point{Step: 10, Value: 1}}, {"x", Point{Step: 10, Value: 2}}, {"x", Point{Step: 20, Value: 3}}},
			[]string{`1 row has no "global_step" (first on line 3)`}},
		{"pandas index and wall time", ",step,wall_time,loss\n0,1,1700000000.5,0.25\n1,2,1700000001.5,nan\n",
			[]txtPoint{{"loss", Point{Step: 1, WallTime: 1700000000.5, Value: 0.25}}, {"loss", Point{Step: 2, WallTime: 1700000001.5, Value: math.NaN()}}},
			[]string{"Skipped 1 column with no name", `Wall times come from column "wall_time"`}},
		{"rllab iteration and spaces", "Iteration, AverageReturn, Perf/collection time\n0, -1.5, 3\n1, inf, 4e-1\n",
			[]txtPoint{{"AverageReturn", Point{Step: 0, Value: -1.5}}, {"Perf/collection time", Point{Step: 0, Value: 3}},
				{"AverageReturn", Point{Step: 1, Value: math.Inf(1)}}, {"Perf/collection time", Point{Step: 1, Value: 0.4}}},
			[]string{`Steps come from column "Iteration"`}},
		{"float steps", "epoch,acc\n1.0,0.5\n2e0,0.6\n", []txtPoint{{"acc", Point{Step: 1, Value: 0.5}}, {"acc", Point{Step: 2, Value: 0.6}}}, nil},
		{"header only", "step,a,b\n", nil, nil},
		{"trailing empty cells", "step,a\n1,2,,\n", []txtPoint{{"a", Point{Step: 1, Value: 2}}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := txtWrite(t, "progress.csv", c.content)
			rec, info, err := txtRead(t, p, CSV)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.pts) != len(c.want) {
				t.Fatalf("got %v\nwant %v", rec.pts, c.want)
			}
			for i, w := range c.want {
				g := rec.pts[i]
				if g.Tag != w.Tag || g.Step != w.Step || g.WallTime != w.WallTime || !txtSame(g.Value, w.Value) {
					t.Fatalf("point %d: got %v, want %v", i, g, w)
				}
			}
			for _, n := range c.notes {
				txtHasNote(t, info, n)
			}
		})
	}
}

func TestCSVErrors(t *testing.T) {
	for _, c := range []struct {
		name, content string
		line, col     int
		msg           string
	}{
		{"second header", "a,b,step\n1,2,3\n4,5,6\nx,y,z\n7,8,9\n", 4, 0, "a second header (x,y,z) appears mid-file"},
		{"repeated header", "step,a\n1,2\nstep,a\n2,3\n", 3, 0, "a second header (step,a)"},
		{"numpy array cell", "step,a,b\n1,2,3\n2,[1. 2.],3\n", 3, 3, `the cell "[1. 2.]" in column "a" is a list`},
		{"quoted array cell", "step,a\n1,\"[0.1  0.2]\"\n", 2, 3, "is a list"},
		{"too many cells", "step,a\n1,2\n2,3,4\n", 3, 5, "3 cells, but the header has 2 columns"},
		{"step not an integer", "step,a\n1,2\n1.5,3\n", 3, 1, `the step "1.5" in column "step" is not an integer`},
		{"unclosed quote", "step,a\n1,\"2\n", 2, 0, "a quoted cell does not close on its line"},
		{"bare quote", "step,a\n1,2\"x\n", 2, 0, "bare \""},
		{"duplicate column", "step,a,a\n", 1, 0, `column name "a" appears twice (columns 2 and 3)`},
		{"short row", "step,a,b\n1,0.5,2\n2,0.6\n3,0.7,4\n", 3, 3, "2 cells, but the header has 3 columns"},
		{"short row before the tail", "step,a,b\n1,0.5,2\n2,0.6\n3,0.", 3, 3, "2 cells, but the header has 3 columns"},
		{"numbers for a header", "1,2,3\n4,5,6\n", 1, 0, "holds numbers, not column names"},
		{"NUL in a cell", "step,a\n" + strings.Repeat("1,2\n", 2000) + "2,\x00\x02\n", 2002, 0, "binary data at byte 8009; not a csv file"},
		{"invalid UTF-8 in a cell", "step,a\n" + strings.Repeat("1,2\n", 2000) + "2,1\xff\n", 2002, 0, "binary data at byte 8010; not a csv file"},
		{"binary early", "step,a\n1,2\n2,\x00\x02\n", 3, 0, "binary data at byte 13; not a csv file"},
		{"binary header", "a,\xff\xfe\n1,2\n", 1, 0, "binary data at byte 2"},
		{"utf-16", "\xff\xfes\x00t\x00e\x00p\x00\n\x00", 1, 0, "binary data at byte 0; not a csv file (it is UTF-16 text: convert it to UTF-8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := txtRead(t, txtWrite(t, "p.csv", c.content), CSV)
			txtWantErr(t, err, c.line, c.col, c.msg)
		})
	}
	for _, c := range []struct{ content, msg string }{{"", "empty file"}, {"\n#c\n\n", "no header"}} {
		_, _, err := txtRead(t, txtWrite(t, "e.csv", c.content), CSV)
		txtWantErr(t, err, 0, 0, c.msg)
	}
}

// TestCSVQuickRowMatchesFullPath checks the plain-row shortcut against
// the per-cell path, and the comma split against encoding/csv, on random
// rows.
func TestCSVQuickRowMatchesFullPath(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	cells := []string{"", "1", "-2.5", "1e3", "nan", "inf", "abc", "True", "[1 2]", " 3 ", "0x1p-2", "\x01", "_x", "é", "1.5", "10", "-", "\"q\"", "\"1,5\""}
	header := []string{"step", "a", "b", "c", "wall_time", "", "e"}
	rows := 200_000
	if testing.Short() {
		rows = 20_000
	}
	for i := range rows {
		n := r.IntN(len(header) + 3)
		row := make([]string, n)
		for j := range row {
			row[j] = cells[r.IntN(len(cells))]
		}
		line := []byte(strings.Join(row, ","))
		tt := newTagTable(&txtRec{only: map[string]bool{"a": true, "c": true, "e": i%2 == 0}})
		cfg := &csvConfig{header: header, role: make([]uint8, len(header)), ids: make([]int32, len(header)), stepCol: 0, wallCol: 4, last: -1}
		for k, h := range header {
			cfg.ids[k] = -1
			switch {
			case k == 0:
				cfg.role[k] = colStep
			case k == 4:
				cfg.role[k] = colWall
			case h != "":
				if id, want := tt.intern(h); want {
					cfg.role[k], cfg.ids[k] = colMetric, id
				}
			}
			if cfg.role[k] != colSkip {
				cfg.last = k
			}
		}
		quick, full := &csvParser{cfg: cfg}, &csvParser{cfg: cfg}
		var bq, bf batch
		ok := quick.quickRow(line, &bq, 1, 0)
		var e *Error
		full.cells, full.cols, e = splitCSVLine(line, nil, nil, nil)
		if e == nil {
			e = full.row(&bf, 1, 0)
		}
		if ok && (e != nil || len(bq.vals) != len(bf.vals) || !txtSameRows(bq.rowm, bf.rowm) || bq.notes != bf.notes) {
			t.Fatalf("%q: quick %v %v %v; full %v %v %v %v", line, bq.vals, bq.rowm, bq.notes, bf.vals, bf.rowm, bf.notes, e)
		}
		for k := range bq.vals {
			if bq.vals[k].id != bf.vals[k].id || !txtSame(bq.vals[k].v, bf.vals[k].v) {
				t.Fatalf("%q: value %d differs", line, k)
			}
		}
		if !bytes.Contains(line, []byte{'"'}) {
			got, _, _ := splitCSVLine(line, nil, nil, nil)
			cr := csv.NewReader(bytes.NewReader(line))
			cr.FieldsPerRecord = -1
			want, err := cr.Read()
			if len(line) == 0 {
				continue
			}
			if err != nil || len(got) != len(want) {
				t.Fatalf("%q: split %q, encoding/csv %q (%v)", line, got, want, err)
			}
			for k := range got {
				if string(got[k]) != want[k] {
					t.Fatalf("%q: split %q, encoding/csv %q", line, got, want)
				}
			}
		}
	}
}

// txtGenCSV writes a file like the benchmark's CSV.
func txtGenCSV(t testing.TB, path string, steps, tags int, odd bool) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("step,eval/return")
	for i := 1; i < tags; i++ {
		fmt.Fprintf(w, ",train/metric_%02d", i)
	}
	w.WriteString(",note\n")
	r := rand.New(rand.NewPCG(13, 14))
	for s := range steps {
		if odd && s%991 == 7 {
			w.WriteString(",")
		} else {
			w.WriteString(strconv.Itoa(s * 1000))
		}
		for i := range tags {
			w.WriteByte(',')
			if odd && (s+i)%13 == 0 {
				continue
			}
			w.WriteString(strconv.FormatFloat(math.Sin(float64(s)/1000+float64(i))+r.Float64()*0.01, 'g', 8, 64))
		}
		if odd && s%101 == 3 {
			w.WriteString(`,"checkpoint, saved"`)
		} else {
			w.WriteString(",")
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestCSVParallelMatchesSequential(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 20 MB file")
	}
	p := filepath.Join(t.TempDir(), "big.csv")
	txtGenCSV(t, p, 50_000, 40, true)
	if st, _ := os.Stat(p); st.Size() < 2*parallelBytes {
		t.Fatalf("file too small to be read in parallel: %d", st.Size())
	}
	old := runtime.GOMAXPROCS(1)
	seq, seqInfo, err := txtRead(t, p, CSV)
	runtime.GOMAXPROCS(max(old, 4))
	par, parInfo, err2 := txtRead(t, p, CSV)
	runtime.GOMAXPROCS(old)
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	if !reflect.DeepEqual(seq.pts, par.pts) || !reflect.DeepEqual(seqInfo, parInfo) {
		t.Fatalf("parallel read differs: %d vs %d points, notes %q vs %q", len(seq.pts), len(par.pts), seqInfo.Notes, parInfo.Notes)
	}
	txtHasNote(t, parInfo, `rows have no "step" (first on line 9)`)
	txtHasNote(t, parInfo, `non-numeric values (first "note" on line 5)`)
}

func BenchmarkReadCSV(b *testing.B) {
	p := filepath.Join(b.TempDir(), "bench.csv")
	txtGenCSV(b, p, 80_000, 60, false) // about 50 MB
	txtBench(b, p, CSV)
}

// BenchmarkInspectCSV summarises a generated CSV file as `metrics
// inspect` does: the quick rows' cells are read from bitmaps and folded
// into the summaries at once.
func BenchmarkInspectCSV(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.csv")
	txtGenCSV(b, path, 20_000, 60, false) // about 14 MB
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		s, err := Inspect(path, CSV, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Tags) != 60 || s.Info.Points != 20_000*60 {
			b.Fatalf("%d tags, %d points", len(s.Tags), s.Info.Points)
		}
	}
}

// plainCellRE is what plainRow takes a cell for, spelled out.
var plainCellRE = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// FuzzPlainRow checks the bitmap reading of a row against its cells read
// one by one: plainRow takes a row exactly when it has the cells asked
// for, each a plain number (cells of 64 bytes or more may go either way,
// never one of 128 or more), and its comma bitmap marks the commas.
func FuzzPlainRow(f *testing.F) {
	for _, s := range []string{"0,-12.337582,0.85087608", "1000,-0.0031445765,7", "007,-0,00.5", "1,2.", "1,.5", "-,1", "1,-", "1,,2",
		"1.2.3,4", "1-2,3", "--1,2", "1,2,", ",1,2", "1,2\r", "1, 2,3", "1/2,3,4", "1e5,2,3", "nan,1,2", "1.5.,1,1",
		strings.Repeat("1234567,", 20) + "1", strings.Repeat("9", 63) + ",1,2", strings.Repeat("9", 64) + ",1,2",
		strings.Repeat("1", 62) + ".5,-" + strings.Repeat("2", 70) + ",3", "0." + strings.Repeat("0", 200) + "1,1,1"} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, row string, commas int) {
		l := []byte(row)
		cm, ok := plainRow(l, commas, nil)
		cells := strings.Split(row, ",")
		want, long := len(cells) == commas+1, false
		for _, c := range cells {
			want = want && plainCellRE.MatchString(c)
			long = long || len(c) >= 64
			if ok && len(c) >= 128 {
				t.Fatalf("%q: a cell of %d bytes taken", row, len(c))
			}
		}
		if ok != want && !(long && !ok) {
			t.Fatalf("%q with %d commas: plainRow says %v, the cells %v", row, commas, ok, want)
		}
		if !ok {
			return
		}
		for i := range l {
			if got := cm[i>>6]>>(i&63)&1 == 1; got != (l[i] == ',') {
				t.Fatalf("%q: comma bit %d is %v", row, i, got)
			}
		}
		for k, c := range cells {
			if got := string(cellAt(l, cm, k)); got != c {
				t.Fatalf("%q: cell %d is %q, cellAt says %q", row, k, c, got)
			}
		}
	})
}

// TestInspectPlainRowsMatchPoints reads files whose rows plainRow takes,
// turns down (leading zeros, exponents, empty cells, long cells), or
// takes in part of a block only, as inspect and as points: the summaries
// must agree, however the file is cut.
func TestInspectPlainRowsMatchPoints(t *testing.T) {
	var b strings.Builder
	b.WriteString("step,a,b,wall_time,c\n")
	odd := []string{"007", "-0", "1e-05", "", "nan", strings.Repeat("3", 70), "-" + strings.Repeat("4", 140) + ".5", "0.5", "5.", ".5"}
	for s := range 3000 {
		cell := func(k int) string {
			if (s*7+k*3)%11 == 0 {
				return odd[(s+k)%len(odd)]
			}
			return strconv.FormatFloat(math.Sin(float64(s+k))*math.Pow(10, float64(s%9-4)), 'f', -1, 64)
		}
		fmt.Fprintf(&b, "%d,%s,%s,%d.25,%s\n", s*10, cell(1), cell(2), 1700000000+s, cell(3))
		if s%500 == 499 {
			b.WriteString("\n")
		}
	}
	p := filepath.Join(t.TempDir(), "plain.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	sameChunked(t, p, CSV, testChunkings(1, 97, 4096, 1<<20)...)
}

// FuzzClasses64 checks classes64 against classes64Generic, which it
// stands for where vector instructions read the bytes.
func FuzzClasses64(f *testing.F) {
	f.Add([]byte("0,-12.337582,0.85087608,0.91594303,0.14549715,-0.75255612,-0.95"))
	f.Add([]byte("/:+ ,-.0123456789\x00\xff\x80\xac\xad\xae\xb0\xb9 e E nan"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var b [64]byte
		copy(b[:], data)
		d, c, m, o := classes64(&b)
		gd, gc, gm, gdo := classes64Generic(&b)
		if d != gd || c != gc || m != gm || (o == 0) != (gdo == 0) {
			t.Fatalf("%q: %x %x %x %x, generic %x %x %x %x", b, d, c, m, o, gd, gc, gm, gdo)
		}
	})
}

func TestClasses64AllBytes(t *testing.T) {
	for v := range 256 {
		var b [64]byte
		for k := range b {
			b[k] = "0123456789,-.,-1"[k%16]
		}
		b[v%64] = byte(v)
		d, c, m, o := classes64(&b)
		gd, gc, gm, gdo := classes64Generic(&b)
		if d != gd || c != gc || m != gm || (o == 0) != (gdo == 0) {
			t.Fatalf("byte %#x: %x %x %x %x, generic %x %x %x %x", v, d, c, m, o, gd, gc, gm, gdo)
		}
	}
}
