package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/rlxp/rlxp/internal/state"
)

// RepairHint is the command that drops a torn last line.
const RepairHint = "rlxp ledger verify --repair"

// A Problem is the first line of a ledger that does not verify.
type Problem struct {
	Name string // the ledger as shown in messages
	Line int    // 1-based
	// Torn means the last line is an incomplete write (a crash during an
	// append); Repair fixes that. Anything else is corruption or tampering.
	Torn bool
	Msg  string
}

func (p *Problem) Error() string { return fmt.Sprintf("%s:%d: %s", p.Name, p.Line, p.Msg) }

// A Report is the outcome of verifying a ledger.
type Report struct {
	Name    string
	Entries int      // entries that verify, up to the first problem
	Head    string   // hash of the last of them; "" when there are none
	Problem *Problem // nil when the whole chain verifies

	// Where the problem's line starts, and whether that line is a complete
	// entry that lacks only its newline (Repair keeps it).
	off      int
	complete bool
}

// OK reports whether the whole chain verifies.
func (r Report) OK() bool { return r.Problem == nil }

// Verify recomputes the chain of the ledger at path: every line an entry of
// this schema, seq counting up from 1, each prev the hash of the entry
// before, each hash that of its own content. The report names the first
// line that fails; a torn last line (a crash during an append) is told apart
// from damage earlier in the file. The error is for I/O only.
func Verify(path string) (Report, error) { return File{Path: path}.Verify() }

// Verify is Verify for f.
func (f File) Verify() (Report, error) {
	data, err := os.ReadFile(f.Path)
	if err != nil {
		return Report{Name: f.name()}, fmt.Errorf("read %s: %w", f.name(), err)
	}
	return f.Check(data), nil
}

// Check verifies a ledger's content, as Verify does; name is used in the
// report.
func Check(name string, data []byte) Report { return File{Name: name}.Check(data) }

// Check is Check for content read from f.
func (f File) Check(data []byte) Report {
	_, rep := f.Load(data)
	return rep
}

// Load returns the entries of a ledger's content that verify (all of them,
// or those before the first problem) and the report.
func Load(name string, data []byte) ([]Entry, Report) { return File{Name: name}.Load(data) }

// Load is Load for content read from f.
func (f File) Load(data []byte) ([]Entry, Report) {
	name := f.name()
	lines := splitLines(data)
	rep := Report{Name: name}
	ps := make([]parsed, len(lines))
	at := map[int64]int{} // seq → first line that holds it
	for i, l := range lines {
		e, err := parseLine(l.text)
		e.Line = i + 1
		ps[i] = parsed{e, err}
		if err == nil && e.Seq > 0 {
			if _, dup := at[e.Seq]; !dup {
				at[e.Seq] = i + 1
			}
		}
	}
	fail := func(i int, torn bool, format string, args ...any) ([]Entry, Report) {
		rep.Problem = &Problem{Name: name, Line: i + 1, Torn: torn, Msg: fmt.Sprintf(format, args...)}
		rep.off = lines[i].off
		return entriesOf(ps[:i]), rep
	}
	for i, l := range lines {
		last := i == len(lines)-1
		p := ps[i]
		if p.err != nil {
			if last {
				return fail(i, true, "torn last line: not a complete entry (%v), as a crash during an append leaves it; run '%s' to drop it", p.err, RepairHint)
			}
			return fail(i, false, "%v", p.err)
		}
		if msg := checkEntry(p.e, f.schema(), int64(i+1), rep.Head, at, i+1); msg != "" {
			return fail(i, false, "%s", msg)
		}
		if !l.newline {
			es, r := fail(i, true, "torn last line: the entry has no final newline, as a crash during an append leaves it; run '%s' to complete it", RepairHint)
			r.complete = true
			return es, r
		}
		rep.Entries, rep.Head = i+1, p.e.Hash
	}
	return entriesOf(ps), rep
}

type parsed struct {
	e   Entry
	err error
}

func entriesOf(ps []parsed) []Entry {
	out := make([]Entry, len(ps))
	for i, p := range ps {
		out[i] = p.e
	}
	return out
}

