// Package state owns the .rlxp/ directory of a target repository: where its
// files live, how they are written (atomically) and how writers exclude each
// other (a file lock).
package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DirName is the state directory inside a target repository.
const DirName = ".rlxp"

// File names inside DirName.
const (
	Adapter     = "adapter.yaml"
	Contract    = "contract.yaml"
	Experiments = "experiments.yaml"
	Report      = "report.md"
	Ledger      = "ledger.jsonl"
	Approvals   = "approvals.jsonl"
	Runs        = "runs"
	// Cache holds what rlxp derives from the state files to skip work
	// another time. Nothing in it is a record: deleting it costs time
	// alone, and it keeps itself out of git.
	Cache    = "cache"
	lockName = ".lock"
)

// A Repo is a target repository with (possibly) a .rlxp directory.
type Repo struct {
	Root string // absolute
	// Display is how paths are shown to the user: relative to the working
	// directory when Root is below it.
	display string
}

// Open returns the repository at root; cwd is used to shorten paths in messages.
func Open(root, cwd string) (*Repo, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", root, err)
	}
	r := &Repo{Root: abs}
	if rel, err := filepath.Rel(cwd, abs); err == nil && !strings.HasPrefix(rel, "..") {
		r.display = rel
	} else {
		r.display = abs
	}
	return r, nil
}

// Dir is the absolute path of .rlxp.
func (r *Repo) Dir() string { return filepath.Join(r.Root, DirName) }

// Path is the absolute path of a file inside .rlxp.
func (r *Repo) Path(name string) string { return filepath.Join(r.Root, DirName, name) }

// CachePath is the absolute path of one cache inside .rlxp/cache.
func (r *Repo) CachePath(name string) string { return filepath.Join(r.Root, DirName, Cache, name) }

// MakeCache creates the cache name inside .rlxp/cache, and .rlxp/cache
// itself with a .gitignore that keeps all of it out of git, but never
// .rlxp: a repository rlxp has not initialised stays untouched. Either
// directory must be a directory, not a link to one elsewhere.
func (r *Repo) MakeCache(name string) error {
	dir := r.Path(Cache)
	for _, d := range []string{dir, filepath.Join(dir, name)} {
		if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", d, err)
		}
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			return fmt.Errorf("create %s: not a directory", d)
		}
	}
	ignore := filepath.Join(dir, ".gitignore")
	if _, err := os.Lstat(ignore); errors.Is(err, fs.ErrNotExist) {
		return WriteFile(ignore, []byte("# Derived from the state files: never reviewed, safe to delete.\n*\n"), 0o644)
	}
	return nil
}

// Show is the path of a file inside .rlxp as shown to the user.
func (r *Repo) Show(name string) string {
	return filepath.Join(r.display, DirName, name)
}

// Display is how a path relative to the repository root is shown.
func (r *Repo) Display(rel string) string { return filepath.Join(r.display, rel) }

// ErrNotInitialized means the repository has no .rlxp directory.
var ErrNotInitialized = errors.New("not initialised")

// Read returns the contents of a state file, with an error that says how to
// create it when the state directory is missing.
func (r *Repo) Read(name string) ([]byte, error) {
	data, err := os.ReadFile(r.Path(name))
	if err == nil {
		return data, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		if _, derr := os.Stat(r.Dir()); errors.Is(derr, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w (run 'rlxp init --root %s')", r.Show(""), ErrNotInitialized, r.display)
		}
		return nil, fmt.Errorf("%s: file is missing (run 'rlxp init' to restore it)", r.Show(name))
	}
	return nil, fmt.Errorf("read %s: %w", r.Show(name), err)
}

// ValidName reports whether s is 1-64 letters, digits, '.', '_' or '-',
// starting with a letter or digit: safe as a file name and in YAML.
func ValidName(s string) bool {
	if len(s) == 0 || len(s) > 64 || !alnum(s[0]) {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return r > 127 || !alnum(byte(r)) && r != '.' && r != '_' && r != '-'
	}) < 0
}

func alnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// ValidID reports whether id may name an experiment or run. Ids become
// directory names under .rlxp/runs, so none may reach outside it.
func ValidID(id string) error {
	if !ValidName(id) || strings.Contains(id, "..") {
		return fmt.Errorf("invalid id %q: use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit, without '..'", id)
	}
	return nil
}
