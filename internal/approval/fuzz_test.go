package approval

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzParse: any content is read without a panic, and a log that parses
// without a problem holds only valid records.
func FuzzParse(f *testing.F) {
	path := filepath.Join(f.TempDir(), "approvals.jsonl")
	l := Log{Path: path, Name: "approvals.jsonl"}
	for _, r := range []Record{
		{Kind: Section, Subject: "task", Digest: "sha256:aa", By: "alice", How: Yes, Ancestry: []string{"rlxp", "bash"}},
		{Kind: Experiment, Subject: "lr", Digest: "sha256:bb", By: "bob", How: Terminal, TTY: "/dev/pts/2"},
	} {
		if _, err := l.Append(r, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)); err != nil {
			f.Fatal(err)
		}
	}
	log, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(log)
	// The ledger's own records: a chain of the wrong schema.
	if ledger, err := os.ReadFile(filepath.Join("..", "..", "cmd", "rlxp", "testdata", "fixtures", "ledger.jsonl")); err == nil {
		f.Add(ledger)
	}
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		b := Parse("approvals.jsonl", data)
		if b.Problem != nil {
			if len(b.Records) != 0 {
				t.Fatalf("records kept from a log with a problem: %v", b.Problem)
			}
			return
		}
		for _, r := range b.Records {
			if err := r.valid(); err != nil {
				t.Fatalf("invalid record accepted: %v", err)
			}
		}
	})
}
