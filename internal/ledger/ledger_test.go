package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAppendChain(t *testing.T) {
	path, data := sampleLedger(t, 12)
	rep, err := Verify(path)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Entries != 12 {
		t.Fatalf("Verify = %+v, problem %v", rep, rep.Problem)
	}
	entries, err := ReadAll(path)
	if err != nil {
		t.Fatal(err)
	}
	prev := ""
	for i, e := range entries {
		if e.Seq != int64(i+1) || e.Line != i+1 || e.Prev != prev {
			t.Errorf("entry %d: seq %d line %d prev %q, want seq %d prev %q", i, e.Seq, e.Line, e.Prev, i+1, prev)
		}
		if e.Time != fixtureTime(i).Format(time.RFC3339) {
			t.Errorf("entry %d: time %q", i, e.Time)
		}
		if e.Fields["schema"] != Schema {
			t.Errorf("entry %d: schema %v", i, e.Fields["schema"])
		}
		prev = e.Hash
	}
	if rep.Head != prev {
		t.Errorf("head %s, want %s", rep.Head, prev)
	}
	if !bytes.HasSuffix(data, []byte("}\n")) {
		t.Errorf("ledger does not end with a complete line")
	}
}

// The hash is that of the canonical JSON without the hash key, computed
// here independently of the package.
func TestHashIsCanonical(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	b := map[string]any{"experiment": "x<&>", "z": 1.50, "a": []any{json.Number("1e3"), "é"}}
	e, err := Append(path, b, time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":[1e3,"é"],"experiment":"x<&>","prev":"","schema":"rlxp.ledger/v1","seq":1,"time":"2026-01-02T02:04:05Z","z":1.5}`
	sum := sha256.Sum256([]byte(want))
	if e.Hash != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("hash %s is not that of %s", e.Hash, want)
	}
	data, _ := os.ReadFile(path)
	// Keys sort, so "hash" lands between "experiment" and "prev".
	wantLine := `{"a":[1e3,"é"],"experiment":"x<&>","hash":"` + e.Hash + `","prev":"","schema":"rlxp.ledger/v1","seq":1,"time":"2026-01-02T02:04:05Z","z":1.5}` + "\n"
	if string(data) != wantLine {
		t.Errorf("line\n%s\nwant\n%s", data, wantLine)
	}
	if string(e.Raw)+"\n" != string(data) {
		t.Errorf("Raw %s differs from the line written", e.Raw)
	}
}

func TestAppendRefusesBadBodies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	for _, b := range []any{
		map[string]any{"seq": 3},
		map[string]any{"hash": "x"},
		map[string]any{"prev": ""},
		map[string]any{"schema": Schema},
		map[string]any{"time": "now"},
		[]int{1},
		"text",
		nil,
		map[string]any{"v": func() {}},
	} {
		if _, err := Append(path, b, time.Now()); err == nil {
			t.Errorf("Append(%#v) accepted", b)
		}
	}
	if data, _ := os.ReadFile(path); len(data) != 0 {
		t.Errorf("refused appends wrote %q", data)
	}
}

func TestAppendRefusesBrokenLedger(t *testing.T) {
	path, data := sampleLedger(t, 4)
	ls := fileLines(data)
	tampered := bytes.Join([][]byte{ls[0], bytes.Replace(ls[1], []byte(`"verdict":"improved"`), []byte(`"verdict":"baseline"`), 1), ls[2], ls[3]}, nil)
	os.WriteFile(path, tampered, 0o644)
	_, err := Append(path, sampleBody(4), fixtureTime(4))
	var p *Problem
	if !errors.As(err, &p) || p.Line != 2 || p.Torn {
		t.Fatalf("append to a tampered ledger = %v, want a problem at line 2", err)
	}
	// A torn tail: the error says how to repair it.
	os.WriteFile(path, append(bytes.Clone(data), `{"experiment":"half`...), 0o644)
	_, err = Append(path, sampleBody(4), fixtureTime(4))
	if !errors.As(err, &p) || !p.Torn || p.Line != 5 || !strings.Contains(err.Error(), RepairHint) {
		t.Fatalf("append to a torn ledger = %v", err)
	}
}

// A failed write leaves the ledger as it was.
func TestFailedWriteIsUndone(t *testing.T) {
	path, data := sampleLedger(t, 3)
	a := appender{write: func(f *os.File, line []byte) (int, error) {
		n, _ := f.Write(line[:len(line)/2])
		return n, errors.New("no space left on device")
	}}
	if _, err := a.append(File{Path: path}, sampleBody(3), fixtureTime(3)); err == nil || !strings.Contains(err.Error(), "no space") {
		t.Fatalf("append = %v", err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, data) {
		t.Errorf("a failed append left %d bytes behind", len(got)-len(data))
	}
	if _, err := Append(path, sampleBody(3), fixtureTime(3)); err != nil {
		t.Fatal(err)
	}
	if rep, _ := Verify(path); !rep.OK() || rep.Entries != 4 {
		t.Errorf("after a retried append: %+v", rep)
	}
}

func TestAppendCreatesLedger(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	e, err := Append(path, sampleBody(0), fixtureTime(0))
	if err != nil {
		t.Fatal(err)
	}
	if e.Seq != 1 || e.Prev != "" {
		t.Errorf("first entry: seq %d prev %q", e.Seq, e.Prev)
	}
	if _, err := Append(filepath.Join(t.TempDir(), "missing", "ledger.jsonl"), sampleBody(0), fixtureTime(0)); err == nil {
		t.Error("append into a missing directory succeeded")
	}
}

func TestReadAllNamesLine(t *testing.T) {
	_, data := sampleLedger(t, 3)
	ls := fileLines(data)
	path := filepath.Join(t.TempDir(), "l.jsonl")
	os.WriteFile(path, bytes.Join([][]byte{ls[0], []byte("{oops\n"), ls[2]}, nil), 0o644)
	if _, err := ReadAll(path); err == nil || !strings.HasPrefix(err.Error(), path+":2: ") {
		t.Errorf("ReadAll = %v, want %s:2: ...", err, path)
	}
	os.WriteFile(path, append(bytes.Clone(data), "{oops"...), 0o644)
	if _, err := ReadAll(path); err == nil || !strings.HasPrefix(err.Error(), path+":4: torn last line") || !strings.Contains(err.Error(), RepairHint) {
		t.Errorf("ReadAll = %v, want %s:4: torn last line ...", err, path)
	}
	if _, err := ReadAll(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadAll of a missing file = %v", err)
	}
}

func TestEntryLookup(t *testing.T) {
	_, data := sampleLedger(t, 2)
	es, err := Parse("l", data)
	if err != nil {
		t.Fatal(err)
	}
	e := es[1]
	if e.String("experiment") != "lr-high" || e.Number("primary", "n") != "5" || e.Number("baseline", "seq") != "1" {
		t.Errorf("lookups: %q %q %q", e.String("experiment"), e.Number("primary", "n"), e.Number("baseline", "seq"))
	}
	if e.String("primary", "nope") != "" || e.Number("experiment") != "" || e.String("experiment", "x") != "" {
		t.Error("lookups of missing or mistyped keys returned values")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(e)
	if out := bytes.TrimSpace(buf.Bytes()); !bytes.Equal(out, e.Raw) {
		t.Errorf("MarshalJSON = %s, want the line", out)
	}
}
