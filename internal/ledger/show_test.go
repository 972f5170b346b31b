package ledger

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func entryOf(t *testing.T, line string) Entry {
	t.Helper()
	e, err := parseLine([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestShowCellsAndCSV(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		cells []string
		csv   CSVRow
	}{{
		name:  "full entry, numbers as recorded",
		line:  `{"seq":3,"time":"2026-01-02T03:04:05Z","hash":"sha256:ab","experiment":"lr-up","run":"r1","primary":{"name":"return","mean":1.50,"std":0.25,"n":3,"ci95":[1.0,2.00]},"baseline":{"delta":0.5,"p_value":0.04},"verdict":"improved"}`,
		cells: []string{"3", "2026-01-02T03:04:05Z", "lr-up", "r1", "return", "1.50", "3", "improved"},
		csv: CSVRow{Seq: 3, Time: "2026-01-02T03:04:05Z", Experiment: "lr-up", Run: "r1", Metric: "return", Mean: "1.50", Std: "0.25", N: "3",
			CILow: "1.0", CIHigh: "2.00", BaselineDelta: "0.5", PValue: "0.04", Verdict: "improved", Hash: "sha256:ab"},
	}, {
		name:  "per-seed runs, nothing else: dashes in the table, empty CSV cells",
		line:  `{"seq":1,"time":"t","hash":"h","runs":["a","","b"],"primary":{"ci95":[1]}}`,
		cells: []string{"1", "t", "-", "a,b", "-", "-", "-", "-"},
		csv:   CSVRow{Seq: 1, Time: "t", Run: "a,b", Hash: "h"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := entryOf(t, tt.line)
			if diff := cmp.Diff(tt.cells, e.ShowCells()); diff != "" {
				t.Errorf("ShowCells (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.csv, e.CSV()); diff != "" {
				t.Errorf("CSV (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOfExperiment(t *testing.T) {
	a := entryOf(t, `{"experiment":"a"}`)
	b := entryOf(t, `{"experiment":"b"}`)
	ids := func(es []Entry) []string {
		out := []string{}
		for _, e := range es {
			out = append(out, e.String("experiment"))
		}
		return out
	}
	for _, tt := range []struct {
		id   string
		want []string
	}{{"", []string{"a", "b", "a"}}, {"a", []string{"a", "a"}}, {"c", []string{}}} {
		got := OfExperiment([]Entry{a, b, a}, tt.id)
		if got == nil {
			t.Errorf("OfExperiment(%q) = nil, want an empty list", tt.id)
		}
		if diff := cmp.Diff(tt.want, ids(got)); diff != "" {
			t.Errorf("OfExperiment(%q) (-want +got):\n%s", tt.id, diff)
		}
	}
}

func TestList(t *testing.T) {
	_, good := sampleLedger(t, 4)
	all, _ := File{}.Load(good)
	exp := all[1].String("experiment")
	same := len(OfExperiment(all, exp))
	ls := fileLines(good)
	tampered := bytes.Join([][]byte{ls[0], ls[1], bytes.Replace(ls[2], []byte(`"seq":3`), []byte(`"seq":9`), 1), ls[3]}, nil)
	tests := []struct {
		name      string
		data      []byte
		id        string
		entries   int
		verified  int
		problemAt int
	}{
		{"all", good, "", 4, 4, 0},
		{"one experiment", good, exp, same, 4, 0},
		{"up to a bad line", tampered, "", 2, 2, 3},
		{"empty", nil, "", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := File{Name: "L"}.List(tt.data, tt.id)
			problemAt := 0
			if l.Problem != nil {
				problemAt = l.Problem.Line
			}
			got := []int{len(l.Entries), l.Verified, problemAt}
			if d := cmp.Diff([]int{tt.entries, tt.verified, tt.problemAt}, got); d != "" || l.Schema != ShowSchema || l.Entries == nil {
				t.Errorf("entries, verified, problem line (-want +got):\n%s", d)
			}
			if rows := l.CSV(); len(rows) != len(l.Entries) {
				t.Errorf("%d CSV rows for %d entries", len(rows), len(l.Entries))
			}
		})
	}
}
