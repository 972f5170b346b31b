package approval

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/state"
)

// A Request is one act of approval by a human: who, whether at a prompt,
// from which process, and when. Origin comes from Trace, which refuses an
// agent host's descendants; nothing here skips it.
type Request struct {
	By          string
	Interactive bool
	Origin      Origin
	Now         time.Time
}

// How is the record's how field.
func (q Request) How() string {
	if q.Interactive {
		return Terminal
	}
	return Yes
}

// Confirm asks a human to confirm one approval: text shows what is
// approved, question asks. It is called only for interactive requests.
type Confirm func(text, question string) (bool, error)

// Usable refuses to ask a human anything when the log does not verify:
// the answer could not be recorded.
func (l Log) Usable() error {
	book, err := l.Read()
	if err != nil {
		return err
	}
	if book.Problem != nil {
		return fmt.Errorf("cannot record an approval: %w", book.Problem)
	}
	return nil
}

// Record appends the approval of subject (of kind) with q's who, how and
// where.
func (q Request) Record(l Log, kind, subject, digest string, plan json.RawMessage) (Record, error) {
	return l.Append(Record{Kind: kind, Subject: subject, Digest: digest, By: q.By, How: q.How(),
		TTY: q.Origin.TTY, Ancestry: q.Origin.Ancestry, Plan: plan}, q.Now)
}

// Approval is the record as the contract and the experiments hold it.
func (r Record) Approval() contract.Approval {
	return contract.Approval{By: r.By, At: r.Time, Digest: r.Digest, Interactive: r.Interactive()}
}

// Text says what was approved, in one line.
func (r Record) Text() string {
	what, mode := r.Subject, "non-interactive"
	if r.Kind == Experiment {
		what = "experiment " + r.Subject
	}
	if r.Interactive() {
		mode = "interactive"
	}
	return fmt.Sprintf("approved %s (%s…) by %s at %s, %s", what, r.Digest[:min(len(r.Digest), 19)], r.By, r.Time, mode)
}

// A SectionReceipt is contract approve's JSON for one section.
type SectionReceipt struct {
	Section string `json:"section"`
	contract.Approval
	How      string   `json:"how"`
	TTY      string   `json:"tty"`
	Ancestry []string `json:"ancestry"`
	Seq      int64    `json:"seq"`
}

// Receipt is r as contract approve --json prints it.
func (r Record) Receipt() SectionReceipt {
	return SectionReceipt{r.Subject, r.Approval(), r.How, r.TTY, r.Ancestry, r.Seq}
}

// ApproveSections records the approval of contract sections. Incomplete
// sections and a log that does not verify are refused before anything is
// asked; an interactive request shows each section and keeps those
// confirmed. The first approval recorded removes the approvals block an
// older rlxp kept in contract.yaml, which counts for nothing. The caller
// holds the state lock.
func ApproveSections(r *state.Repo, l *contract.Loaded, sections []string, q Request, confirm Confirm) ([]Record, error) {
	digests, err := l.Digests(sections)
	if err != nil {
		return nil, err
	}
	log := LogOf(r)
	if err := log.Usable(); err != nil {
		return nil, err
	}
	var out []Record
	for _, name := range sections {
		if q.Interactive {
			ok, err := confirm("\n"+l.SectionText(name), fmt.Sprintf("Approve section %s as %s? [y/N] ", name, q.By))
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		// Confirmed one at a time, recorded together: an interrupted
		// prompt records nothing.
		out = append(out, Record{Subject: name, Digest: digests[name]})
	}
	for i, rec := range out {
		if out[i], err = q.Record(log, Section, rec.Subject, rec.Digest, nil); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	if data, had, err := l.WithoutLegacyApprovals(); err != nil {
		return nil, err
	} else if had {
		if err := state.WriteFile(r.Path(state.Contract), data, 0o644); err != nil {
			return nil, err
		}
	}
	return out, nil
}
