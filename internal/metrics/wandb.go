package metrics

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// A run-<id>.wandb file is W&B's transaction log: a 7-byte header
// (":W&B", u16 LE 0xBEE1, version 0), then the LevelDB log format in 32 KiB
// blocks counted from the start of the file. A chunk is
//
//	u32 LE CRC-32 (IEEE, unmasked) of type‖data | u16 LE length | u8 type | data
//
// with type FULL=1, FIRST=2, MIDDLE=3, LAST=4; fewer than 7 bytes left in a
// block are padding. Each reassembled record is a wandb_internal.Record;
// its history member (field 2) is a row of HistoryItems whose values are
// JSON text.
//
// Points: one per numeric item of a history row. The step is the row's
// _step item, else HistoryRecord.step.num, else the row's index (said in a
// Note); the wall time is _timestamp. Keys starting with "_" are W&B's own
// and are dropped; non-numeric values (dicts such as histograms and media,
// lists, strings, booleans, null) are skipped and counted in a Note.
//
// Ends of file: an empty file or a bad header is an error; a chunk with a
// bad CRC, an unknown type, or fragments out of order is an error at its
// offset; a record cut off by the end of the file (a partial chunk or a
// FIRST without its LAST) is a truncated tail: the rows before it are kept
// and a Note says where reading stopped. A zero chunk header (the
// zero-filled tail of a preallocated file) ends its block, as in LevelDB.

const (
	wandbBlock      = 32 << 10
	wandbChunkHead  = 7
	wandbFileHead   = 7
	wandbMagic      = 0xBEE1
	wandbMaxRecord  = 256 << 20
	wandbMaxSkipKey = 16

	wandbFull   = 1
	wandbFirst  = 2
	wandbMiddle = 3
	wandbLast   = 4
)

// looksLikeWandb reports whether head starts with the .wandb log header.
func looksLikeWandb(head []byte) bool {
	return len(head) >= 6 && string(head[:4]) == ":W&B" &&
		binary.LittleEndian.Uint16(head[4:6]) == wandbMagic
}

func readWandb(path string, sink Sink) (Info, error) {
	f, _, err := binOpen(path, sink)
	if err != nil {
		return Info{Format: Wandb}, err
	}
	defer f.Close()
	return readWandbFrom(path, bufio.NewReaderSize(f.r, 1<<20), sink)
}

// wbTag is what a read knows about one history key.
type wbTag struct {
	name string
	want bool
}

// wandbDecoder delivers the history points of one log.
type wandbDecoder struct {
	path    string
	sink    Sink
	tags    map[string]wbTag
	skipped map[string]int64 // non-numeric values by JSON kind
	points  int64
	rows    int64
	noStep  int64
	off     int64 // record being decoded
	key     []byte
	// exited is set by the run's exit record (Record.exit, field 18),
	// which wandb writes when the run ends; exitCode is its code.
	exited   bool
	exitCode int32
	// inRow is the history row (d.rows) that last gave each wanted tag a
	// value: a row that gives one tag two values (a key and a nested_key
	// that join to the same name) is refused.
	inRow map[string]int64
}

func (d *wandbDecoder) errorf(format string, args ...any) *Error {
	return &Error{Path: d.path, Offset: d.off, Msg: fmt.Sprintf(format, args...)}
}

func (d *wandbDecoder) malformed(what string, n int) *Error {
	return d.errorf("malformed %s (%v)", what, protowire.ParseError(n))
}

