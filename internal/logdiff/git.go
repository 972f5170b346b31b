package logdiff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/rlxp/rlxp/internal/state"
)

// AtRef returns a state file's content at a git ref of the repository
// holding root, or nothing when it did not exist there. Errors carry git's
// own message.
func AtRef(ctx context.Context, root, ref, file string) ([]byte, error) {
	git := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				if msg := strings.TrimSpace(stderr.String()); msg != "" {
					return nil, fmt.Errorf("git %s: %s", args[0], msg)
				}
			}
			if errors.Is(err, exec.ErrNotFound) {
				return nil, fmt.Errorf("ledger diff reads the base with git, which is not on PATH: %w", err)
			}
			return nil, fmt.Errorf("git %s: %w", args[0], err)
		}
		return out, nil
	}
	if _, err := git("rev-parse", "--show-toplevel"); err != nil {
		return nil, err
	}
	if _, err := git("cat-file", "-e", ref+"^{commit}"); err != nil {
		return nil, fmt.Errorf("base %s: %w", ref, err)
	}
	// "./" makes the path relative to root, wherever that is in the repo.
	obj := ref + ":./" + state.DirName + "/" + file
	if _, err := git("cat-file", "-e", obj); err != nil {
		return nil, nil
	}
	return git("cat-file", "blob", obj)
}
