package metrics

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Numbers. Most metric values are decimals of at most 19 significant
// digits with a small exponent; those are converted here, exactly, with
// 128-bit integer arithmetic while scanning, and everything else goes to
// strconv.ParseFloat. Both give the correctly rounded float64.

// decToFloat returns m × 10^e correctly rounded, or false when it cannot
// do so exactly (exponent out of range, or a subnormal result).
func decToFloat(m uint64, e int) (float64, bool) {
	if m == 0 {
		return 0, true
	}
	// Clinger's fast path: m and 10^|e| are exact doubles, so one
	// multiplication or division rounds correctly. Most logged values
	// (%.6g, float32 reprs) take it.
	if m < 1<<53 && e >= -22 && e <= 22 {
		if e >= 0 {
			return float64(m) * exactPow10[e], true
		}
		return float64(m) / exactPow10[-e], true
	}
	if e >= 0 {
		if e > 19 {
			return 0, false
		}
		hi, lo := bits.Mul64(m, pow10(e))
		if hi == 0 {
			lz := bits.LeadingZeros64(lo)
			return roundTop(lo<<lz, false, -lz)
		}
		lz := bits.LeadingZeros64(hi)
		q := hi << lz
		if lz > 0 {
			q |= lo >> (64 - lz)
		}
		return roundTop(q, lo<<lz != 0, 64-lz)
	}
	k := -e
	if k > 27 {
		return 0, false
	}
	// m / 10^k = m / 5^k × 2^-k. With both normalized to a top bit of
	// 2^63, N/D lies in (1/2, 2), so q = floor(N × 2^63 / D) has 63 or 64
	// bits and the remainder tells whether anything was cut off.
	d := pow5(k)
	sm, sd := bits.LeadingZeros64(m), bits.LeadingZeros64(d)
	n, dn := m<<sm, d<<sd
	q, r := bits.Div64(n>>1, n<<63, dn)
	return roundTop(q, r != 0, sd-sm-63-k)
}

// roundTop returns (q + f) × 2^exp rounded to 53 bits, half to even,
// where f in [0, 1) is nonzero exactly when sticky is set. q has its top
// bit at 62 or 63.
func roundTop(q uint64, sticky bool, exp int) (float64, bool) {
	shift := 64 - bits.LeadingZeros64(q) - 53
	mant := q >> shift
	rem := q & (1<<shift - 1)
	half := uint64(1) << (shift - 1)
	if rem > half || rem == half && (sticky || mant&1 == 1) {
		mant++
	}
	exp += shift
	if mant == 1<<53 {
		mant >>= 1
		exp++
	}
	// mant is in [2^52, 2^53): the value is mant × 2^exp, a normal float
	// when its exponent fits; subnormals and overflow go to strconv.
	e := exp + 52 + 1023
	if e < 1 || e > 2046 {
		return 0, false
	}
	return math.Float64frombits(uint64(e)<<52 | mant&(1<<52-1)), true
}

// exactPow10 holds the powers of ten that doubles represent exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

func pow5(k int) uint64 {
	switch k {
	case 0:
		return 1
	case 1:
		return 5
	case 2:
		return 25
	case 3:
		return 125
	case 4:
		return 625
	case 5:
		return 3125
	case 6:
		return 15625
	case 7:
		return 78125
	case 8:
		return 390625
	case 9:
		return 1953125
	case 10:
		return 9765625
	case 11:
		return 48828125
	case 12:
		return 244140625
	case 13:
		return 1220703125
	case 14:
		return 6103515625
	case 15:
		return 30517578125
	case 16:
		return 152587890625
	case 17:
		return 762939453125
	case 18:
		return 3814697265625
	case 19:
		return 19073486328125
	case 20:
		return 95367431640625
	case 21:
		return 476837158203125
	case 22:
		return 2384185791015625
	case 23:
		return 11920928955078125
	case 24:
		return 59604644775390625
	case 25:
		return 298023223876953125
	case 26:
		return 1490116119384765625
	case 27:
		return 7450580596923828125
	}
	return 0
}

