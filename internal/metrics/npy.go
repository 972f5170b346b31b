package metrics

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The .npy format, as numpy's NEP 1 ("A simple file format for NumPy
// arrays") and numpy.lib.format define it: the magic "\x93NUMPY", a major
// and a minor version byte, the header's length (2 bytes little-endian in
// version 1.0, 4 bytes in 2.0 and 3.0), then the header, a Python dict
// literal such as
//
//	{'descr': '<f8', 'fortran_order': False, 'shape': (3, 5), }
//
// padded with spaces and ended by a newline (ASCII in 1.0 and 2.0, UTF-8
// in 3.0), then the array's bytes: shape's product of elements of descr's
// type, in C (row-major) or Fortran (column-major) order. An object array
// ('|O') is a pickle, which runs code when loaded: it is refused, never
// unpickled. Only what can be read exactly is read: little-endian (or
// one-byte) integers, floats and booleans.

// An npyArray is a decoded array, its values in C order.
type npyArray struct {
	shape []int
	descr string
	ints  []int64   // the values of an integer or boolean array
	vals  []float64 // the values, as float64 (integers converted)
}

// An npyError is a problem at a byte of an .npy member.
type npyError struct {
	off int64
	msg string
}

func (e *npyError) Error() string { return fmt.Sprintf("byte %d: %s", e.off, e.msg) }

// npyKinds are the dtypes read, by descr, with their size in bytes.
var npyKinds = map[string]int{
	"<f8": 8, "<f4": 4, "<f2": 2,
	"<i8": 8, "<i4": 4, "<i2": 2, "|i1": 1,
	"<u8": 8, "<u4": 4, "<u2": 2, "|u1": 1,
	"|b1": 1,
}

// parseNPY decodes one .npy file's bytes.
func parseNPY(b []byte) (npyArray, *npyError) {
	const magic = "\x93NUMPY"
	if len(b) < len(magic)+2 || string(b[:len(magic)]) != magic {
		return npyArray{}, &npyError{0, "no .npy magic (\\x93NUMPY): not a numpy array"}
	}
	major := b[6]
	var hlen, start int
	switch major {
	case 1:
		if len(b) < 10 {
			return npyArray{}, &npyError{int64(len(b)), "cut off in the header length"}
		}
		hlen, start = int(binary.LittleEndian.Uint16(b[8:])), 10
	case 2, 3:
		if len(b) < 12 {
			return npyArray{}, &npyError{int64(len(b)), "cut off in the header length"}
		}
		n := binary.LittleEndian.Uint32(b[8:])
		if uint64(n) > uint64(len(b)) {
			return npyArray{}, &npyError{8, fmt.Sprintf("the header is %d bytes, longer than the member", n)}
		}
		hlen, start = int(n), 12
	default:
		return npyArray{}, &npyError{6, fmt.Sprintf(".npy format version %d.%d: rlxp reads versions 1 to 3", major, b[7])}
	}
	if start+hlen > len(b) {
		return npyArray{}, &npyError{int64(len(b)), fmt.Sprintf("cut off in the header (%d bytes announced)", hlen)}
	}
	a, herr := parseNPYHeader(string(b[start : start+hlen]))
	if herr != nil {
		herr.off += int64(start)
		return npyArray{}, herr
	}
	data := b[start+hlen:]
	size := npyKinds[a.descr]
	n, ok := 1, true
	for _, d := range a.shape {
		if d != 0 && n > math.MaxInt32/d {
			ok = false
			break
		}
		n *= d
	}
	if !ok || n*size != len(data) {
		return npyArray{}, &npyError{int64(start + hlen), fmt.Sprintf("the shape %s of %s needs %s of data, the member holds %d bytes",
			shapeText(a.shape), a.descr, bytesFor(a.shape, size), len(data))}
	}
	decode(&a, data, n, size)
	if a.fortran && len(a.shape) > 1 {
		a.npyArray = fromFortran(a.npyArray)
	}
	return a.npyArray, nil
}

// bytesFor is the data a shape needs, for messages: a float, since a
// shape read from a file may overflow an int.
func bytesFor(shape []int, size int) string {
	n := float64(size)
	for _, d := range shape {
		n *= float64(d)
	}
	return strconv.FormatFloat(n, 'f', -1, 64) + " bytes"
}

func shapeText(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	if len(s) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// decode fills a's values from n elements of size bytes each.
func decode(a *npyHeader, data []byte, n, size int) {
	a.vals = make([]float64, n)
	isInt := a.descr[1] != 'f'
	if isInt {
		a.ints = make([]int64, n)
	}
	for i := range n {
		e := data[i*size : (i+1)*size]
		var v int64
		switch a.descr {
		case "<f8":
			a.vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(e))
			continue
		case "<f4":
			a.vals[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(e)))
			continue
		case "<f2":
			a.vals[i] = half(binary.LittleEndian.Uint16(e))
			continue
		case "<i8":
			v = int64(binary.LittleEndian.Uint64(e))
		case "<i4":
			v = int64(int32(binary.LittleEndian.Uint32(e)))
		case "<i2":
			v = int64(int16(binary.LittleEndian.Uint16(e)))
		case "|i1":
			v = int64(int8(e[0]))
		case "<u8":
			u := binary.LittleEndian.Uint64(e)
			a.vals[i], a.ints[i] = float64(u), int64(min(u, math.MaxInt64))
			continue
		case "<u4":
			v = int64(binary.LittleEndian.Uint32(e))
		case "<u2":
			v = int64(binary.LittleEndian.Uint16(e))
		case "|u1", "|b1":
			v = int64(e[0])
		}
		a.ints[i], a.vals[i] = v, float64(v)
	}
}

