// Package ledger owns .rlxp/ledger.jsonl: an append-only, hash-chained
// record of scored results, one JSON object per line. Each entry carries the
// hash of the one before it, so an edit, a deletion or a reordering anywhere
// in the file breaks the chain at a line that Verify names.
//
// The package is generic about what an entry holds; the scorer builds the
// body and Append adds the chain fields.
package ledger

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/rlxp/rlxp/internal/state"
)

// Schema is the value of every entry's "schema" field.
const Schema = "rlxp.ledger/v1"

// Keys Append sets; a body may not set them itself.
const (
	keySchema = "schema"
	keySeq    = "seq"
	keyPrev   = "prev"
	keyTime   = "time"
	keyHash   = "hash"
)

// An Entry is one line of the ledger.
type Entry struct {
	Seq  int64
	Prev string
	Hash string
	Time string
	Line int             // 1-based line number in the file it was read from
	Raw  json.RawMessage // the line as written, without its newline
	// Fields is the decoded line; numbers are json.Number, verbatim.
	Fields map[string]any
}

// MarshalJSON writes the entry exactly as the ledger holds it.
func (e Entry) MarshalJSON() ([]byte, error) {
	if len(e.Raw) == 0 {
		return Canonical(e.Fields)
	}
	return e.Raw, nil
}

// A File is a ledger on disk. Name is how messages show it (for example
// relative to the user's directory); it defaults to Path. Schema is the
// schema field of every entry; it defaults to the ledger's own, and other
// append-only records (the approvals log) share the chain under theirs.
type File struct {
	Path   string
	Name   string
	Schema string
}

func (f File) name() string {
	if f.Name != "" {
		return f.Name
	}
	return f.Path
}

func (f File) schema() string {
	if f.Schema != "" {
		return f.Schema
	}
	return Schema
}

// Append adds body as the next entry of the ledger at path. The caller holds
// the state lock (state.Repo.Lock), which is what orders concurrent writers.
//
// body is any JSON-marshalable struct or map that encodes to an object and
// does not set schema, seq, prev, time or hash. Append sets those: seq is
// 1-based, prev is the previous entry's hash ("" for the first), time is now
// in RFC 3339 UTC, and hash is "sha256:" and the hex SHA-256 of the
// entry's canonical JSON without the hash key (see Canonical).
//
// Append refuses a ledger that does not verify: extending a broken chain
// would bury the break. The line goes out in one write on an O_APPEND file
// and is synced before Append returns.
func Append(path string, body any, now time.Time) (Entry, error) {
	return File{Path: path}.Append(body, now)
}

// Append is Append for f.
func (f File) Append(body any, now time.Time) (Entry, error) {
	return appender{write: writeOnce}.append(f, body, now)
}

// writeOnce is a single write(2) for a regular file: os.File loops only on a
// short write, and append undoes whatever a failed write left.
func writeOnce(f *os.File, b []byte) (int, error) { return f.Write(b) }

// An appender holds the one step tests replace: the write of the line, so
// that a crash in the middle of it can be reproduced.
type appender struct {
	write func(f *os.File, line []byte) (int, error)
}

func (a appender) append(lf File, body any, now time.Time) (Entry, error) {
	fields, err := bodyFields(body)
	if err != nil {
		return Entry{}, fmt.Errorf("append to %s: %w", lf.name(), err)
	}
	_, statErr := os.Stat(lf.Path)
	created := errors.Is(statErr, os.ErrNotExist)
	f, err := state.OpenNoFollow(lf.Path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if errors.Is(err, state.ErrSymlink) {
		return Entry{}, fmt.Errorf("append to %s: %s %w", lf.name(), lf.name(), state.ErrSymlink)
	}
	if err != nil {
		return Entry{}, fmt.Errorf("append to %s: %w", lf.name(), err)
	}
	defer f.Close()
	old, err := io.ReadAll(f)
	if err != nil {
		return Entry{}, fmt.Errorf("read %s: %w", lf.name(), err)
	}
	rep := lf.Check(old)
	if rep.Problem != nil {
		return Entry{}, fmt.Errorf("cannot append: %w", rep.Problem)
	}

	seq := int64(rep.Entries) + 1
	fields[keySchema] = lf.schema()
	fields[keySeq] = json.Number(strconv.FormatInt(seq, 10))
	fields[keyPrev] = rep.Head
	fields[keyTime] = now.UTC().Format(time.RFC3339)
	hash, err := hashFields(fields)
	if err != nil {
		return Entry{}, fmt.Errorf("append to %s: %w", lf.name(), err)
	}
	fields[keyHash] = hash
	raw, err := Canonical(fields)
	if err != nil {
		return Entry{}, fmt.Errorf("append to %s: %w", lf.name(), err)
	}
	line := append(raw[:len(raw):len(raw)], '\n')

	n, err := a.write(f, line)
	if err == nil && n != len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		// Take back a partial line so the ledger stays whole; we hold the
		// lock, so nothing was appended after it.
		if n > 0 {
			f.Truncate(int64(len(old)))
			f.Sync()
		}
		return Entry{}, fmt.Errorf("append to %s: %w", lf.name(), err)
	}
	if err := f.Sync(); err != nil {
		return Entry{}, fmt.Errorf("sync %s: %w", lf.name(), err)
	}
	if created {
		if err := state.SyncDir(filepath.Dir(lf.Path)); err != nil {
			return Entry{}, err
		}
	}
	return Entry{
		Seq: seq, Prev: rep.Head, Hash: hash, Time: fields[keyTime].(string),
		Line: rep.Entries + 1, Raw: raw, Fields: fields,
	}, nil
}

