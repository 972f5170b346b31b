package metrics

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// tfRewindSink is a binSink that can be rewound, so that a read takes the
// one-pass way.
type tfRewindSink struct {
	*binSink
	rewinds int
}

func (s *tfRewindSink) Rewind() {
	s.points, s.order = map[string][]Point{}, nil
	s.rewinds++
}

// tfOutcome reads data with a sink that cannot be rewound (two passes)
// and with one that can (one pass, chunk bytes a chunk), and returns both
// outcomes, and how often the one-pass read was rewound.
func tfOutcomes(t *testing.T, data []byte, chunk int64) (two, one binFuzzOutcome, rewinds int) {
	t.Helper()
	outcome := func(s *binSink, info Info, err error) binFuzzOutcome {
		o := binFuzzOutcome{Info: info, Tags: s.order}
		seen := map[string]int{}
		for _, tag := range s.order {
			o.Points = append(o.Points, s.points[tag][seen[tag]])
			seen[tag]++
		}
		if err != nil {
			o.Err = err.Error()
		}
		if info.Points != int64(len(s.order)) {
			t.Fatalf("Info.Points %d, delivered %d", info.Points, len(s.order))
		}
		s.checkAsked(t)
		return o
	}
	s := newBinSink()
	info, err := readTFEventsFrom("f.tfevents", bytes.NewReader(data), int64(len(data)), s)
	two = outcome(s, info, err)

	rs := &tfRewindSink{binSink: newBinSink()}
	st := &tfReadState{path: "f.tfevents", r: bytes.NewReader(data), size: int64(len(data)), win: tfWindowSize(int64(len(data))),
		chunk: chunk, crc8: newTFCRC8(), tab: crc32.MakeTable(crc32.Castagnoli)}
	info, err = st.read(rs, Info{Format: TFEvents})
	return two, outcome(rs.binSink, info, err), rs.rewinds
}

// tfSameOutcomes fails unless both ways read data alike, and alike
// summarise it for inspect.
func tfSameOutcomes(t *testing.T, data []byte, chunk int64) int {
	t.Helper()
	two, one, rewinds := tfOutcomes(t, data, chunk)
	if !binSameOutcome(&two, &one) {
		t.Fatalf("chunks of %d bytes: one pass differs from two (-two +one):\n%s", chunk, cmp.Diff(two, one, cmpopts.EquateNaNs(), cmpopts.EquateEmpty()))
	}

	type summary struct {
		Tags []TagSummary
		Info Info
		Err  string
	}
	summarize := func(s *summarySink, sink Sink, chunk int64) summary {
		st := &tfReadState{path: "f.tfevents", r: bytes.NewReader(data), size: int64(len(data)), win: tfWindowSize(int64(len(data))),
			chunk: chunk, crc8: newTFCRC8(), tab: crc32.MakeTable(crc32.Castagnoli)}
		info, err := st.read(sink, Info{Format: TFEvents})
		sortTags(s.tags)
		out := summary{Tags: s.tags, Info: info}
		if err != nil {
			out.Err = err.Error()
		}
		return out
	}
	byPoint := &summarySink{index: map[string]int{}}
	want := summarize(byPoint, tfPointSink{byPoint}, chunk)
	twoSums, oneSums := &summarySink{index: map[string]int{}}, &summarySink{index: map[string]int{}}
	for _, got := range []summary{
		summarize(twoSums, tfTwoPassSummary{tfPointSink{twoSums}}, chunk),
		summarize(oneSums, oneSums, chunk),
	} {
		if diff := cmp.Diff(want, got, cmpopts.EquateNaNs(), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("chunks of %d bytes: summaries differ (-points +summed):\n%s", chunk, diff)
		}
	}
	return rewinds
}

// tfPointSink passes points to a summarySink one by one: no sums, no
// rewinding.
type tfPointSink struct{ s *summarySink }

func (p tfPointSink) Want(tag string) bool             { return p.s.Want(tag) }
func (p tfPointSink) Point(tag string, pt Point) error { return p.s.Point(tag, pt) }

// tfTwoPassSummary takes sums but cannot be rewound: two passes.
type tfTwoPassSummary struct{ tfPointSink }

func (p tfTwoPassSummary) merge(tag string, n int64, firstStep, lastStep int64, last float64, nonFinite int64) {
	p.s.merge(tag, n, firstStep, lastStep, last, nonFinite)
}

