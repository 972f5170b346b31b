package approval

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxName bounds an approver's name.
const maxName = 200

// CheckText refuses control characters (newlines, escapes, bidi overrides
// and the like) in free text rlxp records: shown later by show, status and
// the PR comment, they could fake a line or hide what follows. what names
// the text in the error, e.g. "--hypothesis".
func CheckText(what, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid UTF-8", what)
	}
	for i, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return fmt.Errorf("%s holds the control character %U at byte %d; write it on one line of plain text", what, r, i)
		}
	}
	return nil
}

// CheckName checks an approver's name: plain text on one line, not empty,
// not longer than 200 bytes, and not starting with "-", which is how a flag
// swallowed as the name looks (--by --version).
func CheckName(by string) error {
	switch {
	case strings.TrimSpace(by) == "":
		return fmt.Errorf("approver name is empty; pass --by NAME")
	case strings.HasPrefix(by, "-"):
		return fmt.Errorf("approver name %q starts with '-': a flag, not a name; pass --by NAME", by)
	case len(by) > maxName:
		return fmt.Errorf("approver name is %d bytes long; at most %d", len(by), maxName)
	}
	return CheckText("approver name (--by)", by)
}
