package metrics

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// binFuzzSamples adds the real sample files under dir that exist as seeds.
func binFuzzSamples(f *testing.F, names ...string) {
	dir := filepath.Join("..", "..", "..", "shared", "metrics-samples")
	for _, name := range names {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			f.Add(b)
		}
	}
}

// binFuzzOutcome is what a read gave: its points in order, and its end.
type binFuzzOutcome struct {
	Tags   []string
	Points []Point
	Info   Info
	Err    string
}

// binFuzzCheck reads data twice with read: the reads must agree, an error
// must be an *Error on one line, and Info.Points must count what arrived.
func binFuzzCheck(t *testing.T, data []byte, read func(sink Sink) (Info, error)) {
	var outs [2]binFuzzOutcome
	for i := range outs {
		s := newBinSink()
		info, err := read(s)
		o := &outs[i]
		o.Info, o.Tags = info, s.order
		seen := map[string]int{}
		for _, tag := range s.order {
			o.Points = append(o.Points, s.points[tag][seen[tag]])
			seen[tag]++
		}
		if info.Points != int64(len(s.order)) {
			t.Fatalf("Info.Points %d, delivered %d", info.Points, len(s.order))
		}
		for tag, n := range s.asked {
			if n != 1 {
				t.Fatalf("Want(%q) called %d times", tag, n)
			}
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if bytes.ContainsRune([]byte(e.Error()), '\n') {
				t.Fatalf("error %q is not one line", e.Error())
			}
			if e.Offset < 0 || e.Offset > int64(len(data)) {
				t.Fatalf("error offset %d outside the %d-byte file", e.Offset, len(data))
			}
			o.Err = e.Error()
		}
	}
	if !binSameOutcome(&outs[0], &outs[1]) {
		t.Fatalf("two reads differ (-first +second):\n%s", cmp.Diff(outs[0], outs[1], cmpopts.EquateNaNs(), cmpopts.EquateEmpty()))
	}
}

// binSameOutcome is a quick equality for binFuzzOutcome, NaN equal to NaN.
func binSameOutcome(a, b *binFuzzOutcome) bool {
	if a.Err != b.Err || a.Info.Points != b.Info.Points || a.Info.Format != b.Info.Format ||
		len(a.Info.Notes) != len(b.Info.Notes) || len(a.Tags) != len(b.Tags) || len(a.Points) != len(b.Points) {
		return false
	}
	for i := range a.Info.Notes {
		if a.Info.Notes[i] != b.Info.Notes[i] {
			return false
		}
	}
	for i := range a.Tags {
		p, q := a.Points[i], b.Points[i]
		if a.Tags[i] != b.Tags[i] || p.Step != q.Step || math.Float64bits(p.WallTime) != math.Float64bits(q.WallTime) ||
			math.Float64bits(p.Value) != math.Float64bits(q.Value) {
			return false
		}
	}
	return true
}

func FuzzTFEvents(f *testing.F) {
	binFuzzSamples(f,
		"tfevents/tensorboa.rs/events.out.tfevents.1661684667.applepie4",
		"tfevents/torch-writer/old_simple_value/events.out.tfevents.1795952470.vm.415.0",
		"tfevents/torch-writer/new_style_float/events.out.tfevents.1795952470.vm.415.1",
		"tfevents/torch-writer/new_style_double/events.out.tfevents.1795952470.vm.415.2",
		"sb3/formalRL/events.out.tfevents.1693326834.harryting-OMEN.273496.0",
	)
	le32 := binary.LittleEndian.AppendUint32
	le64 := binary.LittleEndian.AppendUint64
	frames := func(recs ...[]byte) []byte {
		var b []byte
		for _, r := range recs {
			b = append(b, tfFramed(r)...)
		}
		return b
	}
	f.Add([]byte{})
	f.Add(frames(tfEvent(1, 0, tfFileVersion())))
	f.Add(frames(
		tfEvent(1, 0, tfFileVersion()),
		tfEvent(2, 5, tfSummary(
			tfTensorValue("f32", "scalars", tfTensor(tfDTFloat, nil, tfContent(le32(nil, math.Float32bits(1.5))))),
			tfTensorValue("f64", "scalars", tfTensor(tfDTDouble, nil, tfContent(le64(nil, math.Float64bits(2))))),
			tfTensorValue("i64", "scalars", tfTensor(tfDTInt64, nil, tfContent(le64(nil, 7)))),
			tfTensorValue("vec", "scalars", tfTensor(tfDTFloat, []int64{2}, tfContent(make([]byte, 8)))),
			tfTensorValue("img", "images", tfTensor(7, []int64{3}, tfBytesField(nil, 8, []byte("png")))),
		)),
		tfEvent(3, 0, tfSummary(tfSimpleValue("x", 1))),
		tfEvent(4, 3, tfSessionLog(1)),
		tfEvent(5, 1, tfSummary(tfSimpleValue("x", 2), tfTensorValue("f32", "", tfTensor(tfDTFloat, nil, tfBytesField(nil, 5, le32(nil, 0)))))),
	))
	f.Add(frames(tfEvent(1, -3, tfSummary(tfSimpleValue("neg", -1)))))
	good := frames(tfEvent(1, 1, tfSummary(tfSimpleValue("x", 1))), tfEvent(2, 2, tfSummary(tfSimpleValue("x", 2))))
	f.Add(good[:len(good)-3])
	bad := append([]byte{}, good...)
	bad[20] ^= 1
	f.Add(bad)
	f.Fuzz(func(t *testing.T, data []byte) {
		binFuzzCheck(t, data, func(sink Sink) (Info, error) {
			return readTFEventsFrom("fuzz.tfevents", bytes.NewReader(data), int64(len(data)), sink)
		})
	})
}

func FuzzWandb(f *testing.F) {
	binFuzzSamples(f, "wandb/ConceptPPO/run-20230723_093735-mxaehod4/run-mxaehod4.wandb")
	f.Add([]byte{})
	f.Add(wbLog())
	f.Add(wbLog(
		wbOther(1),
		wbHistory(2, -1, wbItem("loss", "0.5"), wbItem("_step", "0"), wbItem("_timestamp", "1.5"), wbItem("h", `{"_type": "histogram"}`),
			wbNestedItem([]string{"a", "b"}, "NaN"), wbItem("s", `"x"`)),
		wbHistory(3, 4, wbItem("loss", "-Infinity")),
		wbHistory(4, -1, wbItem("loss", "1e5")),
	))
	var rows [][]byte
	for i := range 40 {
		rows = append(rows, wbHistory(uint64(i), -1, wbItem("v", fmt.Sprint(i)), wbItem("pad", `"`+string(bytes.Repeat([]byte("p"), 1500))+`"`)))
	}
	long := wbLog(rows...)
	f.Add(long)
	f.Add(long[:len(long)-100])
	f.Fuzz(func(t *testing.T, data []byte) {
		binFuzzCheck(t, data, func(sink Sink) (Info, error) {
			return readWandbFrom("fuzz.wandb", bytes.NewReader(data), sink)
		})
	})
}
