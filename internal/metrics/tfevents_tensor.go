package metrics

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Scalar tensors in tfevents summaries: dtypes, shapes and values.

// tfDTypeSize gives the byte size of a numeric dtype and the TensorProto
// field its values use; ok is false for other dtypes.
func tfDTypeSize(dtype uint64) (size int, field protowire.Number, ok bool) {
	switch dtype {
	case tfDTFloat:
		return 4, 5, true
	case tfDTDouble:
		return 8, 6, true
	case tfDTInt32:
		return 4, 7, true
	case tfDTInt16, tfDTUint16:
		return 2, 7, true
	case tfDTInt8, tfDTUint8:
		return 1, 7, true
	case tfDTInt64:
		return 8, 10, true
	case tfDTHalf, tfDTBFloat16:
		return 2, 13, true
	case tfDTUint32:
		return 4, 16, true
	case tfDTUint64:
		return 8, 17, true
	}
	return 0, 0, false
}

// scalarTensor reads the value of a one-element numeric TensorProto. A
// tensor that is not one is reported by why, for the skip note.
func (wk *tfWorker) scalarTensor(b []byte) (v float64, why string, err error) {
	if v, ok := tfQuickScalarTensor(b); ok {
		return v, "", nil
	}
	return wk.anyTensor(b)
}

// anyTensor is scalarTensor for a tensor of any layout.
func (wk *tfWorker) anyTensor(b []byte) (v float64, why string, err error) {
	var dtype uint64
	var content []byte
	hasContent := false
	elems := int64(1)
	// The values field of the dtype, seen before the dtype may be known:
	// remember the first occurrence of each candidate field.
	var vals [18][]byte // raw packed bytes or single encoded value, by field number
	var wire [18]protowire.Type
	var count [18]int
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, "", wk.malformed("tensor", n)
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			dtype, n = protowire.ConsumeVarint(b)
		case num == 2 && typ == protowire.BytesType:
			var shape []byte
			if shape, n = protowire.ConsumeBytes(b); n >= 0 {
				if elems, err = wk.shapeElems(shape); err != nil {
					return 0, "", err
				}
			}
		case num == 4 && typ == protowire.BytesType:
			content, n = protowire.ConsumeBytes(b)
			hasContent = true
		case num == 5 || num == 6 || num == 7 || num == 10 || num == 13 || num == 16 || num == 17:
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				break
			}
			raw := b[:n]
			c, ok := tfCountValues(num, typ, raw)
			if !ok {
				return 0, "", wk.errorf("malformed tensor (bad %s values)", tfValueField(num))
			}
			if count[num] == 0 && c > 0 {
				vals[num], wire[num] = raw, typ
			}
			count[num] += c
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return 0, "", wk.malformed("tensor", n)
		}
		b = b[n:]
	}
	size, field, ok := tfDTypeSize(dtype)
	if !ok {
		return 0, "scalars-plugin tensors of a non-numeric type", nil
	}
	if elems != 1 {
		return 0, "scalars-plugin tensors with more than one element", nil
	}
	var bits uint64
	switch {
	case hasContent && len(content) > 0:
		if len(content)%size != 0 {
			return 0, "", wk.errorf("malformed tensor (%d content bytes for %d-byte elements)", len(content), size)
		}
		if len(content) > size {
			return 0, "scalars-plugin tensors with more than one element", nil
		}
		switch size {
		case 1:
			bits = uint64(content[0])
		case 2:
			bits = uint64(binary.LittleEndian.Uint16(content))
		case 4:
			bits = uint64(binary.LittleEndian.Uint32(content))
		case 8:
			bits = binary.LittleEndian.Uint64(content)
		}
	case count[field] == 0:
		return 0, "", wk.errorf("malformed tensor (a scalar with no value)")
	case count[field] > 1:
		return 0, "scalars-plugin tensors with more than one element", nil
	default:
		raw := vals[field]
		if wire[field] == protowire.BytesType {
			raw, _ = protowire.ConsumeBytes(raw)
		}
		switch field {
		case 5:
			bits = uint64(binary.LittleEndian.Uint32(raw))
		case 6:
			bits = binary.LittleEndian.Uint64(raw)
		default:
			bits, _ = protowire.ConsumeVarint(raw)
		}
	}
	return tfBitsValue(dtype, bits), "", nil
}

// tfQuickScalarTensor reads a scalar as writers lay it out: dtype float
// or double, no shape or an empty one, and the value packed or as
// tensor_content; ok is false for anything else.
func tfQuickScalarTensor(b []byte) (v float64, ok bool) {
	if len(b) < 2 || b[0] != 0x08 || b[1] != tfDTFloat && b[1] != tfDTDouble {
		return 0, false
	}
	dtype := b[1]
	b = b[2:]
	if len(b) >= 2 && b[0] == 0x12 && b[1] == 0 { // tensor_shape {}
		b = b[2:]
	}
	switch {
	case dtype == tfDTFloat && len(b) == 6 && (b[0] == 0x2a || b[0] == 0x22) && b[1] == 4: // float_val packed, or tensor_content
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[2:]))), true
	case dtype == tfDTFloat && len(b) == 5 && b[0] == 0x2d: // float_val unpacked
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[1:]))), true
	case dtype == tfDTDouble && len(b) == 10 && (b[0] == 0x32 || b[0] == 0x22) && b[1] == 8: // double_val packed, or tensor_content
		return math.Float64frombits(binary.LittleEndian.Uint64(b[2:])), true
	case dtype == tfDTDouble && len(b) == 9 && b[0] == 0x31: // double_val unpacked
		return math.Float64frombits(binary.LittleEndian.Uint64(b[1:])), true
	}
	return 0, false
}

