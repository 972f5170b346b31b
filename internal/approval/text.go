package approval

import (
	"errors"
	"fmt"
	"os/user"
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

// Approver is the name recorded with an approval or a rejection: by (the
// --by flag), else the login name ($USER, $LOGNAME, then the user
// database), checked as CheckName does.
func Approver(by string, getenv func(string) string) (string, error) {
	for _, k := range []string{"USER", "LOGNAME"} {
		if by == "" {
			by = getenv(k)
		}
	}
	if by == "" {
		if u, err := user.Current(); err == nil {
			by = u.Username
		}
	}
	if by == "" {
		return "", errors.New("cannot tell who is approving: pass --by NAME")
	}
	return by, CheckName(by)
}
