package approval

import (
	"fmt"
	"strings"

	"github.com/rlxp/rlxp/internal/ledger"
)

// A Diff is what a head approvals log adds to its base.
type Diff struct {
	Base  int      // approvals the base holds
	Added []Record // approvals after them
}

// DiffLogs checks that head's chain verifies and that base is, line for
// line, a prefix of it (approvals are only ever added), and returns what
// head adds. The error is a *ledger.Problem for a chain that does not
// verify, a *ledger.HistoryError for a rewritten history.
func DiffLogs(name string, base, head []byte) (Diff, error) {
	if rep := (ledger.File{Name: name, Schema: Schema}).Check(head); rep.Problem != nil {
		return Diff{}, rep.Problem
	}
	d, err := ledger.Diff(base, head)
	if err != nil {
		return Diff{}, err
	}
	out := Diff{Base: d.Base}
	for _, e := range d.New {
		r, err := decode(e)
		if err != nil {
			return Diff{}, fmt.Errorf("%s:%d: %v", name, e.Line, err)
		}
		out.Added = append(out.Added, r)
	}
	return out, nil
}

// Markdown renders approvals as a table for a pull-request comment. Every
// cell is plain text: the names were checked on the way in, and anything
// that could break the table is escaped anyway.
func Markdown(recs []Record) string {
	var b strings.Builder
	b.WriteString("| seq | time | approved | digest | by | how | terminal | ancestry |\n")
	b.WriteString("|---:|---|---|---|---|---|---|---|\n")
	for _, r := range recs {
		tty := r.TTY
		if tty == "" {
			tty = "none"
		}
		d := r.Digest
		if len(d) > 19 {
			d = d[:19] + "…"
		}
		fmt.Fprintf(&b, "| %d | %s | %s %s | `%s` | %s | %s | %s | %s |\n", r.Seq, cell(r.Time), r.Kind, cell(r.Subject), d,
			cell(r.By), r.How, cell(tty), cell(strings.Join(r.Ancestry, " ← ")))
	}
	return b.String()
}

func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ", "`", "'").Replace(s)
}