// The one-pass read gives what the two passes give, whatever the chunk
// size, for files with restarts, large records, false starts, corrupt
// records and truncated tails; it reads in one pass unless a restart
// discards something or a record fails.
func TestTFEventsOnePass(t *testing.T) {
	le32 := binary.LittleEndian.AppendUint32
	frames := func(recs ...[]byte) []byte {
		var b []byte
		for _, r := range recs {
			b = append(b, tfFramed(r)...)
		}
		return b
	}
	var plain [][]byte
	plain = append(plain, tfEvent(1, 0, tfFileVersion()))
	for i := range 3000 {
		plugin := ""
		if i == 0 {
			plugin = "scalars"
		}
		plain = append(plain, tfEvent(float64(i), int64(i), tfSummary(tfSimpleValue("a", float32(i)), tfSimpleValue("b", float32(-i)))))
		if i%7 == 0 {
			plain = append(plain, tfEvent(float64(i), int64(i), tfSummary(
				tfTensorValue("t", plugin, tfTensor(tfDTFloat, nil, tfContent(le32(nil, math.Float32bits(float32(i)))))),
				tfTensorValue("img", "images", tfTensor(7, []int64{3}, tfBytesField(nil, 8, []byte("png")))))))
		}
	}
	good := frames(plain...)

	// A START that discards nothing: at the beginning, and past every step.
	harmless := frames(append([][]byte{tfEvent(0, 0, tfSessionLog(1))}, append(plain, tfEvent(9, 5000, tfSessionLog(1)))...)...)
	// A START that discards points written before it.
	restarted := frames(append(append(append([][]byte{}, plain[:2000]...), tfEvent(1, 1500, tfSessionLog(1))), plain[1500:]...)...)
	big := make([]byte, 1200<<10)
	for i := range big {
		big[i] = byte(i * 13)
	}
	large := frames(append(append(append([][]byte{}, plain[:500]...),
		tfEvent(1, 0, tfBytesField(nil, 4, big)),
		tfEvent(2, 499, tfSummary(tfBytesField(tfBytesField(nil, 1, []byte("img")), 4, big), tfSimpleValue("a", 1)))), plain[500:]...)...)
	// Records that hold what looks like a record header, in a tag.
	fake := tfFramed([]byte("12345"))[:tfHeaderLen]
	var falseStarts [][]byte
	for i := range 400 {
		tag := append(bytes.Repeat(fake, 3), "x"...)
		falseStarts = append(falseStarts, tfEvent(float64(i), int64(i), tfSummary(tfSimpleValue(string(tag), float32(i)))))
	}
	badData := append([]byte{}, good...)
	badData[len(good)/2] ^= 1
	badLength := append([]byte{}, good...)
	at := bytes.Index(badLength[len(good)/3:], frames(plain[1000])) + len(good)/3
	badLength[at+1] ^= 0x10

	cases := []struct {
		name    string
		data    []byte
		rewinds int
	}{
		{"plain", good, 0},
		{"harmless restarts", harmless, 0},
		{"restart", restarted, 1},
		{"large records", large, 0},
		{"false starts", frames(falseStarts...), 0},
		{"truncated", good[:len(good)-7], 0},
		{"truncated header", append(append([]byte{}, good...), 1, 2, 3), 0},
		{"bad data", badData, 1},
		{"bad length", badLength, 1},
		{"one record", frames(plain[1]), 0},
	}
	for _, c := range cases {
		for _, chunk := range []int64{1, 13, 64, 1000, 4096, 1 << 20} {
			if rewinds := tfSameOutcomes(t, c.data, chunk); rewinds != c.rewinds {
				t.Errorf("%s, chunks of %d bytes: rewound %d times, want %d", c.name, chunk, rewinds, c.rewinds)
			}
		}
	}
}

