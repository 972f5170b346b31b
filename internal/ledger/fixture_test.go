package ledger

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The end-to-end scripts read ledgers written by this package. This test
// keeps them current: it rebuilds them and compares, and with
// RLXP_WRITE_FIXTURES=1 it rewrites them.
//
//	ledger.jsonl       12 entries, a baseline and every verdict
//	ledger-torn.jsonl  the same, then half of a 13th entry, as a writer
//	                   killed during its append leaves it
//	ledger-rewritten.jsonl  12 entries whose chain verifies, but entry 3 was
//	                   changed and every later entry re-chained: history
//	                   rewritten from line 3
func TestFixtures(t *testing.T) {
	dir := filepath.Join("..", "..", "cmd", "rlxp", "testdata", "fixtures")
	_, full := sampleLedger(t, 13)
	ls := fileLines(full)
	good := bytes.Join(ls[:12], nil)
	torn := append(bytes.Clone(good), ls[12][:len(ls[12])/2]...)

	path := filepath.Join(t.TempDir(), "rewritten.jsonl")
	for i := range 12 {
		b := sampleBody(i)
		if i == 2 {
			b.Verdict, b.Reasons = "inconclusive", []string{"re-scored"}
		}
		if _, err := Append(path, b, fixtureTime(i)); err != nil {
			t.Fatal(err)
		}
	}
	rewritten, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"ledger.jsonl": good, "ledger-torn.jsonl": torn, "ledger-rewritten.jsonl": rewritten}
	for name, want := range files {
		path := filepath.Join(dir, name)
		if os.Getenv("RLXP_WRITE_FIXTURES") == "1" {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (generate it with RLXP_WRITE_FIXTURES=1 go test ./internal/ledger -run TestFixtures)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: regenerate it with RLXP_WRITE_FIXTURES=1 go test ./internal/ledger -run TestFixtures", path)
		}
	}
	if rep := Check("ledger.jsonl", good); !rep.OK() || rep.Entries != 12 {
		t.Errorf("ledger.jsonl: %+v", rep)
	}
	if d, err := Diff(good, rewritten); !errors.As(err, new(*HistoryError)) || Check("", rewritten).Entries != 12 {
		t.Errorf("ledger-rewritten.jsonl: diff %+v, %v", d, err)
	}
	if rep := Check("ledger-torn.jsonl", torn); rep.Problem == nil || !rep.Problem.Torn || rep.Problem.Line != 13 {
		t.Errorf("ledger-torn.jsonl: %+v", rep)
	}
}
