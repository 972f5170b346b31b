package ledger

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzVerify feeds Check arbitrary ledgers, seeded with a real one and its
// damaged variants: it never panics, every problem names a line of the
// input, a torn tail always repairs into a ledger that verifies, and a
// ledger that verifies parses into exactly its entries.
func FuzzVerify(f *testing.F) {
	// Small entries keep the fuzzer's minimisation of new inputs quick.
	path := filepath.Join(f.TempDir(), "ledger.jsonl")
	for i, v := range []string{"baseline", "improved", "n too small"} {
		b := map[string]any{"experiment": "e" + strconv.Itoa(i), "primary": map[string]any{"mean": 1.5 + float64(i), "n": 3}, "verdict": v}
		if _, err := Append(path, b, fixtureTime(i)); err != nil {
			f.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	ls := fileLines(data)
	f.Add(data)
	f.Add([]byte{})
	f.Add(data[:len(data)-1])
	f.Add(data[:len(data)-40])
	f.Add(bytes.Join([][]byte{ls[0], ls[2], ls[1]}, nil))
	f.Add(bytes.Replace(data, []byte(`"n":5`), []byte(`"n":6`), 1))
	f.Add(append(bytes.Clone(data), 0, 0, 0))
	f.Add([]byte("{}\n{\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep := Check("L", data)
		n := len(splitLines(data))
		if rep.Entries < 0 || rep.Entries > n {
			t.Fatalf("%d entries in %d lines", rep.Entries, n)
		}
		if p := rep.Problem; p != nil {
			if p.Line < 1 || p.Line > n || p.Line != rep.Entries+1 {
				t.Fatalf("problem at line %d of %d, after %d entries: %v", p.Line, n, rep.Entries, p)
			}
			if !strings.HasPrefix(p.Error(), "L:"+strconv.Itoa(p.Line)+": ") || p.Msg == "" {
				t.Fatalf("problem %q does not name its line", p.Error())
			}
			if p.Torn {
				if p.Line != n {
					t.Fatalf("torn line %d is not the last of %d", p.Line, n)
				}
				fixed, res := repairData(data, rep)
				after := Check("L", fixed)
				if !after.OK() {
					t.Fatalf("repaired ledger does not verify: %v", after.Problem)
				}
				if want := rep.Entries + btoi(res.Completed); after.Entries != want {
					t.Fatalf("repair kept %d entries, want %d", after.Entries, want)
				}
			}
			return
		}
		es, err := Parse("L", data)
		if err != nil || len(es) != rep.Entries {
			t.Fatalf("verified ledger parses into %d entries (%v), want %d", len(es), err, rep.Entries)
		}
		if d, err := Diff(data, data); err != nil || len(d.New) != 0 {
			t.Fatalf("Diff with itself: %v, %d new", err, len(d.New))
		}
		_ = MarkdownTable(es)
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
