package metrics

import (
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

		got, ok := parseCell(b)
		if ok != strconvOK {
			t.Fatalf("parseCell(%q) ok = %v, strconv: %v", s, ok, err)
		}
		if ok {
			same("parseCell", got)
		}
	})
}
