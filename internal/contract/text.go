package contract

import (
	"bytes"
	"fmt"
	"strings"
)

// Row is one section of status's table: section, state, approved by, at,
// and a detail saying what a human does next.
func (s SectionStatus) Row() []string {
	by, at, detail := "", "", ""
	if s.Approval != nil {
		by, at = s.Approval.By, s.Approval.At
		if !s.Approval.Interactive {
			by += " (non-interactive)"
		}
	}
	switch s.State {
	case Stale:
		detail = "edited since approval"
	case Unapproved:
		detail = "waiting for 'rlxp contract approve " + s.Section + "'"
	case Incomplete:
		detail = "section is missing"
		if len(s.Findings) > 0 {
			detail = s.Findings[0].Error.Error()
			if n := len(s.Findings) - 1; n > 0 {
				detail += fmt.Sprintf(" (+%d more)", n)
			}
		}
	}
	return []string{s.Section, s.State, by, at, detail}
}

// Count is how many sections are approved and current.
func (st Status) Count() int {
	n := 0
	for _, s := range st.Sections {
		if s.State == Approved {
			n++
		}
	}
	return n
}

// Notes are the lines status prints under the table: errors outside any
// section and the note about approvals an older rlxp kept in the file.
func (st Status) Notes() []string {
	var out []string
	for _, f := range st.FileFindings {
		out = append(out, "error: "+f.Error.Error())
	}
	if st.Legacy != "" {
		out = append(out, "note: "+st.Legacy)
	}
	return out
}

// A SectionView is one section as show prints it.
type SectionView struct {
	Section  string    `json:"section"`
	State    string    `json:"state"`
	Digest   string    `json:"digest,omitempty"`
	Approval *Approval `json:"approval,omitempty"`
	Content  any       `json:"content"`
	Text     string    `json:"-"` // the lines as written in the file
}

// Views are the named sections (all when none is named), in order.
func (l *Loaded) Views(sections []string) []SectionView {
	var views []SectionView
	for _, s := range l.Status().Sections {
		for _, want := range sections {
			if s.Section == want {
				views = append(views, SectionView{s.Section, s.State, s.Digest, s.Approval, l.Section(s.Section), l.SectionText(s.Section)})
			}
		}
	}
	return views
}

// Heading is the line show prints above a section: its state, approval
// and the digest an approval would record.
func (v SectionView) Heading() string {
	h := ""
	if v.Approval != nil {
		h += fmt.Sprintf(" (approved by %s at %s)", v.Approval.By, v.Approval.At)
	}
	if v.Digest != "" {
		h += ", digest " + v.Digest
	}
	return h
}

// SectionText is the section's lines as written in the file.
func (l *Loaded) SectionText(section string) string {
	start := l.File.KeyLine(section)
	if start == 0 {
		return section + ": (missing)\n"
	}
	lines := bytes.SplitAfter(l.File.Data, []byte("\n"))
	end := len(lines)
	for _, kl := range l.File.TopKeyLines() {
		if kl > start && kl-1 < end {
			end = kl - 1
		}
	}
	// Blank lines and unindented comments at the end introduce the next key.
	for end > start && (len(bytes.TrimSpace(lines[end-1])) == 0 || lines[end-1][0] == '#') {
		end--
	}
	s := string(bytes.Join(lines[start-1:end], nil))
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}
