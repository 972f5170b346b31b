package approval

import (
	"fmt"
	"strings"

	"github.com/rlxp/rlxp/internal/plaintext"
)

// maxName bounds an approver's name.
const maxName = 200

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
	return plaintext.Check("approver name (--by)", by)
}