func FuzzTFEventsOnePass(f *testing.F) {
	dir := filepath.Join("..", "..", "..", "shared", "metrics-samples")
	for _, name := range []string{
		"tfevents/tensorboa.rs/events.out.tfevents.1661684667.applepie4",
		"tfevents/torch-writer/new_style_float/events.out.tfevents.1795952470.vm.415.1",
		"sb3/formalRL/events.out.tfevents.1693326834.harryting-OMEN.273496.0",
	} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			f.Add(b, uint16(100))
			f.Add(b, uint16(4000))
		}
	}
	var b []byte
	for i := range 50 {
		b = append(b, tfFramed(tfEvent(float64(i), int64(i%20), tfSummary(tfSimpleValue("x", float32(i)))))...)
		if i%9 == 0 {
			b = append(b, tfFramed(tfEvent(float64(i), int64(i/2), tfSessionLog(1)))...)
		}
	}
	f.Add(b, uint16(30))
	f.Add(b[:len(b)-5], uint16(7))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16) {
		if len(data) == 0 {
			return
		}
		tfSameOutcomes(t, data, 1+int64(chunk))
	})
}

// The quick reading of a scalar tensor agrees with the general one
// wherever it takes the tensor.
func FuzzTFQuickScalarTensor(f *testing.F) {
	le32, le64 := binary.LittleEndian.AppendUint32, binary.LittleEndian.AppendUint64
	f.Add(tfTensor(tfDTFloat, nil, tfBytesField(nil, 5, le32(nil, math.Float32bits(1.5)))))
	f.Add(tfTensor(tfDTDouble, nil, tfBytesField(nil, 6, le64(nil, math.Float64bits(-2)))))
	f.Add(tfTensor(tfDTFloat, nil, tfContent(le32(nil, math.Float32bits(float32(math.NaN()))))))
	f.Add([]byte{0x08, 0x01, 0x2a, 0x04, 0, 0, 0, 0x3f}) // torch's new style: no shape
	f.Add([]byte{0x08, 0x02, 0x22, 0x08, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{0x08, 0x01, 0x12, 0x00, 0x2a, 0x08, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0x08, 0x01, 0x2d, 0, 0, 0xc0, 0x7f})
	f.Add([]byte{0x08, 0x02, 0x12, 0x00, 0x31, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := tfQuickScalarTensor(b)
		if !ok {
			return
		}
		wk := &tfWorker{st: &tfReadState{path: "f"}}
		want, why, err := wk.anyTensor(b)
		if err != nil || why != "" || math.Float64bits(want) != math.Float64bits(v) {
			t.Fatalf("% x: quick %v, general %v %q %v", b, v, want, why, err)
		}
	})
}

// The quick reading of a value's metadata agrees with the general one
// wherever it takes the metadata.
func FuzzTFQuickPluginName(f *testing.F) {
	f.Add(tfBytesField(nil, 1, tfBytesField(nil, 1, []byte("scalars"))))
	f.Add(tfBytesField(nil, 1, tfBytesField(tfBytesField(nil, 1, []byte("scalars")), 2, []byte("x"))))
	f.Add([]byte{0x0a, 0x02, 0x0a, 0x00})
	f.Fuzz(func(t *testing.T, md []byte) {
		name, ok := tfQuickPluginName(md)
		if !ok {
			return
		}
		if want, found := tfPluginName(md); !found || !bytes.Equal(want, name) {
			t.Fatalf("% x: quick %q, general %q %v", md, name, want, found)
		}
	})
}

// Inspect's inline sums agree with the points one by one where tags of
// one length differ in one byte only (at each place, for names of 7 to 17
// bytes, whose words overlap or not) and do not always come in the same
// order, and where steps repeat, change in their varint's length, or need
// more than 8 bytes.
func TestTFEventsInlineSums(t *testing.T) {
	var data []byte
	steps := []int64{0, 0, 1, 127, 128, 128, 1 << 20, 1 << 20, 1<<56 - 1, 1 << 56, 1 << 62, 5}
	for _, length := range []int{7, 8, 9, 12, 15, 16, 17} {
		var names []string
		for i := range length {
			name := []byte(strings.Repeat("m", length))
			name[i] = 'x'
			names = append(names, string(name))
		}
		names = append(names, strings.Repeat("m", length))
		for k, step := range steps {
			// Each step skips a tag, so that the tag that followed one
			// last time is often not the one that follows it now.
			for i, name := range names {
				if i != k%len(names) {
					data = append(data, tfFramed(tfEvent(float64(k), step, tfSummary(tfSimpleValue(name, float32(k*100+i)))))...)
				}
			}
		}
	}
	for _, chunk := range []int64{97, 4096, 1 << 20} {
		tfSameOutcomes(t, data, chunk)
	}
}
