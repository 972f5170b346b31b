package schema

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"

	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/state"
)

// verdictFormat changes whenever what passing a schema means changes
// other than through the schema files or the validator's version (the
// violations Validate drops, how document normalises values), so that no
// older verdict is trusted.
const verdictFormat = "rlxp schema verdict 2"

// validatorModule is the validator package validate links, as go.mod
// requires it (a test holds the two equal). It is written here rather
// than read from the build, so that a binary that links no validator
// (rlxp's front) names the same verdicts as the one that validates.
const validatorModule = "github.com/xeipuuv/gojsonschema v1.2.0"

// cacheName is the verdicts' directory in the repository's cache.
const cacheName = "schema"

// Verdicts remembers which documents passed which schema, so that a
// state file read again unchanged is not validated again: compiling the
// JSON Schemas is most of what reading a small state file costs. A
// verdict is keyed on the sha256 of the document's exact bytes, of the
// schema's own bytes, and on the validator's version; only a pass is
// remembered, so a file with violations is validated, and reported, every
// time. Each verdict is a small file written whole by rename: processes
// share the directory without a lock, and a missing, torn or foreign
// entry only means validating.
type Verdicts struct {
	r        *state.Repo
	validate Checker // nil: look up only
}

// ErrNoVerdict is what Verdicts that only look up answer for a document
// with no pass remembered: the caller has to validate it some other way.
var ErrNoVerdict = errors.New("no schema verdict remembered")

// VerdictsOf returns the verdicts kept in the repository's cache
// (.rlxp/cache/schema), created on first write, which ask validate about
// a document they have no pass for and remember its passes. With a nil
// validate they only look up: a miss is ErrNoVerdict.
func VerdictsOf(r *state.Repo, validate Checker) *Verdicts { return &Verdicts{r, validate} }

// Check checks a document that, byte for byte, may have passed the named
// schema before.
func (v *Verdicts) Check(f *document.File, name string) ([]*document.Error, error) {
	key, line, err := v.key(f.Data, name)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(v.r.CachePath(cacheName), key)
	if got, err := os.ReadFile(path); err == nil && bytes.Equal(got, line) {
		return []*document.Error{}, nil
	}
	if v.validate == nil {
		return nil, ErrNoVerdict
	}
	errs, err := v.validate.Check(f, name)
	if err == nil && len(errs) == 0 {
		v.put(path, line)
	}
	return errs, err
}

// key names the verdict on data against the named schema; line is the
// entry's content, which a reader checks in full.
func (v *Verdicts) key(data []byte, name string) (key string, line []byte, err error) {
	src, err := Source(name)
	if err != nil {
		return "", nil, err
	}
	s, d := sha256.Sum256(src), sha256.Sum256(data)
	line = fmt.Appendf(nil, "%s\nvalidator %s\nschema %s sha256:%x\ndocument sha256:%x\npassed\n", verdictFormat, validator(), name, s, d)
	k := sha256.Sum256(line)
	return hex.EncodeToString(k[:]), line, nil
}

// validator is the build of the code that validates: the validator's
// module, and rlxp's own version and revision where the build records
// them (the same in every binary built from one tree).
var validator = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s", bi.Main.Path, bi.Main.Version)
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
			fmt.Fprintf(&b, " %s=%s", s.Key, s.Value)
		}
	}
	fmt.Fprintf(&b, " %s", validatorModule)
	return b.String()
})

// put remembers a pass. Failing to is not an error: the next read
// validates again.
func (v *Verdicts) put(path string, line []byte) {
	if v.r.MakeCache(cacheName) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(line)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}
