package metrics

import (
	"math"
	"math/rand/v2"
	"strconv"
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
	for range 2_000_000 {
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
