package metrics

import (
	"encoding/binary"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// numberSeeds adds to the corpus the numbers written in the real sample
// files (when present), as their writers spelled them, and hard cases.
func numberSeeds(f *testing.F) {
	dir := filepath.Join("..", "..", "..", "shared", "metrics-samples")
	token := regexp.MustCompile(`-?(?:[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|NaN|Infinity|inf|nan)`)
	seen := map[string]bool{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".csv", ".jsonl", ".json", ".log", ".txt", ".ndjson":
		default:
			if !strings.Contains(p, "mlflow") {
				return nil
			}
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		n := 0
		for _, tok := range token.FindAll(data[:min(len(data), 1<<20)], -1) {
			if s := string(tok); !seen[s] && n < 300 {
				seen[s] = true
				n++
				f.Add(s)
			}
		}
		return nil
	})
	for _, s := range []string{"0", "-0", "0.0", "1e6", "1E+6", "1e-6", "0.1", "0.30000000000000004",
		"9007199254740993", "18446744073709551615", "99999999999999999999", "1e308", "1.7976931348623157e308",
		"1.7976931348623159e308", "1e309", "5e-324", "2.2250738585072014e-308", "1e-400", "4.9406564584124654e-324",
		"123456789012345678901234567890", "12345678901234567890e-27", "9999999999999999999e19", "1e99999", "1e-99999",
		"NaN", "-Infinity", "Infinity", "nan", "inf", "+1", ".5", "1.", "1e", "-", "0x1p-2", "1_000", "01", "1.5x"} {
		f.Add(s)
	}
}

// FuzzNumbers checks the number scanners against strconv.ParseFloat:
// whatever they accept whole they convert to the same bits, the quick
// finiteness check never calls a number finite that is not, and the
// scans that only find the end agree with the one that converts.
func FuzzNumbers(f *testing.F) {
	numberSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		want, err := strconv.ParseFloat(s, 64)
		strconvOK := err == nil || err.(*strconv.NumError).Err == strconv.ErrRange
		same := func(what string, got float64) {
			t.Helper()
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("%s(%q) = %v (%#x), strconv %v (%#x)", what, s, got, math.Float64bits(got), want, math.Float64bits(want))
			}
		}

		end, v := scanJSONNumber(b, 0, true)
		if end == len(b) {
			if !strconvOK {
				t.Fatalf("scanJSONNumber accepts %q, strconv does not: %v", s, err)
			}
			same("scanJSONNumber", v)
		}
		if e, _ := scanJSONNumber(b, 0, false); e != end {
			t.Fatalf("%q: the scan ends at %d finding the end, at %d converting", s, e, end)
		}
		if e := skipJSONNumber(b, 0); e != end {
			t.Fatalf("%q: skipJSONNumber ends at %d, scanJSONNumber at %d", s, e, end)
		}
		if e := scanFiniteNumber(b, 0); e >= 0 {
			if e != end {
				t.Fatalf("%q: scanFiniteNumber ends at %d, scanJSONNumber at %d", s, e, end)
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("scanFiniteNumber calls %q finite; it is %v", s, v)
			}
		}

		checkPlain(t, s)
		checkPlainCell(t, s)

		got, ok := parseCell(b)
		if ok != strconvOK {
			t.Fatalf("parseCell(%q) ok = %v, strconv: %v", s, ok, err)
		}
		if ok {
			same("parseCell", got)
		}
	})
}

// checkPlain checks that scanPlainNumber gives scanFiniteNumber's answer
// or none, for s at the start of a buffer and after a comma, whatever
// bytes follow it in the backing array, inside and outside the slice.
func checkPlain(t *testing.T, s string) {
	t.Helper()
	for _, pre := range []string{"", ","} {
		for _, after := range []string{"", ",", "}", "\n", "9", "1.5", ".5", "e5", "e+12", "x", "-"} {
			for _, inside := range []bool{true, false} {
				buf := make([]byte, 0, len(pre)+len(s)+len(after)+40)
				buf = append(append(buf, pre...), s...)
				n := len(buf)
				buf = append(buf, after...)
				for len(buf) < cap(buf) {
					buf = append(buf, '7')
				}
				b := buf[:n]
				if inside {
					b = buf[:n+len(after)]
				}
				want := scanFiniteNumber(b, len(pre))
				if got := scanPlainNumber(b, len(pre)); got != -1 && got != want {
					t.Fatalf("scanPlainNumber(%q, %d) = %d, scanFiniteNumber %d (%q after the slice)", b, len(pre), got, want, buf[len(b):])
				}
			}
		}
	}
}