// checkEntry checks one decoded entry against its place in the chain and
// returns what is wrong, or "".
func checkEntry(e Entry, schema string, want int64, prevHash string, at map[int64]int, line int) string {
	f := e.Fields
	if s, ok := f[keySchema].(string); !ok {
		return fmt.Sprintf("no %q string: not an entry of this chain", keySchema)
	} else if s != schema {
		return fmt.Sprintf("schema is %q, want %q", s, schema)
	}
	n, ok := f[keySeq].(json.Number)
	if !ok {
		return fmt.Sprintf("no %q number", keySeq)
	}
	seq, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil || seq < 1 {
		return fmt.Sprintf("seq %s is not a positive integer", n)
	}
	if seq < want {
		return fmt.Sprintf("seq %d again after seq %d (first at line %d): duplicated or moved entry", seq, want-1, at[seq])
	}
	if seq > want {
		if j, later := at[want]; later && j > line {
			return fmt.Sprintf("seq %d where seq %d belongs, which is at line %d: entries are out of order", seq, want, j)
		}
		gone := fmt.Sprintf("entry %d is missing (deleted line?)", want)
		if seq > want+1 {
			gone = fmt.Sprintf("entries %d..%d are missing (deleted lines?)", want, seq-1)
		}
		if want == 1 {
			return fmt.Sprintf("the ledger starts at seq %d: %s", seq, gone)
		}
		return fmt.Sprintf("seq %d follows seq %d: %s", seq, want-1, gone)
	}
	prev, ok := f[keyPrev].(string)
	if !ok {
		return fmt.Sprintf("no %q string", keyPrev)
	}
	if prev != prevHash {
		if want == 1 {
			return fmt.Sprintf("prev is %s, but the first entry has none: entries before it were removed", short(prev))
		}
		return fmt.Sprintf("prev %s is not the hash of line %d (%s): the chain is broken there", short(prev), line-1, short(prevHash))
	}
	if ts, ok := f[keyTime].(string); !ok {
		return fmt.Sprintf("no %q string", keyTime)
	} else if _, err := time.Parse(time.RFC3339, ts); err != nil {
		return fmt.Sprintf("time %q is not an RFC 3339 timestamp", ts)
	}
	recorded, ok := f[keyHash].(string)
	if !ok {
		return fmt.Sprintf("no %q string", keyHash)
	}
	got, err := hashFields(f)
	if err != nil {
		return fmt.Sprintf("cannot hash the entry: %v", err)
	}
	if got != recorded {
		return fmt.Sprintf("hash mismatch: recorded %s, content hashes to %s: the entry was changed after it was written", short(recorded), short(got))
	}
	return ""
}

// short abbreviates a hash for messages.
func short(h string) string {
	if h == "" {
		return `""`
	}
	if len(h) > len("sha256:")+12 {
		return h[:len("sha256:")+12] + "…"
	}
	return h
}

// A RepairResult says what Repair did.
type RepairResult struct {
	Repaired bool // false: the ledger verified and was left alone
	Line     int  // the torn line
	// Completed: the torn line was a whole entry lacking its newline, and
	// was kept. Otherwise DroppedBytes of an incomplete entry were removed.
	Completed    bool
	DroppedBytes int
	Dropped      string // the bytes removed
	Entries      int    // entries after the repair
	Head         string // hash of the last of them
}

// ErrNotRepairable marks a ledger whose damage Repair refuses to touch.
var ErrNotRepairable = errors.New("not repairable")

// Repair fixes a torn last line, and only that: it atomically rewrites the
// ledger keeping every complete entry that verifies. A bad line before the
// end is corruption or tampering, which is never repaired automatically; the
// error then wraps the *Problem and ErrNotRepairable. The caller holds the
// state lock.
func Repair(path string) (RepairResult, error) { return File{Path: path}.Repair() }

// Repair is Repair for f.
func (f File) Repair() (RepairResult, error) {
	data, err := os.ReadFile(f.Path)
	if err != nil {
		return RepairResult{}, fmt.Errorf("read %s: %w", f.name(), err)
	}
	rep := f.Check(data)
	if rep.Problem == nil {
		return RepairResult{Entries: rep.Entries, Head: rep.Head}, nil
	}
	if !rep.Problem.Torn {
		return RepairResult{}, &repairRefused{rep.Problem}
	}
	fixed, res := repairData(data, rep)
	after := f.Check(fixed)
	if after.Problem != nil {
		// Cannot happen for a torn tail; refuse rather than write a ledger
		// that does not verify.
		return RepairResult{}, &repairRefused{after.Problem}
	}
	fi, err := os.Stat(f.Path)
	if err != nil {
		return RepairResult{}, fmt.Errorf("repair %s: %w", f.name(), err)
	}
	if err := state.WriteFile(f.Path, fixed, fi.Mode().Perm()); err != nil {
		return RepairResult{}, err
	}
	res.Entries, res.Head = after.Entries, after.Head
	return res, nil
}

// repairData is the ledger without its torn tail, or with the newline the
// tail lacks.
func repairData(data []byte, rep Report) ([]byte, RepairResult) {
	res := RepairResult{Repaired: true, Line: rep.Problem.Line}
	fixed := append([]byte(nil), data[:rep.off]...)
	if rep.complete {
		fixed = append(append(fixed, data[rep.off:]...), '\n')
		res.Completed = true
	} else {
		res.DroppedBytes = len(data) - rep.off
		res.Dropped = string(data[rep.off:])
	}
	return fixed, res
}

type repairRefused struct{ p *Problem }

func (e *repairRefused) Error() string {
	return e.p.Error() + "; not repaired: only a torn last line is repaired, damage before it is corruption or tampering (restore the ledger from version control)"
}

func (e *repairRefused) Unwrap() []error { return []error{e.p, ErrNotRepairable} }
