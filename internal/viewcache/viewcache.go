// Package viewcache remembers the views that read-only commands compute
// from the state files (what 'rlxp contract status' shows), so that a
// command asked again about files that have not changed, byte for byte,
// does not parse them again: parsing YAML is most of what such a command
// costs once the process has started.
//
// An entry is trusted only for the exact bytes of every file the view
// read, and only by the build of rlxp that computed it: its key is the
// sha256 of each input, the view's name and the executable's identity
// (module, version and revision, and the file's size, modification time
// and inode). Each build keeps one entry per view and repository display,
// replaced whole by rename when an input changes, so processes share the directory without a lock and a
// missing, torn, stale or foreign entry only means computing the view.
// Nothing in the cache is a record: commands that decide (approve, gate,
// check, launch) never read it.
package viewcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"syscall"

	"github.com/rlxp/rlxp/internal/state"
)

// format changes whenever what an entry holds changes other than through
// the build, so that no older entry is trusted.
const format = "rlxp view 1"

// cacheName is the views' directory in the repository's cache.
const cacheName = "views"

// An Input is one file a view reads, as it read it.
type Input struct {
	Name    string // how the view names it, e.g. the path shown
	Data    []byte
	Missing bool // the file does not exist (Data is empty)
}

// A Cache holds the entries of one view of one repository.
type Cache struct {
	r    *state.Repo
	view string
}

// Of returns the cache of the named view in the repository's cache
// (.rlxp/cache/views), created on first write.
func Of(r *state.Repo, view string) Cache { return Cache{r, view} }

// Load decodes into v the view remembered for exactly these inputs, and
// reports whether there was one.
func (c Cache) Load(v any, inputs ...Input) bool {
	path, head, ok := c.entry(inputs)
	if !ok {
		return false
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(got, head) {
		return false
	}
	return json.Unmarshal(got[len(head):], v) == nil
}

// Store remembers v, the view computed from exactly these inputs. Failing
// to is not an error: the next call computes the view again.
func (c Cache) Store(v any, inputs ...Input) {
	path, head, ok := c.entry(inputs)
	if !ok {
		return
	}
	body, err := json.Marshal(v)
	if err != nil || c.r.MakeCache(cacheName) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(append(head, body...))
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}

// entry is the path of the view's entry for these inputs' names, and the
// head an entry computed from exactly these inputs' bytes starts with;
// ok is false when the running executable cannot be identified.
func (c Cache) entry(inputs []Input) (path string, head []byte, ok bool) {
	b := build()
	if b == "" {
		return "", nil, false
	}
	head = fmt.Appendf(nil, "%s\nview %q\nbuild %s\n", format, c.view, b)
	n := len(head)
	for _, in := range inputs {
		head = fmt.Appendf(head, "input %q ", in.Name)
		if in.Missing {
			head = append(head, "missing\n"...)
			continue
		}
		sum := sha256.Sum256(in.Data)
		head = fmt.Appendf(head, "sha256:%x\n", sum)
	}
	head = append(head, '\n')
	// The entry's name covers the build, the view and the inputs' names,
	// not their bytes: a changed file replaces the entry rather than
	// adding one.
	name := sha256.New()
	name.Write(head[:n])
	for _, in := range inputs {
		fmt.Fprintf(name, "%q\n", in.Name)
	}
	return filepath.Join(c.r.CachePath(cacheName), hex.EncodeToString(name.Sum(nil))), head, true
}

// build identifies the running executable: its module, version and
// revision as the build recorded them, and the file itself (size,
// modification time, device and inode), so that a rebuilt rlxp of the
// same version trusts nothing an older build remembered. "" when the
// executable cannot be found.
var build = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "size=%d mtime=%d", fi.Size(), fi.ModTime().UnixNano())
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		fmt.Fprintf(&b, " dev=%d ino=%d", st.Dev, st.Ino)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintf(&b, " %s %s", bi.Main.Path, bi.Main.Version)
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				fmt.Fprintf(&b, " %s=%s", s.Key, s.Value)
			}
		}
	}
	return b.String()
})