// readWandbFrom reads a .wandb log from r.
func readWandbFrom(path string, r io.Reader, sink Sink) (Info, error) {
	info := Info{Format: Wandb}
	d := &wandbDecoder{path: path, sink: sink, tags: make(map[string]wbTag), skipped: make(map[string]int64), inRow: make(map[string]int64)}
	fail := func(off int64, format string, args ...any) (Info, error) {
		info.Points = d.points
		return info, &Error{Path: path, Offset: off, Msg: fmt.Sprintf(format, args...)}
	}
	var typeCRC [5]uint32
	for t := range typeCRC {
		typeCRC[t] = crc32.ChecksumIEEE([]byte{byte(t)})
	}

	block := make([]byte, wandbBlock)
	var rec []byte // a record being reassembled
	inRec, recOff := false, int64(0)
	trunc := int64(-1) // where a truncated tail starts
	for base := int64(0); ; base += wandbBlock {
		m, err := io.ReadFull(r, block)
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
			return fail(base, "read: %s", osMsg(err))
		}
		b := block[:m]
		pos := 0
		if base == 0 {
			switch {
			case m == 0:
				return fail(0, "empty file")
			case m < 4 || string(b[:4]) != ":W&B":
				return fail(0, "not a W&B transaction log (no :W&B header)")
			case m < wandbFileHead:
				return fail(0, "truncated header (%d of %d bytes)", m, wandbFileHead)
			case binary.LittleEndian.Uint16(b[4:6]) != wandbMagic:
				return fail(4, "bad .wandb header magic %#04x", binary.LittleEndian.Uint16(b[4:6]))
			case b[6] != 0:
				return fail(6, "unsupported .wandb log version %d", b[6])
			}
			pos = wandbFileHead
		}
		last := m < wandbBlock
		for {
			left := m - pos
			if left < wandbChunkHead {
				if last && left > 0 && !wandbAllZero(b[pos:]) {
					trunc = base + int64(pos)
				}
				break
			}
			off := base + int64(pos)
			crc := binary.LittleEndian.Uint32(b[pos:])
			n := int(binary.LittleEndian.Uint16(b[pos+4:]))
			typ := b[pos+6]
			if typ == 0 && n == 0 && crc == 0 {
				break
			}
			if n > left-wandbChunkHead {
				if last {
					trunc = off
					break
				}
				return fail(off, "chunk of %d bytes runs past the end of its 32 KiB block", n)
			}
			if typ < wandbFull || typ > wandbLast {
				return fail(off, "bad chunk type %d", typ)
			}
			data := b[pos+wandbChunkHead : pos+wandbChunkHead+n]
			if crc32.Update(typeCRC[typ], crc32.IEEETable, data) != crc {
				return fail(off, "chunk CRC mismatch")
			}
			pos += wandbChunkHead + n
			switch typ {
			case wandbFull, wandbFirst:
				if inRec {
					return fail(recOff, "record has no last chunk (a new record starts at byte %d)", off)
				}
				if typ == wandbFull {
					d.off = off
					if err := d.record(data); err != nil {
						info.Points = d.points
						return info, err
					}
					continue
				}
				rec, inRec, recOff = append(rec[:0], data...), true, off
			case wandbMiddle, wandbLast:
				if !inRec {
					return fail(off, "record continuation without a first chunk")
				}
				if len(rec)+n > wandbMaxRecord {
					return fail(recOff, "record larger than the %d-byte limit", wandbMaxRecord)
				}
				rec = append(rec, data...)
				if typ == wandbLast {
					inRec = false
					d.off = recOff
					if err := d.record(rec); err != nil {
						info.Points = d.points
						return info, err
					}
				}
			}
		}
		if last || trunc >= 0 {
			break
		}
	}
	if inRec && trunc < 0 {
		trunc = recOff
	} else if inRec {
		trunc = min(trunc, recOff)
	}

	info.Points = d.points
	if len(d.skipped) > 0 {
		info.Notes = append(info.Notes, wandbSkipNote(d.skipped))
	}
	if d.noStep > 0 {
		info.Notes = append(info.Notes, fmt.Sprintf("%d history rows had no _step; their row index was used as the step", d.noStep))
	}
	if d.rows == 0 {
		info.Notes = append(info.Notes, "no history rows")
	}
	if trunc >= 0 {
		info.Notes = append(info.Notes, fmt.Sprintf("stopped at a truncated record at byte %d (the writer was still running or crashed)", trunc))
		info.TruncatedAt = trunc
	}
	switch {
	case !d.exited:
		info.Unfinished = "the log has no exit record: the run is still running, or its process died before it could end the run"
	case d.exitCode != 0:
		info.Unfinished = fmt.Sprintf("the run's exit record says exit code %d: it failed", d.exitCode)
	}
	return info, nil
}

func wandbAllZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// record decodes one Record, delivering its history row if it has one.
func (d *wandbDecoder) record(b []byte) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return d.malformed("record", n)
		}
		b = b[n:]
		if num == 18 && typ == protowire.BytesType {
			// RunExitRecord: exit_code (1), runtime (2).
			e, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return d.malformed("record", m)
			}
			d.exited, d.exitCode = true, int32(lastVarint(e, 1))
			b = b[m:]
			continue
		}
		if num == 2 && typ == protowire.BytesType {
			h, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return d.malformed("record", m)
			}
			if err := d.history(h); err != nil {
				return err
			}
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return d.malformed("record", m)
		}
		b = b[m:]
	}
	return nil
}

// item splits a HistoryItem into its key (key, or nested_key joined with
// "/") and its JSON value. The key may live in d.key until the next call.
func (d *wandbDecoder) item(b []byte) (key, value []byte, err error) {
	var direct []byte
	hasDirect := false
	d.key = d.key[:0]
	nested := 0
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, nil, d.malformed("history item", n)
		}
		b = b[n:]
		if typ == protowire.BytesType && (num == 1 || num == 2 || num == 16) {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return nil, nil, d.malformed("history item", m)
			}
			switch num {
			case 1:
				direct, hasDirect = v, true
			case 2:
				if nested > 0 {
					d.key = append(d.key, '/')
				}
				d.key = append(d.key, v...)
				nested++
			case 16:
				value = v
			}
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return nil, nil, d.malformed("history item", m)
		}
		b = b[m:]
	}
	if hasDirect && len(direct) > 0 {
		return direct, value, nil
	}
	return d.key, value, nil
}

// history delivers one HistoryRecord.
func (d *wandbDecoder) history(b []byte) error {
	d.rows++
	var step, numStep int64
	hasStep, hasNum := false, false
	wall := 0.0
	for p := b; len(p) > 0; {
		num, typ, n := protowire.ConsumeTag(p)
		if n < 0 {
			return d.malformed("history record", n)
		}
		p = p[n:]
		switch {
		case num == 1 && typ == protowire.BytesType:
			it, m := protowire.ConsumeBytes(p)
			if m < 0 {
				return d.malformed("history record", m)
			}
			key, val, err := d.item(it)
			if err != nil {
				return err
			}
			switch string(key) {
			case "_step":
				s, err := wandbStep(val)
				if err != nil {
					return d.errorf("history _step %q: %v", val, err)
				}
				step, hasStep = s, true
			case "_timestamp":
				if f, kind := wandbJSONNumber(val); kind == "" {
					wall = f
				}
			}
			n = m
		case num == 2 && typ == protowire.BytesType:
			var hs []byte
			if hs, n = protowire.ConsumeBytes(p); n >= 0 {
				numStep, hasNum = wandbStepNum(hs), true
			}
		default:
			n = protowire.ConsumeFieldValue(num, typ, p)
		}
		if n < 0 {
			return d.malformed("history record", n)
		}
		p = p[n:]
	}
	switch {
	case hasStep:
	case hasNum:
		step = numStep
	default:
		step = d.rows - 1
		d.noStep++
	}

	// The record was checked above.
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		b = b[n:]
		if num != 1 || typ != protowire.BytesType {
			b = b[protowire.ConsumeFieldValue(num, typ, b):]
			continue
		}
		it, m := protowire.ConsumeBytes(b)
		b = b[m:]
		key, val, _ := d.item(it)
		if len(key) == 0 || key[0] == '_' {
			continue
		}
		t, ok := d.tags[string(key)]
		if !ok {
			t = wbTag{name: string(key)}
			t.want = d.sink.Want(t.name)
			d.tags[t.name] = t
		}
		if !t.want {
			continue
		}
		v, kind := wandbJSONNumber(val)
		switch kind {
		case "":
		case "invalid":
			return d.errorf("history value of %q is not JSON: %q", key, wandbClip(val))
		default:
			if _, ok := d.skipped[kind]; !ok && len(d.skipped) >= wandbMaxSkipKey {
				kind = "other"
			}
			d.skipped[kind]++
			continue
		}
		if d.inRow[t.name] == d.rows {
			return d.errorf("the tag %q has two values in one history row (a key and a nested key that join to the same name): which is the tag's cannot be told", t.name)
		}
		d.inRow[t.name] = d.rows
		if err := d.sink.Point(t.name, Point{Step: step, WallTime: wall, Value: v}); err != nil {
			return err
		}
		d.points++
	}
	return nil
}