// checkPlainCell checks that plainCell takes s as a cell only when
// scanFiniteNumber reads it to its end, wherever the cell lies in a line.
func checkPlainCell(t *testing.T, s string) bool {
	t.Helper()
	var took bool
	for _, pre := range []string{"", "7,", strings.Repeat("1,", 30)} {
		for _, after := range []string{"", ",", ",5"} {
			l := []byte(pre + s + after)
			nd, cm := lineMasks(l, nil, nil)
			for k := range l {
				isComma := cm[k>>6]>>(k&63)&1 == 1
				isDigit := nd[k>>6]>>(k&63)&1 == 0
				if isComma != (l[k] == ',') || isDigit != (l[k] >= '0' && l[k] <= '9') {
					t.Fatalf("lineMasks(%q): byte %d (%q) comma %v, digit %v", l, k, l[k], isComma, isDigit)
				}
			}
			e := len(pre) + len(s)
			if plainCell(l, len(pre), e, nd) {
				took = true
				if got := scanFiniteNumber(l, len(pre)); got != e {
					t.Fatalf("plainCell takes %q in %q; scanFiniteNumber ends it at %d, not %d", s, l, got, e)
				}
			}
		}
	}
	return took
}

// TestScanPlainNumber checks that the usual spellings take the quick scan
// and end where scanFiniteNumber ends them.
func TestScanPlainNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int // -1: left to scanFiniteNumber
	}{
		{"0.85087608,1", 10}, {"-12.337582", 10}, {"-0.0031445765}", 13}, {"0", 1}, {"7,", 1},
		{"1e-05,", 5}, {"-1.065814103e-16,", 16}, {"-0.0004289746284,", 16}, {"4367.9760742187 ", 15},
		{"1E+6,", 4}, {"2048,", 4},
		// the window holds no end
		{"-1.0658141036401502e-16,", -1}, {"4367.97607421875 ", -1}, {"12345678901234567", -1},
		{"1e308", -1}, {"1e-308", -1}, {"01", -1}, {"1.", -1}, {".5", -1}, {"-", -1}, {"1e", -1},
		{"NaN", -1}, {"1.5x", -1}, {"1.2.3", -1}, {"", -1},
	} {
		b := append([]byte(tc.in), make([]byte, 32)...)[:len(tc.in)]
		if got := scanPlainNumber(b, 0); got != tc.want {
			t.Errorf("scanPlainNumber(%q) = %d, want %d", tc.in, got, tc.want)
		}
		if tc.want >= 0 {
			if fin := scanFiniteNumber(b, 0); fin != tc.want {
				t.Errorf("scanFiniteNumber(%q) = %d, the quick scan %d", tc.in, fin, tc.want)
			}
		}
		checkPlain(t, tc.in)
	}
}

// TestByteClasses checks the bit tricks against the plain definitions
// for every byte at every position of a word.
func TestByteClasses(t *testing.T) {
	for c := range 256 {
		b := byte(c)
		want := b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '.' || b == '+' || b == '-'
		if isRunByte(b) != want {
			t.Errorf("isRunByte(%q) = %v", b, !want)
		}
		for pos := range 8 {
			for _, fill := range []byte{'5', 'x', 0xff, 0} {
				var w [8]byte
				for k := range w {
					w[k] = fill
				}
				w[pos] = b
				var want uint32
				for k, x := range w {
					if x < '0' || x > '9' {
						want |= 1 << k
					}
				}
				if got := nonDigits(binary.LittleEndian.Uint64(w[:])); got != want {
					t.Errorf("nonDigits(%q) = %08b, want %08b", w, got, want)
				}
			}
		}
	}
}

// TestPlainCell checks that the usual spellings of CSV cells take the
// quick path and the others do not.
func TestPlainCell(t *testing.T) {
	for _, tc := range []struct {
		in    string
		plain bool
	}{
		{"0.85087608", true}, {"-12.337582", true}, {"-0.0031445765", true}, {"0", true}, {"-0", true},
		{"2048", true}, {"4367.97607421875", true}, {"-1.0658141036401502", true}, {"10.5", true},
		{"", false}, {"-", false}, {"01", false}, {"-01.5", false}, {"00.5", false}, {"1.", false}, {".5", false},
		{"-.5", false}, {"1.2.3", false}, {"1e-05", false}, {" 1", false}, {"1 ", false}, {"nan", false},
		{"+1", false}, {"1-2", false}, {strings.Repeat("9", 64), false},
	} {
		if got := checkPlainCell(t, tc.in); got != tc.plain {
			t.Errorf("plainCell(%q) = %v, want %v", tc.in, got, tc.plain)
		}
	}
}
