package ledger

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
)

// States of a recorded source file, re-hashed.
const (
	SourceUnchanged  = "unchanged"
	SourceChanged    = "changed"
	SourceVanished   = "vanished"
	SourceUnreadable = "unreadable"
)

// A SourceCheck is one metric file an entry recorded, hashed again.
type SourceCheck struct {
	Seq        int64  `json:"seq"`
	Experiment string `json:"experiment"`
	Seed       int    `json:"seed"`
	Source     string `json:"source"`
	Path       string `json:"path"`
	Recorded   string `json:"recorded"`
	Now        string `json:"now,omitempty"`
	State      string `json:"state"`
	Detail     string `json:"detail,omitempty"`
}

// Hasher hashes a file (or a directory of files) as score did.
type Hasher func(path string) (string, error)

// VerifySources hashes every source file the entries recorded (paths are
// relative to root unless absolute) and says, for each, whether it is
// unchanged, changed, vanished or unreadable. A file recorded by several
// entries is hashed once.
func VerifySources(entries []Entry, root string, hash Hasher) []SourceCheck {
	type result struct {
		sum string
		err error
	}
	seen := map[string]result{}
	var out []SourceCheck
	for _, e := range entries {
		srcs, _ := e.Fields["sources"].([]any)
		for _, s := range srcs {
			m, _ := s.(map[string]any)
			c := SourceCheck{Seq: e.Seq, Experiment: e.String("experiment")}
			c.Source, _ = m["source"].(string)
			c.Path, _ = m["path"].(string)
			c.Recorded, _ = m["sha256"].(string)
			if n, ok := m["seed"].(interface{ String() string }); ok {
				c.Seed, _ = strconv.Atoi(n.String())
			} else if f, ok := m["seed"].(float64); ok {
				c.Seed = int(f)
			}
			if c.Path == "" || c.Recorded == "" {
				continue // an entry from before sources were hashed
			}
			path := c.Path
			if !filepath.IsAbs(path) {
				path = filepath.Join(root, path)
			}
			r, ok := seen[path]
			if !ok {
				r.sum, r.err = hash(path)
				seen[path] = r
			}
			switch {
			case errors.Is(r.err, fs.ErrNotExist):
				c.State = SourceVanished
			case r.err != nil:
				c.State, c.Detail = SourceUnreadable, r.err.Error()
			case r.sum != c.Recorded:
				c.State, c.Now = SourceChanged, r.sum
			default:
				c.State, c.Now = SourceUnchanged, r.sum
			}
			out = append(out, c)
		}
	}
	return out
}
