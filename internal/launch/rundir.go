package launch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkRunDirs refuses run directories that would let one run's files be
// taken for another's, or let a run write where it must not: a template
// without {seed} (seeds would share a directory), two runs in one
// directory, a directory that exists already (a relaunch would write over
// a scored run), a path outside the repository, or one in .git/ or
// .rlxp/. Every run writes into a new directory of its own.
func checkRunDirs(root, tmpl string, runs []Run) error {
	if !strings.Contains(tmpl, "{seed}") {
		return &RunDirError{fmt.Errorf("%q does not separate seeds: it needs {seed}, so that every run writes into a directory of its own", tmpl)}
	}
	seen := map[string]int{}
	for _, r := range runs {
		dir := r.RunDir
		abs := dir
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(root, dir)
		}
		abs = filepath.Clean(abs)
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return &RunDirError{fmt.Errorf("%s is outside the repository %s: runs write under it", dir, root)}
		}
		top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		if top == ".git" || top == ".rlxp" {
			return &RunDirError{fmt.Errorf("%s is inside %s/: runs never write there", dir, top)}
		}
		if prev, ok := seen[rel]; ok {
			return &RunDirError{fmt.Errorf("seeds %d and %d would share %s: every run writes into a directory of its own", prev, r.Seed, dir)}
		}
		seen[rel] = r.Seed
		if err := escapes(root, abs); err != nil {
			return &RunDirError{fmt.Errorf("%s: %w", dir, err)}
		}
		if _, err := os.Lstat(abs); err == nil {
			return &ExistsError{Dir: dir, Template: tmpl}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return &RunDirError{fmt.Errorf("%s: %w", dir, err)}
		}
	}
	return nil
}

// An ExistsError is a run directory that exists already: a refusal, not
// a bad command line (another launch may just have made it).
type ExistsError struct{ Dir, Template string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s exists: a run wrote there before, and a relaunch never touches its files; launch into a new directory, e.g. --run-dir '%s-2'", e.Dir, e.Template)
}

// escapes refuses a run directory whose existing part leads out of the
// repository through a symbolic link.
func escapes(root, abs string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil // the repository itself is checked elsewhere
	}
	dir := abs
	for {
		if _, err := os.Lstat(dir); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("leads out of the repository through a symbolic link (to %s)", real)
	}
	return nil
}

// makeRunDir creates a run's directory when it starts, failing if it
// exists: what was checked at the plan is still true at the start.
func makeRunDir(root, dir string) error {
	abs := dir
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, dir)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return fmt.Errorf("create the parent of run directory %s: %w", dir, err)
	}
	if err := os.Mkdir(abs, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("run directory %s exists: another run wrote there; nothing of it is touched", dir)
		}
		return fmt.Errorf("create run directory %s: %w", dir, err)
	}
	return nil
}
