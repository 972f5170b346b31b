package ledger

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestVerifyContent(t *testing.T) {
	_, good := sampleLedger(t, 3)
	ls := fileLines(good)
	torn := append(bytes.Join(ls[:2], nil), ls[2][:10]...)
	root := t.TempDir()
	hash := func(string) (string, error) { return "", errors.New("no such file") }
	tests := []struct {
		name     string
		data     []byte
		hash     Hasher
		want     Verification
		text     string
		negative bool
	}{{
		name: "empty",
		want: Verification{Schema: VerifySchema, File: "L", OK: true},
		text: "L: 0 entries, chain verifies\n",
	}, {
		name: "three entries",
		data: good,
		want: Verification{Schema: VerifySchema, File: "L", OK: true, Entries: 3},
		text: "L: 3 entries, chain verifies\n",
	}, {
		name:     "torn",
		data:     torn,
		want:     Verification{Schema: VerifySchema, File: "L", Entries: 2, Problem: &ProblemView{Line: 3, Torn: true}},
		negative: true,
	}, {
		name: "sources asked, none recorded",
		hash: hash,
		want: Verification{Schema: VerifySchema, File: "L", OK: true},
		text: "L: 0 entries, chain verifies\n0 recorded sources, all unchanged\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := File{Name: "L"}.VerifyContent(tt.data, root, tt.hash)
			opts := cmp.Options{cmpopts.IgnoreUnexported(Verification{}), cmpopts.IgnoreFields(Verification{}, "Head"), cmpopts.IgnoreFields(ProblemView{}, "Message")}
			if diff := cmp.Diff(tt.want, v, opts); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tt.text != "" {
				if diff := cmp.Diff(tt.text, v.Text()); diff != "" {
					t.Errorf("Text (-want +got):\n%s", diff)
				}
			}
			if v.Negative() != tt.negative {
				t.Errorf("Negative() = %t, want %t", v.Negative(), tt.negative)
			}
		})
	}
}

func TestVerificationTextSources(t *testing.T) {
	v := Verification{File: "L", Entries: 1, hashed: true, bad: 2, Sources: []SourceCheck{
		{Seq: 1, Experiment: "e", Seed: 0, Source: "m", Path: "a.csv", Recorded: "sha256:1", Now: "sha256:2", State: SourceChanged},
		{Seq: 1, Experiment: "e", Seed: 1, Source: "m", Path: "b.csv", Recorded: "sha256:3", State: SourceVanished},
		{Seq: 1, Experiment: "e", Seed: 2, Source: "m", Path: "c.csv", Recorded: "sha256:4", State: SourceUnchanged},
	}}
	want := "L: 1 entry, chain verifies\n" +
		"entry #1 (e), seed 0, source m: a.csv changed since it was scored (recorded sha256:1, now sha256:2)\n" +
		"entry #1 (e), seed 1, source m: b.csv vanished since it was scored (recorded sha256:3)\n" +
		"2 of 3 recorded sources changed, vanished or unreadable\n"
	if diff := cmp.Diff(want, v.Text()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !v.Negative() {
		t.Error("changed sources are not negative")
	}
}

func TestRepairVerification(t *testing.T) {
	_, good := sampleLedger(t, 2)
	ls := fileLines(good)
	tests := []struct {
		name, data, text string
		repair           *RepairView
	}{
		{"intact", string(good), "L: 2 entries, chain verifies; nothing to repair\n", nil},
		{"no final newline", string(bytes.TrimSuffix(good, []byte("\n"))), "L:2: repaired: added the final newline the last entry lacked\nL: 2 entries, chain verifies\n", &RepairView{Line: 2, Completed: true}},
		{"torn", string(ls[0]) + `{"seq":2`, "L:2: repaired: dropped the torn last line (8 bytes of an incomplete entry: \"{\\\"seq\\\":2\")\nL: 1 entry, chain verifies\n", &RepairView{Line: 2, DroppedBytes: 8, DroppedPreview: `{"seq":2`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger.jsonl")
			if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			v, err := File{Path: path, Name: "L"}.RepairVerification()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.repair, v.Repair); diff != "" {
				t.Errorf("Repair (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.text, v.Text()); diff != "" {
				t.Errorf("Text (-want +got):\n%s", diff)
			}
			if v.Negative() || !v.OK {
				t.Errorf("a repaired ledger is negative: %+v", v)
			}
		})
	}
}

func TestPreview(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{{"short", 60, "short"}, {"abcdef", 3, "abc…"}, {"aé", 2, "a…"}} {
		if got := preview(tt.s, tt.n); got != tt.want {
			t.Errorf("preview(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
