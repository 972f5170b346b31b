package approval

import (
	"fmt"
	"strings"
)

// A View is the log as show --json writes it.
type View struct {
	Schema    string       `json:"schema"`
	File      string       `json:"file"`
	Approvals []RecordView `json:"approvals"`
}

// A RecordView is a record with its place in the chain.
type RecordView struct {
	Seq  int64  `json:"seq"`
	Time string `json:"time"`
	Record
}

// ViewOf is the book's records, as show --json writes them.
func (b Book) ViewOf(file string) View {
	out := View{Schema: Schema, File: file, Approvals: make([]RecordView, len(b.Records))}
	for i, r := range b.Records {
		out.Approvals[i] = RecordView{r.Seq, r.Time, r}
	}
	return out
}

// RowHeader names the columns of Rows.
var RowHeader = []string{"SEQ", "TIME", "WHAT", "DIGEST", "BY", "HOW", "ANCESTRY"}

// Rows are the book's records as a table's rows, oldest first.
func (b Book) Rows() [][]string {
	rows := make([][]string, len(b.Records))
	for i, rec := range b.Records {
		rows[i] = []string{fmt.Sprint(rec.Seq), rec.Time, rec.Kind + " " + rec.Subject, rec.Digest[:min(len(rec.Digest), 19)] + "…", rec.By, rec.How, strings.Join(rec.Ancestry, " < ")}
	}
	return rows
}

// A Verification is verify's answer.
type Verification struct {
	Schema    string `json:"schema"`
	File      string `json:"file"`
	OK        bool   `json:"ok"`
	Approvals int    `json:"approvals"`
	Problem   string `json:"problem,omitempty"`
}

// Verify is the book's verification.
func (b Book) Verify(file string) Verification {
	v := Verification{Schema: "rlxp.approvals-verify/v1", File: file, OK: b.Problem == nil, Approvals: len(b.Records)}
	if b.Problem != nil {
		v.Problem = b.Problem.Error()
	}
	return v
}

// Text is the verification in one line.
func (v Verification) Text() string {
	if !v.OK {
		return v.Problem
	}
	s := "s"
	if v.Approvals == 1 {
		s = ""
	}
	return fmt.Sprintf("%s: %d approval%s, chain verifies", v.File, v.Approvals, s)
}
