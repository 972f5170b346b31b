package contract

import "github.com/rlxp/rlxp/internal/document"

// States of a section.
const (
	Approved   = "approved"   // approval matches the content
	Stale      = "stale"      // approved, then edited
	Unapproved = "unapproved" // complete, never approved
	Incomplete = "incomplete" // missing or failing the schema
)

// SectionStatus is the approval state of one section.
type SectionStatus struct {
	Section  string    `json:"section"`
	State    string    `json:"state"`
	Digest   string    `json:"digest,omitempty"`
	Approval *Approval `json:"approval,omitempty"`
	Findings []Finding `json:"findings,omitempty"`
}

// Status is the approval state of the whole contract.
type Status struct {
	Sections []SectionStatus `json:"sections"`
	// FileFindings are errors outside any section, such as an unknown
	// top-level key or a malformed approval record.
	FileFindings []Finding `json:"file_findings,omitempty"`
	Approved     bool      `json:"approved"`
	// Legacy says that contract.yaml still holds approvals of an older
	// rlxp, which count for nothing.
	Legacy string `json:"legacy,omitempty"`
}

// Status computes every section's state.
func (l *Loaded) Status() Status {
	approvals := l.approvals()
	st := Status{Approved: true}
	for _, f := range l.Errors() {
		if sectionOf(f) == "" {
			st.FileFindings = append(st.FileFindings, f)
		}
	}
	if l.logProblem != nil {
		st.FileFindings = append(st.FileFindings, Finding{"error", &document.Error{Path: "approvals log", Msg: l.logProblem.Error()}})
	}
	if l.LegacyApprovals() {
		st.Legacy = "contract.yaml holds an approvals block from an older rlxp; it is no longer read (approvals live in .rlxp/approvals.jsonl): a human re-approves with 'rlxp contract approve', which removes the block"
	}
	for _, name := range sectionNames {
		s := SectionStatus{Section: name}
		for _, f := range l.Findings {
			if sectionOf(f) == name {
				s.Findings = append(s.Findings, f)
			}
		}
		content := l.Section(name)
		if content != nil {
			s.Digest = Digest(content)
		}
		if a, ok := approvals[name]; ok {
			s.Approval = &a
		}
		switch {
		case content == nil || hasError(s.Findings):
			s.State = Incomplete
		case s.Approval == nil:
			s.State = Unapproved
		case s.Approval.Digest != s.Digest:
			s.State = Stale
		default:
			s.State = Approved
		}
		if s.State != Approved {
			st.Approved = false
		}
		st.Sections = append(st.Sections, s)
	}
	if len(st.FileFindings) > 0 {
		st.Approved = false
	}
	return st
}

func hasError(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == "error" {
			return true
		}
	}
	return false
}

// UseApprovals gives the contract the approvals recorded in the approvals
// log, the only ones it trusts, and the log's problem when it does not
// verify (then nothing in it counts, and the contract is not approved).
func (l *Loaded) UseApprovals(approvals map[string]Approval, problem error) {
	l.log, l.logProblem = approvals, problem
}

// approvals are those of the log; an approvals block in contract.yaml, which
// an agent can write as easily as any other part of it, is never read.
func (l *Loaded) approvals() map[string]Approval {
	if l.logProblem != nil {
		return nil
	}
	return l.log
}

// LegacyApprovals reports whether contract.yaml still holds a non-empty
// approvals block from an older rlxp, which is no longer read.
func (l *Loaded) LegacyApprovals() bool {
	m, _ := l.File.Value.(map[string]any)
	raw, _ := m["approvals"].(map[string]any)
	return len(raw) > 0
}
