package metrics

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestScanJSONNumberMatchesStrconv checks the exact decimal conversion
// against strconv on numbers written the way Python, Go and JavaScript
// write them, and on random digit strings.
func TestScanJSONNumberMatchesStrconv(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(s string) {
		t.Helper()
		end, got := scanJSONNumber([]byte(s), 0, true)
		if end != len(s) {
			t.Fatalf("%q: end %d, want %d", s, end, len(s))
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil && err.(*strconv.NumError).Err != strconv.ErrRange {
			t.Fatalf("%q: strconv: %v", s, err)
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: got %v (%x), want %v (%x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
	for _, s := range []string{"0", "-0", "0.0", "-0.0", "1", "2048", "2048.0", "1e6", "1E+6", "1e-6", "0.1",
		"0.0072547998279333115", "-6222.186595249999", "9007199254740993", "9007199254740993.0",
		"18446744073709551615", "99999999999999999999", "1e308", "1.7976931348623157e308", "1e309",
		"5e-324", "2.2250738585072014e-308", "1e-400", "0.30000000000000004", "123456789012345678901234567890",
		"4.9406564584124654e-324", "1e-27", "1e-28", "12345678901234567890e-27", "1e19", "1e20", "9999999999999999999e19"} {
		check(s)
	}
	n := 2_000_000
	if testing.Short() {
		n = 200_000
	}
	for range n {
		var s string
		switch r.IntN(4) {
		case 0:
			s = strconv.FormatFloat(r.Float64()*math.Pow(10, float64(r.IntN(40)-20)), 'g', -1, 64)
		case 1:
			s = strconv.FormatFloat(math.Float64frombits(r.Uint64()&^(1<<63)), 'g', -1, 64)
		case 2:
			s = strconv.FormatFloat(float64(float32(r.NormFloat64()*1000)), 'f', -1, 64)
		default:
			digits := make([]byte, 1+r.IntN(22))
			for i := range digits {
				digits[i] = byte('0' + r.IntN(10))
			}
			if digits[0] == '0' && len(digits) > 1 {
				digits[0] = '1'
			}
			s = string(digits)
			if p := r.IntN(len(digits) + 1); p < len(digits) {
				s = s[:p+1] + "." + s[p+1:]
				if s[len(s)-1] == '.' {
					s += "0"
				}
			}
			if r.IntN(2) == 0 {
				s += "e" + strconv.Itoa(r.IntN(60)-30)
			}
		}
		if s == "NaN" || s == "+Inf" {
			continue
		}
		check(s)
		if s[0] != '-' {
			check("-" + s)
		}
	}
}

func TestSkipJSONNumberMatchesScan(t *testing.T) {
	for _, s := range []string{"0", "-0", "01", "1.", ".5", "1e", "1e+", "1e5", "-", "--1", "1.5x", "NaN", "-NaN", "Infinity", "-Infinity", "Inf", "1.5,", "2}", "12.5e-3 ", "0x10", "1_0", "+1", "-a"} {
		e1, _ := scanJSONNumber([]byte(s), 0, false)
		e2 := skipJSONNumber([]byte(s), 0)
		if e1 != e2 {
			t.Errorf("%q: scan %d, skip %d", s, e1, e2)
		}
	}
}

// txtSamples returns the directory of real sample files, which live
// outside the repository. Without it a test is skipped, except in CI.
func txtSamples(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "metrics-samples")
	if _, err := os.Stat(dir); err != nil {
		msg := "real metric samples not found at " + dir + " (they live beside the repository, in shared/metrics-samples)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

// A txtPoint is one delivered point with its tag.
type txtPoint struct {
	Tag string
	Point
}

// txtRec records what a reader delivers. With only set, it wants just
// those tags.
type txtRec struct {
	only  map[string]bool
	asked map[string]int
	pts   []txtPoint
}

func (r *txtRec) Want(tag string) bool {
	if r.asked == nil {
		r.asked = map[string]int{}
	}
	r.asked[tag]++
	return r.only == nil || r.only[tag]
}

func (r *txtRec) Point(tag string, p Point) error {
	r.pts = append(r.pts, txtPoint{tag, p})
	return nil
}

// series returns the points of one tag.
func (r *txtRec) series(tag string) []Point {
	var out []Point
	for _, p := range r.pts {
		if p.Tag == tag {
			out = append(out, p.Point)
		}
	}
	return out
}

// txtRead reads a file and checks the reader's general promises: Want is
// asked once per tag, Info.Points counts the points, and an error is an
// *Error that prints on one line.
func txtRead(t testing.TB, path string, f Format, only ...string) (*txtRec, Info, error) {
	t.Helper()
	rec := &txtRec{}
	if len(only) > 0 {
		rec.only = map[string]bool{}
		for _, o := range only {
			rec.only[o] = true
		}
	}
	info, err := Read(path, f, rec)
	for tag, n := range rec.asked {
		if n != 1 {
			t.Errorf("%s: Want(%q) asked %d times", path, tag, n)
		}
	}
	for _, p := range rec.pts {
		if rec.asked[p.Tag] == 0 {
			t.Errorf("%s: point for %q, which was never asked about", path, p.Tag)
		}
	}
	if info.Points != int64(len(rec.pts)) {
		t.Errorf("%s: Info.Points = %d, delivered %d", path, info.Points, len(rec.pts))
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: error %v is a %T, not an *Error", path, err, err)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error spans lines: %q", path, err)
		}
	}
	return rec, info, err
}

// txtWrite writes a fixture file into a test's temporary directory.
func txtWrite(t testing.TB, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// txtWantErr checks that err is an *Error at the line (and column, when
// col > 0) whose message contains msg.
func txtWantErr(t testing.TB, err error, line, col int, msg string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want an *Error containing %q, got %v (%T)", msg, err, err)
	}
	if e.Line != line || (col > 0 && e.Col != col) || !strings.Contains(e.Msg, msg) {
		t.Fatalf("got %q (line %d col %d), want line %d col %d and %q", err, e.Line, e.Col, line, col, msg)
	}
}

func txtHasNote(t testing.TB, info Info, sub string) {
	t.Helper()
	for _, n := range info.Notes {
		if strings.Contains(n, sub) {
			return
		}
	}
	t.Errorf("no note contains %q; notes: %q", sub, info.Notes)
}

func txtSame(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || a == b
}

func TestBinaryAt(t *testing.T) {
	for _, c := range []struct {
		in      string
		partial bool
		want    int
	}{
		{"abc", false, -1},
		{"ab\x00c", false, 2},
		{"héllo", false, -1},
		{"h\xffllo", false, 1},
		{"ab\xc3", true, -1},
		{"ab\xc3", false, 2},
		{"ab\xc3(", true, 2},
	} {
		if got := binaryAt([]byte(c.in), c.partial); got != c.want {
			t.Errorf("binaryAt(%q, %v) = %d, want %d", c.in, c.partial, got, c.want)
		}
	}
}

// TestReadChunkCoversEveryLineOnce cuts files of assorted line lengths
// into chunks and checks that the chunks hold every line exactly once,
// in order, at the right offsets.
func TestReadChunkCoversEveryLineOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 40 {
		var b strings.Builder
		lines := 1 + r.IntN(100)
		for i := range lines {
			n := r.IntN(40)
			switch r.IntN(30) {
			case 0:
				n = chunkSize/2 + r.IntN(2*chunkSize) // longer than a chunk
			case 1:
				n = 0
			}
			b.WriteString(strings.Repeat(string(rune('a'+i%26)), n))
			if i < lines-1 || trial%2 == 0 {
				b.WriteByte('\n')
			}
		}
		content := b.String()
		ra := strings.NewReader(content)
		off := int64(0)
		if trial%3 == 0 && len(content) > 3 {
			off = 3 // data after a byte-order mark
		}
		size := int64(len(content))
		var got strings.Builder
		var buf []byte
		next := off
		for i := int64(0); i < (size-off+chunkSize-1)/chunkSize; i++ {
			data, doff, nb, err := readChunk(ra, off, size, chunkSize, i, buf)
			buf = nb
			if err != nil {
				t.Fatal(err)
			}
			if len(data) == 0 {
				continue
			}
			if doff != next {
				t.Fatalf("trial %d chunk %d: data at %d, want %d", trial, i, doff, next)
			}
			got.Write(data)
			next += int64(len(data))
		}
		if got.String() != content[off:] {
			t.Fatalf("trial %d: chunks do not reassemble the file (%d vs %d bytes)", trial, got.Len(), len(content)-int(off))
		}
	}
}
