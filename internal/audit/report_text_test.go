package audit

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSectionTerminal(t *testing.T) {
	long := Section{Header: []string{"TAG", "ROLE"}, Long: "tags"}
	for i := range terminalRows + 3 {
		long.Rows = append(long.Rows, []string{fmt.Sprintf("t%d", i), "eval"})
	}
	header, rows, note, ok := long.Terminal()
	if !ok || len(rows) != terminalRows || note != "... 3 more tags (see --json)" {
		t.Errorf("long section: ok %v, %d rows, note %q", ok, len(rows), note)
	}
	if diff := cmp.Diff([]string{"  TAG", "ROLE"}, header); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"  t0", "eval"}, rows[0]); diff != "" {
		t.Errorf("first row (-want +got):\n%s", diff)
	}
	if long.Header[0] != "TAG" || long.Rows[0][0] != "t0" {
		t.Errorf("Terminal changed the section: %q %q", long.Header[0], long.Rows[0][0])
	}
	if _, _, note, ok := (Section{Header: []string{"X"}}).Terminal(); !ok || note != "(none found)" {
		t.Errorf("empty section: ok %v, note %q; want (none found)", ok, note)
	}
	if _, _, _, ok := (Section{Header: []string{"X"}, Quiet: true}).Terminal(); ok {
		t.Error("empty quiet section is shown")
	}
}

func TestReportRows(t *testing.T) {
	r := &Report{Files: Files{Listed: 3, Scanned: 2},
		Frameworks: []Finding{{Kind: "framework", Name: "sb3", Confidence: High}},
		Guesses:    []string{"a guess"}}
	want := [][]string{{"files", "3 files listed, 2 read"}, {"framework", "sb3", "high", ""}, {"guess", "a guess"}}
	if diff := cmp.Diff(want, r.Rows()); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
