// Package approval owns .rlxp/approvals.jsonl: the append-only,
// hash-chained record of every human approval, kept apart from the files
// an agent drafts (contract.yaml, experiments.yaml). Each line says what was
// approved and its digest, who approved it, how (at a terminal or with
// --yes), when, from which controlling terminal, and the executable names
// of the approving process's ancestry. The chain is the ledger's: an edited,
// removed, reordered or hand-written line breaks it at a line Verify names.
package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/rlxp/rlxp/internal/ledger"
)

// Schema is the schema field of every line of the approvals log.
const Schema = "rlxp.approvals/v1"

// Kinds of approved things.
const (
	Section    = "section"    // a contract section, named by Subject
	Experiment = "experiment" // an experiment, named by its id
)

// How an approval was given.
const (
	Terminal = "terminal" // confirmed at a prompt on a terminal
	Yes      = "yes"      // --yes: no prompt, recorded so
)

// A Record is one approval.
type Record struct {
	Kind     string   `json:"kind"`
	Subject  string   `json:"subject"`
	Digest   string   `json:"digest"`
	By       string   `json:"by"`
	How      string   `json:"how"`
	TTY      string   `json:"tty"`      // controlling terminal; "" when none
	Ancestry []string `json:"ancestry"` // executable names, the approving process first
	// Plan is the material an experiment's approval pins (what runs).
	Plan json.RawMessage `json:"plan,omitempty"`

	// Set from the chain when read.
	Seq  int64  `json:"-"`
	Time string `json:"-"`
	Line int    `json:"-"`
}

// Interactive reports whether the approval was confirmed at a terminal.
func (r Record) Interactive() bool { return r.How == Terminal }

// A Log is the approvals log on disk.
type Log struct {
	Path string
	Name string // how messages show it
}

func (l Log) file() ledger.File { return ledger.File{Path: l.Path, Name: l.Name, Schema: Schema} }

// Append adds r as the next line. The caller holds the state lock; a log
// that does not verify is never extended.
func (l Log) Append(r Record, now time.Time) (Record, error) {
	if err := r.valid(); err != nil {
		return Record{}, err
	}
	e, err := l.file().Append(r, now)
	if err != nil {
		return Record{}, err
	}
	r.Seq, r.Time, r.Line = e.Seq, e.Time, e.Line
	return r, nil
}

func (r Record) valid() error {
	switch {
	case r.Kind != Section && r.Kind != Experiment:
		return fmt.Errorf("approval of unknown kind %q", r.Kind)
	case r.Subject == "" || r.Digest == "":
		return errors.New("approval without subject or digest")
	case r.How != Terminal && r.How != Yes:
		return fmt.Errorf("approval given in unknown way %q", r.How)
	}
	return CheckName(r.By)
}

// A Book is the log as read: the records whose chain verifies, and the
// problem with the first line that does not. Nothing in a log that does not
// verify is trusted, not even the lines before the break: a log is restored
// from version control, not partly believed.
type Book struct {
	Records []Record
	Problem error
}

// Read reads the log. A missing log is an empty book; the error is for
// I/O only.
func (l Log) Read() (Book, error) {
	data, err := os.ReadFile(l.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return Book{}, nil
	}
	if err != nil {
		return Book{}, fmt.Errorf("read %s: %w", l.Name, err)
	}
	return Parse(l.Name, data), nil
}

// Parse reads a log's content; name is used in messages.
func Parse(name string, data []byte) Book {
	entries, rep := ledger.File{Name: name, Schema: Schema}.Load(data)
	if rep.Problem != nil {
		return Book{Problem: fmt.Errorf("%w; no approval in it is trusted until it verifies ('rlxp approvals verify')", rep.Problem)}
	}
	var b Book
	for _, e := range entries {
		r, err := decode(e)
		if err != nil {
			return Book{Problem: fmt.Errorf("%s:%d: %v; no approval in it is trusted until it verifies", name, e.Line, err)}
		}
		b.Records = append(b.Records, r)
	}
	return b
}

// decode reads a verified chain entry as a record and checks its fields:
// a line can hash right and still not be an approval.
func decode(e ledger.Entry) (Record, error) {
	var r Record
	if err := json.Unmarshal(e.Raw, &r); err != nil {
		return Record{}, fmt.Errorf("not an approval record: %v", err)
	}
	if err := r.valid(); err != nil {
		return Record{}, err
	}
	r.Seq, r.Time, r.Line = e.Seq, e.Time, e.Line
	return r, nil
}

// Latest returns the last approval of each subject of a kind.
func (b Book) Latest(kind string) map[string]Record {
	out := map[string]Record{}
	for _, r := range b.Records {
		if r.Kind == kind {
			out[r.Subject] = r
		}
	}
	return out
}
