package scoring

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/digest"
	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/score"
)

type point struct {
	Tag         string
	Step        int64
	Wall, Value uint64 // bits: NaN compares equal to itself
}

// recorder keeps every point of every tag.
type recorder struct{ points []point }

func (r *recorder) Want(string) bool { return true }

func (r *recorder) Point(tag string, p metrics.Point) error {
	r.points = append(r.points, point{tag, p.Step, math.Float64bits(p.WallTime), math.Float64bits(p.Value)})
	return nil
}

// lentRecorder is a recorder whose reader reads the file being hashed.
type lentRecorder struct {
	*recorder
	lender
	lent int
}

func (r *lentRecorder) OpenSource(path string) (metrics.File, os.FileInfo, error) {
	if path == r.path {
		r.lent++
	}
	return r.lender.OpenSource(path)
}

// sampleFiles lists the real metric files and two generated files large
// enough to be parsed in parallel chunks.
func sampleFiles(t *testing.T) []string {
	var files []string
	dir := filepath.Join("..", "..", "..", "shared", "metrics-samples")
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Skipf("no metric samples beside the repository (%v)", err)
	}
	gen := t.TempDir()
	var jl, cs strings.Builder
	cs.WriteString("step,eval/return,loss,lr,note\n")
	for s := range 170_000 {
		fmt.Fprintf(&jl, `{"step": %d, "eval/return": %d.%03d, "loss": %g}`+"\n", s, s%1000, s%997, 1/float64(s+1))
		fmt.Fprintf(&cs, "%d,%d.%03d,%g,0.000%d,run%d\n", s, s%1000, s%997, 1/float64(s+1), s, s%7)
	}
	for name, text := range map[string]string{"big.jsonl": jl.String(), "big.csv": cs.String()} {
		if len(text) < 8<<20 {
			t.Fatalf("%s: %d bytes is too small to be read in parallel", name, len(text))
		}
		p := filepath.Join(gen, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	return files
}

// TestLentReadIsTheRead checks that a reader given the file being hashed
// reads exactly what it reads on its own, and that the digest is the
// file's, for every sample format.
func TestLentReadIsTheRead(t *testing.T) {
	read := 0
	for _, path := range sampleFiles(t) {
		format, err := metrics.Detect(path)
		if err != nil {
			continue // not a metric file (a README, a run's metadata)
		}
		var own recorder
		wantInfo, wantErr := metrics.Read(path, format, &own)

		r, err := (*digest.Cache)(nil).Begin(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		lent := &lentRecorder{recorder: &recorder{}, lender: lender{path, r}}
		info, err := metrics.Read(path, format, lent)
		sum, herr := r.Sum()
		r.Close()

		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("%s: lent read failed with %v; its own read with %v", path, err, wantErr)
		}
		if d := cmp.Diff(wantInfo, info); d != "" {
			t.Errorf("%s: lent read's info differs (-own +lent):\n%s", path, d)
		}
		if d := cmp.Diff(own.points, lent.points); d != "" {
			t.Errorf("%s: lent read's points differ (-own +lent):\n%s", path, d)
		}
		data, _ := os.ReadFile(path)
		want := sha256.Sum256(data)
		if herr != nil || sum != digest.Prefix+hex.EncodeToString(want[:]) {
			t.Errorf("%s: digest %s, %v; want the file's sha256", path, sum, herr)
		}
		if lent.lent == 0 {
			t.Errorf("%s: the %s reader opened the file itself, not the lent one", path, format)
		}
		read++
	}
	if read < 5 {
		t.Fatalf("only %d metric files read", read)
	}
}

// sumSink sums one tag, as a score reads one tag of many.
type sumSink struct{ sum float64 }

func (s *sumSink) Want(tag string) bool { return tag == "eval/return" }

func (s *sumSink) Point(_ string, p metrics.Point) error {
	s.sum += p.Value
	return nil
}

type lentSum struct {
	sumSink
	lender
}

// BenchmarkFirstRead compares a first read of a source, its digest and
// its points, as two reads of the file at once (the hash on its own
// goroutine) and as one read lent to the parser.
func BenchmarkFirstRead(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.csv")
	var cs strings.Builder
	cs.WriteString("step,eval/return,loss,lr\n")
	for s := range 400_000 {
		fmt.Fprintf(&cs, "%d,%d.%03d,%g,0.000%d\n", s, s%1000, s%997, 1/float64(s+1), s)
	}
	if err := os.WriteFile(path, []byte(cs.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("separate", func(b *testing.B) {
		b.SetBytes(int64(cs.Len()))
		for b.Loop() {
			sum := make(chan error, 1)
			go func() {
				_, err := (*digest.Cache)(nil).File(path, nil)
				sum <- err
			}()
			_, err := metrics.Read(path, metrics.CSV, &sumSink{})
			if herr := <-sum; err != nil || herr != nil {
				b.Fatal(err, herr)
			}
		}
	})
	b.Run("lent", func(b *testing.B) {
		b.SetBytes(int64(cs.Len()))
		for b.Loop() {
			r, err := (*digest.Cache)(nil).Begin(path, nil)
			if err != nil {
				b.Fatal(err)
			}
			_, err = metrics.Read(path, metrics.CSV, &lentSum{lender: lender{path, r}})
			_, herr := r.Sum()
			r.Close()
			if err != nil || herr != nil {
				b.Fatal(err, herr)
			}
		}
	})
}

// stepSink feeds an aggregate per tag, as a score does.
type stepSink struct{ aggs map[string]*score.Agg }

func (s *stepSink) Want(string) bool { return true }

func (s *stepSink) Point(tag string, p metrics.Point) error {
	a := s.aggs[tag]
	if a == nil {
		a = score.NewAgg(score.Last, 0, 0)
		s.aggs[tag] = a
	}
	a.Add(p)
	return nil
}

// TestRealSeriesMoveForward checks that the step check refuses no series
// of the real files: honest runs log each tag at rising steps.
func TestRealSeriesMoveForward(t *testing.T) {
	read := 0
	for _, path := range sampleFiles(t) {
		format, err := metrics.Detect(path)
		if err != nil {
			continue
		}
		sink := &stepSink{aggs: map[string]*score.Agg{}}
		if _, err := metrics.Read(path, format, sink); err != nil {
			continue // a file the readers refuse (the junk CSV) is another test's
		}
		for tag, a := range sink.aggs {
			var se *score.StepError
			if _, err := a.Value(); errors.As(err, &se) {
				t.Errorf("%s: %s: %v", path, tag, err)
			}
		}
		read++
	}
	if read < 5 {
		t.Fatalf("only %d metric files read", read)
	}
}