// tfBitsValue converts the little-endian bits of one element (or a varint
// value field) to a float64.
func tfBitsValue(dtype, bits uint64) float64 {
	switch dtype {
	case tfDTFloat:
		return float64(math.Float32frombits(uint32(bits)))
	case tfDTDouble:
		return math.Float64frombits(bits)
	case tfDTInt32:
		return float64(int32(bits))
	case tfDTInt16:
		return float64(int16(bits))
	case tfDTInt8:
		return float64(int8(bits))
	case tfDTUint8:
		return float64(uint8(bits))
	case tfDTUint16:
		return float64(uint16(bits))
	case tfDTInt64:
		return float64(int64(bits))
	case tfDTUint32:
		return float64(uint32(bits))
	case tfDTUint64:
		return float64(bits)
	case tfDTHalf:
		return tfHalfToFloat(uint16(bits))
	case tfDTBFloat16:
		return float64(math.Float32frombits(uint32(uint16(bits)) << 16))
	}
	return math.NaN()
}

// tfHalfToFloat converts IEEE 754 binary16 bits.
func tfHalfToFloat(h uint16) float64 {
	exp, frac := int(h>>10)&0x1f, float64(h&0x3ff)
	var v float64
	switch exp {
	case 0:
		v = math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		v = math.Inf(1)
	default:
		v = math.Ldexp(frac+1024, exp-25)
	}
	if h&0x8000 != 0 {
		v = -v
	}
	return v
}

func tfValueField(num protowire.Number) string {
	switch num {
	case 5:
		return "float_val"
	case 6:
		return "double_val"
	case 7:
		return "int_val"
	case 10:
		return "int64_val"
	case 13:
		return "half_val"
	case 16:
		return "uint32_val"
	}
	return "uint64_val"
}

// tfCountValues counts the values in one occurrence of a repeated numeric
// field, packed or not.
func tfCountValues(num protowire.Number, typ protowire.Type, raw []byte) (int, bool) {
	width := 0 // fixed width, 0 for varints
	switch num {
	case 5:
		width = 4
	case 6:
		width = 8
	}
	switch typ {
	case protowire.BytesType:
		p, _ := protowire.ConsumeBytes(raw)
		if width > 0 {
			return len(p) / width, len(p)%width == 0
		}
		c := 0
		for len(p) > 0 {
			_, n := protowire.ConsumeVarint(p)
			if n < 0 {
				return 0, false
			}
			p = p[n:]
			c++
		}
		return c, true
	case protowire.Fixed32Type:
		return 1, width == 4
	case protowire.Fixed64Type:
		return 1, width == 8
	case protowire.VarintType:
		return 1, width == 0
	}
	return 0, false
}

// shapeElems multiplies the dimensions of a TensorShapeProto, stopping
// early once the tensor is known not to hold exactly one element.
func (wk *tfWorker) shapeElems(b []byte) (int64, error) {
	elems := int64(1)
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, wk.malformed("tensor shape", n)
		}
		b = b[n:]
		if num == 3 && typ == protowire.VarintType {
			// unknown_rank
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return 0, wk.malformed("tensor shape", m)
			}
			if v != 0 {
				elems = -1
			}
			b = b[m:]
			continue
		}
		if num != 2 || typ != protowire.BytesType {
			m := protowire.ConsumeFieldValue(num, typ, b)
			if m < 0 {
				return 0, wk.malformed("tensor shape", m)
			}
			b = b[m:]
			continue
		}
		dim, m := protowire.ConsumeBytes(b)
		if m < 0 {
			return 0, wk.malformed("tensor shape", m)
		}
		b = b[m:]
		size := int64(0) // proto3 default
		for len(dim) > 0 {
			dn, dt, k := protowire.ConsumeTag(dim)
			if k < 0 {
				return 0, wk.malformed("tensor shape", k)
			}
			dim = dim[k:]
			if dn == 1 && dt == protowire.VarintType {
				v, j := protowire.ConsumeVarint(dim)
				if j < 0 {
					return 0, wk.malformed("tensor shape", j)
				}
				size = int64(v)
				dim = dim[j:]
				continue
			}
			j := protowire.ConsumeFieldValue(dn, dt, dim)
			if j < 0 {
				return 0, wk.malformed("tensor shape", j)
			}
			dim = dim[j:]
		}
		if size != 1 {
			elems = -1
		}
	}
	return elems, nil
}
