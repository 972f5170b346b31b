package ledger

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiff(t *testing.T) {
	_, data := sampleLedger(t, 6)
	ls := fileLines(data)
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	rewritten := bytes.Replace(ls[2], []byte(`"verdict":"regressed"`), []byte(`"verdict":"improved"`), 1)

	type result struct {
		Base     int
		NewSeqs  []int64
		NewLines []int
		ErrLine  int // of a *HistoryError; 0 when none
	}
	tests := []struct {
		name       string
		base, head []byte
		want       result
	}{
		{"prefix", join(ls[:4]...), data, result{Base: 4, NewSeqs: []int64{5, 6}, NewLines: []int{5, 6}}},
		{"identical", data, data, result{Base: 6, NewSeqs: []int64{}, NewLines: []int{}}},
		{"empty base", nil, data, result{Base: 0, NewSeqs: []int64{1, 2, 3, 4, 5, 6}, NewLines: []int{1, 2, 3, 4, 5, 6}}},
		{"both empty", nil, nil, result{NewSeqs: []int64{}, NewLines: []int{}}},
		{"rewritten history", join(ls[:4]...), join(ls[0], ls[1], rewritten, ls[3], ls[4], ls[5]), result{ErrLine: 3}},
		{"rewritten first line", join(ls[:2]...), join(ls[1], ls[0]), result{ErrLine: 1}},
		{"base longer than head", data, join(ls[:4]...), result{ErrLine: 5}},
		{"head emptied", data, nil, result{ErrLine: 1}},
		{"line removed in the middle", join(ls[:4]...), join(ls[0], ls[1], ls[3], ls[4]), result{ErrLine: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Diff(tt.base, tt.head)
			var got result
			var he *HistoryError
			switch {
			case errors.As(err, &he):
				got.ErrLine = he.Line
			case err != nil:
				t.Fatalf("Diff: %v", err)
			default:
				got.Base, got.NewSeqs, got.NewLines = d.Base, []int64{}, []int{}
				for _, e := range d.New {
					got.NewSeqs = append(got.NewSeqs, e.Seq)
					got.NewLines = append(got.NewLines, e.Line)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Diff (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiffEntriesMatchHead(t *testing.T) {
	_, data := sampleLedger(t, 5)
	ls := fileLines(data)
	d, err := Diff(bytes.Join(ls[:3], nil), data)
	if err != nil {
		t.Fatal(err)
	}
	all, err := Parse("head", data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(all[3:], d.New); diff != "" {
		t.Errorf("new entries differ from head's (-head +diff):\n%s", diff)
	}
	if _, err := Diff(nil, []byte("{}\nnot json\n")); err == nil || err.Error() != "line 2: not a JSON object: invalid character 'o' in literal null (expecting 'u')" {
		t.Errorf("Diff of a malformed head = %v", err)
	}
	var he *HistoryError
	if _, err := Diff(data, bytes.Join(ls[:3], nil)); !errors.As(err, &he) || he.Error() != "line 4: the base has 5 lines, the head only 3: entries were removed" {
		t.Errorf("Diff = %v", err)
	}
}

// An entry whose evidence an earlier entry recorded, appended again with
// its chain fields made anew (as a branch could): the chain verifies and
// the base is a prefix, so only the comment can say it is no new result.
func TestDiffRepeats(t *testing.T) {
	path, base := sampleLedger(t, 3)
	entries, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{}
	for k, v := range entries[1].Fields {
		switch k {
		case keySchema, keySeq, keyPrev, keyTime, keyHash:
		default:
			body[k] = v
		}
	}
	if _, ok := body["sources"]; !ok {
		t.Fatal("the sample entry records no sources")
	}
	if _, err := Append(path, body, fixtureTime(9)); err != nil {
		t.Fatal(err)
	}
	head, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if rep := Check("ledger.jsonl", head); rep.Problem != nil || rep.Entries != 4 {
		t.Fatalf("the copied entry breaks the chain: %+v", rep)
	}
	d, err := Diff(base, head)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[int64]int64{4: 2}, d.Repeats); diff != "" {
		t.Errorf("repeats (-want +got):\n%s", diff)
	}
	c := Comment("main", d, Report{Entries: 4, Head: "sha256:h"})
	if !strings.Contains(c, "- seq 4: ⚠ repeats the evidence of seq 2 (the same experiment, seeds and source bytes): no new result") {
		t.Errorf("the comment does not say seq 4 repeats seq 2:\n%s", c)
	}
	// Distinct entries repeat nothing.
	if d, err := Diff(nil, base); err != nil || len(d.Repeats) != 0 {
		t.Errorf("repeats among distinct entries: %v, %v", d.Repeats, err)
	}
}
