package adapter

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A source path may name its file by a pattern (path.Match syntax: *, ?,
// [...]), for trainers that put a time, host or pid in the name. The
// evidence must still be one file: a pattern matching two is ambiguous
// (for TensorBoard, a resumed run's second log), so it is refused rather
// than one of them picked.

// IsPattern says whether a source path template names its file by a
// pattern. Only the template's own metacharacters count: a run directory
// filled in is taken literally.
func IsPattern(template string) bool { return strings.ContainsAny(template, `*?[`) }

// QuoteMeta escapes s so that a pattern matches it literally.
func QuoteMeta(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// MatchFiles lists, sorted, the regular files (or links to them) that
// pattern matches; directories and other files are not matches.
func MatchFiles(pattern string) ([]string, error) {
	all, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("%w (pattern %q)", err, pattern)
	}
	var out []string
	for _, m := range all {
		if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out, nil
}

// Matches fills a pattern template's placeholders with vars, taken
// literally, and lists the regular files the pattern matches: relative
// patterns lie under root. glob is the pattern as matched.
func Matches(template string, vars map[string]string, root string) (glob string, files []string, err error) {
	quoted := make(map[string]string, len(vars))
	for k, v := range vars {
		quoted[k] = QuoteMeta(v)
	}
	if glob, err = Expand(template, quoted); err != nil {
		return "", nil, err
	}
	if !filepath.IsAbs(glob) {
		glob = filepath.Join(QuoteMeta(root), glob)
	}
	files, err = MatchFiles(glob)
	return glob, files, err
}