func pow10(k int) uint64 {
	switch k {
	case 0:
		return 1
	case 1:
		return 10
	case 2:
		return 100
	case 3:
		return 1000
	case 4:
		return 10000
	case 5:
		return 100000
	case 6:
		return 1000000
	case 7:
		return 10000000
	case 8:
		return 100000000
	case 9:
		return 1000000000
	case 10:
		return 10000000000
	case 11:
		return 100000000000
	case 12:
		return 1000000000000
	case 13:
		return 10000000000000
	case 14:
		return 100000000000000
	case 15:
		return 1000000000000000
	case 16:
		return 10000000000000000
	case 17:
		return 100000000000000000
	case 18:
		return 1000000000000000000
	case 19:
		return 10000000000000000000
	}
	return 0
}

// scanJSONNumber scans the JSON number, or NaN, Infinity or -Infinity, at
// b[i:] and returns its end, or -1 when there is none or it runs into
// other letters or digits. With value set it also returns the number.
func scanJSONNumber(b []byte, i int, value bool) (int, float64) {
	n, start := len(b), i
	neg := false
	if i < n && b[i] == '-' {
		neg = true
		i++
	}
	if i >= n {
		return -1, 0
	}
	var m uint64
	nd, exp := 0, 0
	big := false
	switch c := b[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		for i < n && b[i] >= '0' && b[i] <= '9' {
			if nd < 19 {
				m = m*10 + uint64(b[i]-'0')
				nd++
			} else {
				big = true
			}
			i++
		}
	case c == 'N' && !neg:
		if n-i >= 3 && b[i+1] == 'a' && b[i+2] == 'N' && (i+3 == n || !isRunByte(b[i+3])) {
			return i + 3, math.NaN()
		}
		return -1, 0
	case c == 'I':
		if n-i >= 8 && string(b[i:i+8]) == "Infinity" && (i+8 == n || !isRunByte(b[i+8])) {
			if neg {
				return i + 8, math.Inf(-1)
			}
			return i + 8, math.Inf(1)
		}
		return -1, 0
	default:
		return -1, 0
	}
	if i < n && b[i] == '.' {
		i++
		s := i
		for i < n && b[i] >= '0' && b[i] <= '9' {
			d := b[i] - '0'
			switch {
			case m == 0 && d == 0:
				exp--
			case nd < 19:
				m = m*10 + uint64(d)
				nd++
				exp--
			default:
				big = true
			}
			i++
		}
		if i == s {
			return -1, 0
		}
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < n && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		s, e := i, 0
		for i < n && b[i] >= '0' && b[i] <= '9' {
			if e < 100000 {
				e = e*10 + int(b[i]-'0')
			}
			i++
		}
		if i == s {
			return -1, 0
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i < n && isRunByte(b[i]) {
		return -1, 0
	}
	if !value {
		return i, 0
	}
	if !big {
		if v, ok := decToFloat(m, exp); ok {
			if neg {
				v = -v
			}
			return i, v
		}
	}
	v, _ := parseFloat(b[start:i])
	return i, v
}

// skipJSONNumber is scanJSONNumber for a value nobody wants: the quick
// spelling check settles plain finite numbers, the exact scan the rest.
func skipJSONNumber(b []byte, i int) int {
	if e := scanPlainNumber(b, i); e >= 0 {
		return e
	}
	if e := scanFiniteNumber(b, i); e >= 0 {
		return e
	}
	e, _ := scanJSONNumber(b, i, false)
	return e
}

// scanFiniteNumber returns the end of the JSON number at b[i:] when it is
// certainly finite (at most 308 digits before the point, after the
// exponent's shift), so that only its spelling needs checking now; -1
// for anything else (NaN, a huge exponent, no number), which the exact
// scan then decides.
func scanFiniteNumber(b []byte, i int) int {
	n := len(b)
	if i < n && b[i] == '-' {
		i++
	}
	if i >= n {
		return -1
	}
	s := i
	switch c := b[i]; {
	case c == '0':
		i++
	case c-'1' < 9:
		i++
		for i < n && b[i]-'0' < 10 {
			i++
		}
	default:
		return -1
	}
	mag := i - s // digits before the point
	if i < n && b[i] == '.' {
		i++
		d := i
		for i < n && b[i]-'0' < 10 {
			i++
		}
		if i == d {
			return -1
		}
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		neg := false
		if i < n && (b[i] == '+' || b[i] == '-') {
			neg = b[i] == '-'
			i++
		}
		d, e := i, 0
		for i < n && b[i]-'0' < 10 && i-d < 4 {
			e = e*10 + int(b[i]-'0')
			i++
		}
		if i == d || i < n && b[i]-'0' < 10 {
			return -1 // no digits, or an exponent of 5 digits or more
		}
		if !neg {
			mag += e
		}
	}
	if mag > 308 || i < n && isRunByte(b[i]) {
		return -1
	}
	return i
}

// scanPlainNumber is scanFiniteNumber for the spellings most logged
// values have: an optional '-', digits, an optional fraction and an
// optional exponent of one or two digits, ending within 16 bytes after
// the sign. It classifies those 16 bytes at once instead of looping over
// them. It returns scanFiniteNumber's answer, or -1 for another spelling
// (the caller then asks scanFiniteNumber). It reads up to 18 bytes past
// i in b's backing array, never past its capacity, and decides on the
// bytes within len(b) alone.
func scanPlainNumber(b []byte, i int) int {
	if i < 0 || cap(b)-i < 18 {
		return -1
	}
	// Skip a minus sign without a branch: signs are as random as values.
	j := i + int((uint32(b[:i+1][i]^'-')-1)>>31)
	w := b[j : j+17 : j+17]
	lo := binary.LittleEndian.Uint64(w)
	// Bit k of nd is set when w[k] is not a digit; bit 16 stops the
	// counts at the window's end.
	nd := nonDigits(lo) | nonDigits(binary.LittleEndian.Uint64(w[8:]))<<8 | 1<<16
	k := bits.TrailingZeros32(nd) // digits before the point
	if k == 0 || k > 1 && byte(lo) == '0' || k == 16 {
		return -1
	}
	if w[k] == '.' {
		f := bits.TrailingZeros32(nd >> (k + 1))
		if f == 0 {
			return -1
		}
		k += 1 + f
		if k >= 16 {
			return -1
		}
	}
	if w[k]|0x20 == 'e' {
		k++
		if w[k] == '-' || w[k] == '+' {
			k++
		}
		// At most two exponent digits after fewer than 16 before the
		// point: the value is finite.
		g := bits.TrailingZeros32(nd >> k)
		if g == 0 || g > 2 {
			return -1
		}
		k += g
	}
	// The byte after the number must end it as scanFiniteNumber reads
	// it: the end of b, or a byte that is no part of a token.
	e := j + k
	if k >= 16 || e > len(b) || e < len(b) && isRunByte(w[k]) {
		return -1
	}
	return e
}

// nonDigits returns a bit per byte of w, little-endian: set when the byte
// is not an ASCII digit.
func nonDigits(w uint64) uint32 {
	const lo7, high = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	x := w ^ 0x3030303030303030 // digits become 0 to 9
	// A byte is a digit when x < 10: its low 7 bits plus 0x76 stay below
	// 0x80 (without carrying into the next byte) and its top bit is clear.
	t := ((x & lo7) + 0x7676767676767676 | x) & high
	// Gather the top bits into one byte.
	return uint32((t >> 7) * 0x0102040810204080 >> 56)
}

// commas returns a bit per byte of w, little-endian: set when the byte is
// a comma.
func commas(w uint64) uint32 {
	const lo7, high = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	x := w ^ 0x2c2c2c2c2c2c2c2c // commas become 0
	t := ^((x & lo7) + lo7 | x) & high
	return uint32((t >> 7) * 0x0102040810204080 >> 56)
}