// wandbStepNum reads HistoryStep.num; absent means 0.
func wandbStepNum(b []byte) int64 {
	return int64(lastVarint(b, 1))
}

// lastVarint reads varint field num of message b as protobuf reads a
// singular field: its last value, 0 when absent. A malformed message
// yields what was read before the fault.
func lastVarint(b []byte, num protowire.Number) uint64 {
	var v uint64
	for len(b) > 0 {
		n, typ, k := protowire.ConsumeTag(b)
		if k < 0 {
			return v
		}
		b = b[k:]
		if n != num || typ != protowire.VarintType {
			if k = protowire.ConsumeFieldValue(n, typ, b); k < 0 {
				return v
			}
			b = b[k:]
			continue
		}
		x, m := protowire.ConsumeVarint(b)
		if m < 0 {
			return v
		}
		v, b = x, b[m:]
	}
	return v
}

// wandbStep parses a _step value: a JSON integer (or an integral float).
func wandbStep(v []byte) (int64, error) {
	s := string(bytes.TrimSpace(v))
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<62 {
		return 0, errors.New("not an integer")
	}
	return int64(f), nil
}

// wandbJSONNumber reads a JSON value as a number. kind is "" for a number
// (NaN and ±Infinity included, as Python's json writes them), the JSON
// kind of any other value, or "invalid".
func wandbJSONNumber(v []byte) (float64, string) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return 0, "invalid"
	}
	switch v[0] {
	case '{':
		return 0, "objects (histograms, media, tables)"
	case '[':
		return 0, "arrays"
	case '"':
		return 0, "strings"
	case 't', 'f':
		return 0, "booleans"
	case 'n':
		return 0, "nulls"
	case 'N':
		if string(v) == "NaN" {
			return math.NaN(), ""
		}
	case 'I':
		if string(v) == "Infinity" {
			return math.Inf(1), ""
		}
	case '-':
		if string(v) == "-Infinity" {
			return math.Inf(-1), ""
		}
		if len(v) > 1 && v[1] >= '0' && v[1] <= '9' {
			return wandbJSONFloat(v)
		}
	default:
		if v[0] >= '0' && v[0] <= '9' {
			return wandbJSONFloat(v)
		}
	}
	return 0, "invalid"
}

// wandbJSONFloat parses a JSON number; one too large for a float64 is ±Inf.
func wandbJSONFloat(v []byte) (float64, string) {
	for _, c := range v {
		if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			return 0, "invalid"
		}
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, "invalid"
	}
	return f, ""
}

func wandbClip(v []byte) string {
	if len(v) > 40 {
		return string(v[:40]) + "…"
	}
	return string(v)
}

// wandbSkipNote says, in one sentence, which values were not numbers.
func wandbSkipNote(skipped map[string]int64) string {
	kinds := make([]string, 0, len(skipped))
	var total int64
	for k, n := range skipped {
		kinds = append(kinds, k)
		total += n
	}
	sort.Strings(kinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s: %d", k, skipped[k])
	}
	return fmt.Sprintf("skipped %d non-numeric history values (%s)", total, strings.Join(parts, ", "))
}
