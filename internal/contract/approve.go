package contract

import (
	"bytes"
	"fmt"
	"strings"
)

// Digests checks that every named section can be approved (known, complete,
// in a contract without file-wide errors) and returns each one's digest:
// what an approval record pins.
func (l *Loaded) Digests(sections []string) (map[string]string, error) {
	for _, f := range l.Errors() {
		if sectionOf(f) == "" {
			return nil, fmt.Errorf("%s (fix it before approving)", f.Error.Error())
		}
	}
	st := l.Status()
	out := map[string]string{}
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
		out[name] = s.Digest
	}
	return out, nil
}

func indexOf(section string) int {
	for i, s := range sectionNames {
		if s == section {
			return i
		}
	}
	return -1
}

// WithoutLegacyApprovals returns contract.yaml without the approvals block
// an older rlxp kept in it, every other byte kept, and whether there was
// one. The result is re-parsed to prove no section changed.
func (l *Loaded) WithoutLegacyApprovals() ([]byte, bool, error) {
	start := l.File.KeyLine("approvals") - 1 // 0-based; -1 when absent
	if start < 0 {
		return l.File.Data, false, nil
	}
	lines := bytes.SplitAfter(l.File.Data, []byte("\n"))
	end := len(lines)
	for _, kl := range l.File.TopKeyLines() {
		if kl-1 > start && kl-1 < end {
			end = kl - 1
		}
	}
	// Comments and blank lines just above the next key belong to it; the
	// comment just above the block belongs to the block.
	for end > start+1 && isCommentOrBlank(lines[end-1]) {
		end--
	}
	for start > 0 && isComment(lines[start-1]) {
		start--
	}
	var out []byte
	for _, ln := range lines[:start] {
		out = append(out, ln...)
	}
	for _, ln := range lines[end:] {
		out = append(out, ln...)
	}
	check, err := Parse(l.checker, l.File.Path, out)
	if err != nil {
		return nil, false, fmt.Errorf("removing the approvals block would corrupt %s: %w", l.File.Path, err)
	}
	for _, name := range sectionNames {
		if Digest(check.Section(name)) != Digest(l.Section(name)) {
			return nil, false, fmt.Errorf("removing the approvals block would change section %s of %s", name, l.File.Path)
		}
	}
	return out, true, nil
}

func isComment(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) > 0 && t[0] == '#'
}

func isCommentOrBlank(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) == 0 || t[0] == '#'
}