// bodyFields turns a body into the fields of a new entry.
func bodyFields(body any) (map[string]any, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("entry body: %w", err)
	}
	fields, err := decodeObject(b)
	if err != nil {
		return nil, fmt.Errorf("entry body: %w", err)
	}
	for _, k := range []string{keySchema, keySeq, keyPrev, keyTime, keyHash} {
		if _, ok := fields[k]; ok {
			return nil, fmt.Errorf("entry body sets %q, which the ledger sets itself", k)
		}
	}
	return fields, nil
}

// decodeObject decodes exactly one JSON object, keeping numbers verbatim.
func decodeObject(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if m == nil {
		return nil, errors.New("not a JSON object: null")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a JSON object: data after the object")
	}
	return m, nil
}

// Canonical is the form an entry is hashed and written in: the object
// decoded with numbers kept verbatim, then encoded with sorted keys, no
// insignificant space and no HTML escaping.
func Canonical(fields map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(fields); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// hashFields is the hash of an entry: of its canonical JSON without "hash".
func hashFields(fields map[string]any) (string, error) {
	without := make(map[string]any, len(fields))
	for k, v := range fields {
		if k != keyHash {
			without[k] = v
		}
	}
	c, err := Canonical(without)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// ReadAll reads every entry of the ledger at path without checking the
// chain (Verify does that). Errors name path:line.
func ReadAll(path string) ([]Entry, error) {
	return File{Path: path}.ReadAll()
}

// ReadAll is ReadAll for f.
func (f File) ReadAll() ([]Entry, error) {
	data, err := os.ReadFile(f.Path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.name(), err)
	}
	return Parse(f.name(), data)
}

// Parse decodes every line of a ledger's content; name is used in errors.
func Parse(name string, data []byte) ([]Entry, error) {
	var out []Entry
	lines := splitLines(data)
	for i, l := range lines {
		e, err := parseLine(l.text)
		if err != nil {
			if i == len(lines)-1 {
				return nil, fmt.Errorf("%s:%d: torn last line: not a complete entry (%v); run '%s' to drop it", name, i+1, err, RepairHint)
			}
			return nil, fmt.Errorf("%s:%d: %v", name, i+1, err)
		}
		e.Line = i + 1
		out = append(out, e)
	}
	return out, nil
}

// parseLine decodes one line into an Entry, taking the chain fields that
// have the right types and leaving the checking to Verify.
func parseLine(text []byte) (Entry, error) {
	if len(bytes.TrimSpace(text)) == 0 {
		return Entry{}, errors.New("empty line")
	}
	fields, err := decodeObject(text)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{Raw: json.RawMessage(bytes.Clone(text)), Fields: fields}
	if n, ok := fields[keySeq].(json.Number); ok {
		e.Seq, _ = strconv.ParseInt(string(n), 10, 64)
	}
	e.Prev, _ = fields[keyPrev].(string)
	e.Hash, _ = fields[keyHash].(string)
	e.Time, _ = fields[keyTime].(string)
	return e, nil
}

// A line of the file: its text without the newline, where it starts, and
// whether a newline ended it.
type line struct {
	text    []byte
	off     int
	newline bool
}

// splitLines splits data at newlines. A final newline does not start
// another line; text after the last newline is a line without one.
func splitLines(data []byte) []line {
	var out []line
	off := 0
	for off < len(data) {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			out = append(out, line{text: data[off:], off: off})
			break
		}
		out = append(out, line{text: data[off : off+i], off: off, newline: true})
		off += i + 1
	}
	return out
}

// Lookup returns the value at a path of keys in the entry's fields.
func (e Entry) Lookup(path ...string) (any, bool) {
	var v any = e.Fields
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// String returns the string at path, or "" when there is none.
func (e Entry) String(path ...string) string {
	v, _ := e.Lookup(path...)
	s, _ := v.(string)
	return s
}

// Number returns the number at path as written, or "" when there is none.
func (e Entry) Number(path ...string) string {
	v, _ := e.Lookup(path...)
	n, _ := v.(json.Number)
	return string(n)
}
