package contract

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

// approvals reads the approval records leniently from the generic value, so
// that status works on a contract whose other parts fail the schema.
func (l *Loaded) approvals() map[string]Approval {
	m, _ := l.File.Value.(map[string]any)
	raw, _ := m["approvals"].(map[string]any)
	out := make(map[string]Approval, len(raw))
	for name, v := range raw {
		r, ok := v.(map[string]any)
		if !ok {
			continue
		}
		a := Approval{}
		a.By, _ = r["by"].(string)
		a.At, _ = r["at"].(string)
		a.Digest, _ = r["digest"].(string)
		a.Interactive, _ = r["interactive"].(bool)
		out[name] = a
	}
	return out
}
