package contract

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
)

// Approve records approvals for the named sections and returns the new
// contents of contract.yaml. Only the approvals block is rewritten; every
// other byte of the file, comments included, is kept. A section with
// errors cannot be approved.
func (l *Loaded) Approve(sections []string, by, at string, interactive bool) ([]byte, error) {
	if by == "" {
		return nil, fmt.Errorf("approver name is empty")
	}
	for _, f := range l.Errors() {
		if sectionOf(f) == "" {
			return nil, fmt.Errorf("%s (fix it before approving)", f.Error.Error())
		}
	}
	st := l.Status()
	approvals := l.approvals()
	for _, name := range sections {
		if !IsSection(name) {
			return nil, fmt.Errorf("unknown section %q (sections: %s)", name, strings.Join(sectionNames[:], ", "))
		}
		s := st.Sections[indexOf(name)]
		if s.State == Incomplete {
			if len(s.Findings) > 0 {
				return nil, fmt.Errorf("cannot approve %s: %s", name, s.Findings[0].Error.Error())
			}
			return nil, fmt.Errorf("cannot approve %s: %s: section is missing", name, l.File.Path)
		}
		approvals[name] = Approval{By: by, At: at, Digest: s.Digest, Interactive: interactive}
	}
	return l.withApprovals(approvals)
}

func indexOf(section string) int {
	for i, s := range sectionNames {
		if s == section {
			return i
		}
	}
	return -1
}

// withApprovals splices a freshly rendered approvals block into the file in
// place of the old one (or at the end), then re-parses the result to prove
// the file still decodes to the same sections.
func (l *Loaded) withApprovals(approvals map[string]Approval) ([]byte, error) {
	ordered := yaml.MapSlice{}
	for _, name := range sectionNames {
		if a, ok := approvals[name]; ok {
			ordered = append(ordered, yaml.MapItem{Key: name, Value: a})
		}
	}
	block, err := yaml.Marshal(yaml.MapSlice{{Key: "approvals", Value: ordered}})
	if err != nil {
		return nil, fmt.Errorf("render approvals: %w", err)
	}
	lines := bytes.SplitAfter(l.File.Data, []byte("\n"))
	start := l.File.KeyLine("approvals") - 1 // 0-based; -1 when absent
	var out []byte
	if start < 0 {
		out = append(out, l.File.Data...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, block...)
	} else {
		end := len(lines)
		for _, kl := range l.File.TopKeyLines() {
			if kl-1 > start && kl-1 < end {
				end = kl - 1
			}
		}
		// Comments and blank lines just above the next key belong to it.
		for end > start+1 && isCommentOrBlank(lines[end-1]) {
			end--
		}
		for _, ln := range lines[:start] {
			out = append(out, ln...)
		}
		out = append(out, block...)
		for _, ln := range lines[end:] {
			out = append(out, ln...)
		}
	}
	check, err := Parse(l.File.Path, out)
	if err != nil {
		return nil, fmt.Errorf("approvals would corrupt %s: %w", l.File.Path, err)
	}
	for _, name := range sectionNames {
		if Digest(check.Section(name)) != Digest(l.Section(name)) {
			return nil, fmt.Errorf("approvals would change section %s of %s", name, l.File.Path)
		}
	}
	return out, nil
}

func isCommentOrBlank(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) == 0 || t[0] == '#'
}
