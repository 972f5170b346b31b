package ledger

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// rehash recomputes a line's hash after an edit, as a careful forger would.
func rehash(t *testing.T, l []byte) []byte {
	t.Helper()
	f, err := decodeObject(bytes.TrimSuffix(l, []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	h, err := hashFields(f)
	if err != nil {
		t.Fatal(err)
	}
	f[keyHash] = h
	c, err := Canonical(f)
	if err != nil {
		t.Fatal(err)
	}
	return append(c, '\n')
}

func TestVerifyFindsTampering(t *testing.T) {
	_, data := sampleLedger(t, 12)
	ls := fileLines(data)
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	without := func(i int) []byte {
		var out [][]byte
		for j, l := range ls {
			if j != i {
				out = append(out, l)
			}
		}
		return join(out...)
	}
	swapped := func(i, j int) []byte {
		c := append([][]byte(nil), ls...)
		c[i], c[j] = c[j], c[i]
		return join(c...)
	}
	edit := func(i int, from, to string) []byte {
		c := append([][]byte(nil), ls...)
		if !bytes.Contains(c[i], []byte(from)) {
			t.Fatalf("line %d has no %s", i+1, from)
		}
		c[i] = bytes.Replace(c[i], []byte(from), []byte(to), 1)
		return join(c...)
	}
	editRehashed := func(i int, from, to string) []byte {
		c := append([][]byte(nil), ls...)
		c[i] = rehash(t, bytes.Replace(c[i], []byte(from), []byte(to), 1))
		return join(c...)
	}
	tests := []struct {
		name string
		data []byte
		line int
		msg  string // regexp
	}{
		{"edited value", edit(4, `"verdict":"guardrail_violated"`, `"verdict":"improved"`), 5, `^hash mismatch: recorded sha256:[0-9a-f]{12}…, content hashes to sha256:[0-9a-f]{12}…: the entry was changed after it was written$`},
		{"edited number", edit(6, `"n":5`, `"n":6`), 7, `^hash mismatch`},
		{"edited and rehashed", editRehashed(4, `"verdict":"guardrail_violated"`, `"verdict":"improved"`), 6, `^prev sha256:[0-9a-f]{12}… is not the hash of line 5 \(sha256:[0-9a-f]{12}…\): the chain is broken there$`},
		{"deleted line", without(5), 6, `^seq 7 follows seq 5: entry 6 is missing \(deleted line\?\)$`},
		{"deleted first line", without(0), 1, `^the ledger starts at seq 2: entry 1 is missing`},
		{"deleted two lines", join(append(append([][]byte{}, ls[:3]...), ls[5:]...)...), 4, `^seq 6 follows seq 3: entries 4..5 are missing \(deleted lines\?\)$`},
		{"reordered", swapped(7, 8), 8, `^seq 9 where seq 8 belongs, which is at line 9: entries are out of order$`},
		{"reordered far", swapped(2, 9), 3, `^seq 10 where seq 3 belongs, which is at line 10: entries are out of order$`},
		{"duplicated line", join(ls[0], ls[1], ls[1], ls[2]), 3, `^seq 2 again after seq 2 \(first at line 2\): duplicated or moved entry$`},
		{"garbage line", join(ls[0], []byte("not json\n"), ls[2]), 2, `^not a JSON object: `},
		{"empty line", join(ls[0], []byte("\n"), ls[1]), 2, `^empty line$`},
		{"wrong schema", edit(2, `"schema":"rlxp.ledger/v1"`, `"schema":"rlxp.ledger/v2"`), 3, `^schema is "rlxp.ledger/v2", want "rlxp.ledger/v1"$`},
		{"no seq", edit(2, `"seq":3`, `"sq":3`), 3, `^no "seq" number$`},
		{"bad time", editRehashed(0, `"time":"2026-11-20T09:00:00Z"`, `"time":"yesterday"`), 1, `^time "yesterday" is not an RFC 3339 timestamp$`},
		{"array line", join(ls[0], []byte("[1,2]\n"), ls[1]), 2, `^not a JSON object: `},
		{"two objects on a line", join(ls[0], []byte("{} {}\n"), ls[1]), 2, `^not a JSON object: data after the object$`},
		{"complete last entry tampered, no newline", bytes.TrimSuffix(edit(11, `"seq":12`, `"seq":13`), []byte("\n")), 12, `^seq 13 follows seq 11`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := Check("L", tt.data)
			if rep.Problem == nil {
				t.Fatalf("verified: %+v", rep)
			}
			p := rep.Problem
			if p.Line != tt.line || p.Torn || !regexp.MustCompile(tt.msg).MatchString(p.Msg) {
				t.Errorf("problem = line %d torn %v %q, want line %d %s", p.Line, p.Torn, p.Msg, tt.line, tt.msg)
			}
			if !strings.HasPrefix(p.Error(), "L:"+strconv.Itoa(tt.line)+": ") {
				t.Errorf("Error() = %q does not name L:%d", p.Error(), tt.line)
			}
			if rep.Entries != tt.line-1 {
				t.Errorf("Entries = %d, want %d", rep.Entries, tt.line-1)
			}
			path := filepath.Join(t.TempDir(), "ledger.jsonl")
			os.WriteFile(path, tt.data, 0o644)
			_, err := Repair(path)
			if !errors.Is(err, ErrNotRepairable) || !errors.As(err, &p) || !strings.Contains(err.Error(), "not repaired") {
				t.Errorf("Repair = %v, want a refusal", err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, tt.data) {
				t.Error("a refused repair changed the file")
			}
		})
	}
}

func TestVerifyTornTail(t *testing.T) {
	_, data := sampleLedger(t, 6)
	ls := fileLines(data)
	whole := bytes.Join(ls[:5], nil)
	last := ls[5]
	tests := []struct {
		name      string
		data      []byte
		completed bool
		entries   int
		msg       string
	}{
		{"half a line", append(bytes.Clone(whole), last[:len(last)/2]...), false, 5, "torn last line: not a complete entry"},
		{"all but the newline", append(bytes.Clone(whole), last[:len(last)-1]...), true, 6, "torn last line: the entry has no final newline"},
		{"zero-filled tail", append(bytes.Clone(whole), make([]byte, 300)...), false, 5, "torn last line"},
		{"unparsable line with newline", append(bytes.Clone(whole), []byte("{\"experiment\":\"x\n")...), false, 5, "torn last line"},
		{"a single byte", append(bytes.Clone(whole), '{'), false, 5, "torn last line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger.jsonl")
			os.WriteFile(path, tt.data, 0o600)
			rep, err := Verify(path)
			if err != nil {
				t.Fatal(err)
			}
			p := rep.Problem
			if p == nil || !p.Torn || p.Line != 6 || !strings.Contains(p.Msg, tt.msg) || !strings.Contains(p.Msg, "'"+RepairHint+"'") {
				t.Fatalf("problem = %+v", p)
			}
			if !strings.HasPrefix(p.Error(), path+":6: torn last line") {
				t.Errorf("Error() = %q", p.Error())
			}
			res, err := Repair(path)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Repaired || res.Line != 6 || res.Completed != tt.completed || res.Entries != tt.entries {
				t.Errorf("Repair = %+v", res)
			}
			if !tt.completed && (res.DroppedBytes != len(tt.data)-len(whole) || res.Dropped != string(tt.data[len(whole):])) {
				t.Errorf("dropped %d bytes %q", res.DroppedBytes, res.Dropped)
			}
			got, _ := os.ReadFile(path)
			want := whole
			if tt.completed {
				want = data
			}
			if !bytes.Equal(got, want) {
				t.Errorf("repaired ledger differs from its complete entries")
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("repair changed the mode to %v", fi.Mode().Perm())
			}
			// The chain continues where the complete entries end.
			e, err := Append(path, sampleBody(7), fixtureTime(7))
			if err != nil || e.Seq != int64(tt.entries+1) {
				t.Fatalf("append after repair: seq %d, %v", e.Seq, err)
			}
			if rep, _ := Verify(path); !rep.OK() || rep.Entries != tt.entries+1 {
				t.Errorf("after repair and append: %+v", rep)
			}
			// Nothing left to repair.
			if res, err := Repair(path); err != nil || res.Repaired {
				t.Errorf("second Repair = %+v, %v", res, err)
			}
		})
	}
}

func TestVerifyEdgeCases(t *testing.T) {
	if rep := Check("L", nil); !rep.OK() || rep.Entries != 0 || rep.Head != "" {
		t.Errorf("empty ledger: %+v", rep)
	}
	// A torn line after damage: the damage is the first problem.
	_, data := sampleLedger(t, 3)
	ls := fileLines(data)
	bad := bytes.Join([][]byte{ls[0], bytes.Replace(ls[1], []byte(`"n":5`), []byte(`"n":4`), 1), ls[2], []byte(`{"a":`)}, nil)
	if rep := Check("L", bad); rep.Problem == nil || rep.Problem.Line != 2 || rep.Problem.Torn {
		t.Errorf("problem = %+v, want the edited line 2", rep.Problem)
	}
	if _, err := Verify(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Verify of a missing file = %v", err)
	}
	// Load returns what verifies.
	es, rep := Load("L", bad)
	if len(es) != 1 || rep.Entries != 1 || es[0].Seq != 1 {
		t.Errorf("Load = %d entries, report %+v", len(es), rep)
	}
}
