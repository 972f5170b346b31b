package ledger

import (
	"fmt"
	"strconv"
	"strings"
)

// VerifySchema is the schema of 'ledger verify --json'.
const VerifySchema = "rlxp.ledger-verify/v1"

// A ProblemView is a Problem as JSON.
type ProblemView struct {
	Line    int    `json:"line"`
	Torn    bool   `json:"torn"`
	Message string `json:"message"`
}

// View is p as JSON; nil for nil.
func (p *Problem) View() *ProblemView {
	if p == nil {
		return nil
	}
	return &ProblemView{Line: p.Line, Torn: p.Torn, Message: p.Msg}
}

// A RepairView is what a repair did, as JSON.
type RepairView struct {
	Line           int    `json:"line"`
	Completed      bool   `json:"completed"`
	DroppedBytes   int    `json:"dropped_bytes"`
	DroppedPreview string `json:"dropped_preview,omitempty"`
}

// A Verification is what 'ledger verify' finds: the chain, with --repair
// what the repair did, with --sources each recorded source hashed again.
type Verification struct {
	Schema  string        `json:"schema"`
	File    string        `json:"file"`
	OK      bool          `json:"ok"`
	Entries int           `json:"entries"`
	Head    string        `json:"head"`
	Problem *ProblemView  `json:"problem"`
	Repair  *RepairView   `json:"repair,omitempty"`
	Sources []SourceCheck `json:"sources,omitempty"`

	problem  *Problem
	repaired bool // Repaired was asked for
	hashed   bool // the sources were asked for
	bad      int  // sources changed, vanished or unreadable
}

// VerifyContent verifies a ledger's content and, when hash is not nil,
// every source file its entries recorded (relative to root).
func (f File) VerifyContent(data []byte, root string, hash Hasher) Verification {
	entries, rep := f.Load(data)
	v := Verification{Schema: VerifySchema, File: f.name(), OK: rep.OK(), Entries: rep.Entries, Head: rep.Head,
		Problem: rep.Problem.View(), problem: rep.Problem}
	if hash != nil {
		v.hashed = true
		v.Sources = VerifySources(entries, root, hash)
		for _, c := range v.Sources {
			if c.State != SourceUnchanged {
				v.bad++
			}
		}
		v.OK = v.OK && v.bad == 0
	}
	return v
}

// RepairVerification repairs the ledger (see Repair) and says what it did.
// The caller holds the state lock.
func (f File) RepairVerification() (Verification, error) {
	rr, err := f.Repair()
	if err != nil {
		return Verification{}, err
	}
	v := Verification{Schema: VerifySchema, File: f.name(), OK: true, Entries: rr.Entries, Head: rr.Head, repaired: true}
	if rr.Repaired {
		v.Repair = &RepairView{Line: rr.Line, Completed: rr.Completed, DroppedBytes: rr.DroppedBytes, DroppedPreview: preview(rr.Dropped, 60)}
	}
	return v, nil
}

// Negative reports whether a line does not verify or a source changed.
func (v Verification) Negative() bool { return v.problem != nil || v.bad > 0 }

// Text is the verification as lines of text.
func (v Verification) Text() string {
	var b strings.Builder
	switch {
	case v.repaired && v.Repair == nil:
		fmt.Fprintf(&b, "%s: %s, chain verifies; nothing to repair\n", v.File, Count(v.Entries))
		return b.String()
	case v.repaired && v.Repair.Completed:
		fmt.Fprintf(&b, "%s:%d: repaired: added the final newline the last entry lacked\n", v.File, v.Repair.Line)
	case v.repaired:
		fmt.Fprintf(&b, "%s:%d: repaired: dropped the torn last line (%d bytes of an incomplete entry: %s)\n", v.File, v.Repair.Line, v.Repair.DroppedBytes, strconv.Quote(v.Repair.DroppedPreview))
	}
	if v.problem != nil {
		fmt.Fprintln(&b, v.problem)
	} else {
		fmt.Fprintf(&b, "%s: %s, chain verifies\n", v.File, Count(v.Entries))
	}
	if !v.hashed {
		return b.String()
	}
	for _, c := range v.Sources {
		where := fmt.Sprintf("entry #%d (%s), seed %d, source %s: %s", c.Seq, c.Experiment, c.Seed, c.Source, c.Path)
		switch c.State {
		case SourceChanged:
			fmt.Fprintf(&b, "%s changed since it was scored (recorded %s, now %s)\n", where, c.Recorded, c.Now)
		case SourceVanished:
			fmt.Fprintf(&b, "%s vanished since it was scored (recorded %s)\n", where, c.Recorded)
		case SourceUnreadable:
			fmt.Fprintf(&b, "%s cannot be read: %s\n", where, c.Detail)
		}
	}
	switch n := len(v.Sources); {
	case v.bad > 0:
		fmt.Fprintf(&b, "%d of %d recorded sources changed, vanished or unreadable\n", v.bad, n)
	case n == 1:
		b.WriteString("1 recorded source, all unchanged\n")
	default:
		fmt.Fprintf(&b, "%d recorded sources, all unchanged\n", n)
	}
	return b.String()
}

// Count is "1 entry" or "N entries".
func Count(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}

// preview is the start of s, for saying what was dropped without printing
// a whole entry.
func preview(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