// half converts an IEEE 754 binary16 value.
func half(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * math.Ldexp(1+frac/1024, exp-15)
}

// fromFortran reorders a column-major array's values to row-major.
func fromFortran(a npyArray) npyArray {
	n := len(a.vals)
	vals := make([]float64, n)
	var ints []int64
	if a.ints != nil {
		ints = make([]int64, n)
	}
	idx := make([]int, len(a.shape))
	for f := range n {
		// f is the Fortran offset of idx; c its C offset.
		c := 0
		for k, d := range a.shape {
			c = c*d + idx[k]
		}
		vals[c] = a.vals[f]
		if ints != nil {
			ints[c] = a.ints[f]
		}
		for k := range idx { // first index fastest
			if idx[k]++; idx[k] < a.shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	a.vals, a.ints = vals, ints
	return a
}

// An npyHeader is a parsed header and the array it describes.
type npyHeader struct {
	npyArray
	fortran bool
}

// parseNPYHeader reads the header dict literal: exactly the keys descr,
// fortran_order and shape.
func parseNPYHeader(h string) (npyHeader, *npyError) {
	p := pyLit{s: h}
	var out npyHeader
	fail := func(msg string) (npyHeader, *npyError) { return npyHeader{}, &npyError{int64(p.i), msg} }
	p.space()
	if !p.eat('{') {
		return fail("the header is no Python dict literal")
	}
	seen := map[string]bool{}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		keyAt := p.i
		key, ok := p.str()
		if !ok {
			return fail("expected a quoted key in the header")
		}
		if seen[key] {
			p.i = keyAt
			return fail(fmt.Sprintf("the header repeats the key %q", key))
		}
		seen[key] = true
		p.space()
		if !p.eat(':') {
			return fail("expected ':' in the header")
		}
		p.space()
		valAt := p.i
		switch key {
		case "descr":
			if p.peek() == '[' {
				return fail("a structured dtype (a list of fields): rlxp reads plain numeric arrays")
			}
			d, ok := p.str()
			if !ok {
				return fail("descr is no quoted dtype")
			}
			if _, known := npyKinds[d]; !known {
				p.i = valAt
				return fail(dtypeRefusal(d))
			}
			out.descr = d
		case "fortran_order":
			switch {
			case p.word("True"):
				out.fortran = true
			case p.word("False"):
			default:
				return fail("fortran_order is neither True nor False")
			}
		case "shape":
			s, ok := p.tuple()
			if !ok {
				p.i = valAt
				return fail("shape is no tuple of sizes")
			}
			out.shape = s
		default:
			p.i = keyAt
			return fail(fmt.Sprintf("an unknown header key %q", key))
		}
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat('}') {
				return fail("expected ',' or '}' in the header")
			}
			break
		}
	}
	p.space()
	if p.i != len(p.s) {
		return fail("data after the header's dict")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return fail("the header has no " + k)
		}
	}
	return out, nil
}

// dtypeRefusal says why a dtype is not read.
func dtypeRefusal(d string) string {
	switch {
	case strings.Contains(d, "O"):
		return fmt.Sprintf("dtype %q is an object array, stored as a pickle: rlxp never unpickles (it would run code)", d)
	case strings.HasPrefix(d, ">"):
		return fmt.Sprintf("dtype %q is big-endian: rlxp reads little-endian arrays (save it from a little-endian machine, or astype('<f8'))", d)
	}
	return fmt.Sprintf("dtype %q: rlxp reads little-endian integers, floats and booleans", d)
}

// pyLit scans the Python literal subset numpy writes in a header.
type pyLit struct {
	s string
	i int
}

func (p *pyLit) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyLit) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *pyLit) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

func (p *pyLit) word(w string) bool {
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

// str reads a quoted string without escapes (numpy's keys and dtypes
// have none).
func (p *pyLit) str() (string, bool) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", false
	}
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", false
	}
	s := p.s[p.i+1 : p.i+1+end]
	if strings.IndexByte(s, '\\') >= 0 {
		return "", false
	}
	p.i += end + 2
	return s, true
}

// tuple reads a tuple of non-negative integers: (), (3,), (3, 5).
func (p *pyLit) tuple() ([]int, bool) {
	if !p.eat('(') {
		return nil, false
	}
	out := []int{}
	for {
		p.space()
		if p.eat(')') {
			return out, true
		}
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		n, err := strconv.Atoi(p.s[p.i:j])
		if err != nil || n < 0 {
			return nil, false
		}
		out = append(out, n)
		p.i = j
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat(')') {
				return nil, false
			}
			return out, true
		}
	}
}
