package audit

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/schema/validate"
	"github.com/rlxp/rlxp/internal/state"
)

// A Write is what a change to adapter.yaml did.
type Write struct {
	Path   string   `json:"path"`
	Filled []string `json:"filled"`
	Diff   string   `json:"diff"`
}

// WriteText says what the write filled, with its diff.
func (w *Write) WriteText(out io.Writer) {
	if w.Diff == "" {
		fmt.Fprintf(out, "\n%s: nothing to fill; every drafted field is already set\n", w.Path)
		return
	}
	fmt.Fprintf(out, "\nfilled %s in %s:\n%s", strings.Join(w.Filled, ", "), w.Path, w.Diff)
}

// rewrite writes merged over adapter.yaml when it differs from old.
func rewrite(r *state.Repo, show string, old, merged []byte, filled []string) (*Write, error) {
	w := &Write{Path: show, Filled: filled}
	if w.Filled == nil {
		w.Filled = []string{}
	}
	if bytes.Equal(old, merged) {
		return w, nil
	}
	if err := state.WriteFile(r.Path(state.Adapter), merged, 0o644); err != nil {
		return nil, err
	}
	w.Diff = string(diff.Diff("a/"+show, old, "b/"+show, merged))
	return w, nil
}

// A Locker takes the repository's state lock.
type Locker func() (*state.Lock, error)

// lockedAdapter reads adapter.yaml under the state lock; without .rlxp
// there is no lock file either, so it first says how to create it.
func lockedAdapter(r *state.Repo, lock Locker) (*state.Lock, []byte, error) {
	if _, err := r.Read(state.Adapter); err != nil {
		return nil, nil, err
	}
	l, err := lock()
	if err != nil {
		return nil, nil, err
	}
	old, err := r.Read(state.Adapter)
	if err != nil {
		l.Unlock()
		return nil, nil, err
	}
	return l, old, nil
}

// WriteDraft merges the draft into the repository's adapter.yaml under
// the state lock, filling only empty fields; an unchanged file is not
// rewritten.
func WriteDraft(r *state.Repo, d Draft, lock Locker) (*Write, error) {
	l, old, err := lockedAdapter(r, lock)
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	show := r.Show(state.Adapter)
	merged, filled, err := Fill(show, old, d)
	if err != nil {
		return nil, err
	}
	return rewrite(r, show, old, merged, filled)
}

// An ObserveResult is what audit --observe found in a run and did to
// adapter.yaml.
type ObserveResult struct {
	Schema       string        `json:"schema"`
	RunDir       string        `json:"run_dir"`
	Observations []Observation `json:"observations"`
	Write        *Write        `json:"write,omitempty"`
}

// ObserveRun reads what the run in the directory named given (relative
// to workDir) wrote where adapter.yaml's sources say and rewrites the
// sources with what it observed, under the state lock.
func ObserveRun(r *state.Repo, workDir, given string, lock Locker) (*ObserveResult, error) {
	runDir := given
	if !filepath.IsAbs(runDir) {
		runDir = filepath.Join(workDir, runDir)
	}
	if st, err := os.Stat(runDir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--observe %s: not a run directory", given)
	}
	l, old, err := lockedAdapter(r, lock)
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	show := r.Show(state.Adapter)
	ad, err := adapter.Parse(validate.Schemas{}, show, old)
	if err != nil {
		return nil, err
	}
	obs, err := Observe(runDir, ad.Metrics.Sources)
	if err != nil {
		return nil, err
	}
	for i := range obs {
		if obs[i].File != "" {
			obs[i].File = shownPath(r, obs[i].File)
		}
	}
	res := &ObserveResult{Schema: Schema, RunDir: shownPath(r, runDir), Observations: obs}
	if res.Observations == nil {
		res.Observations = []Observation{}
	}
	merged, filled, err := Observed(show, old, obs)
	if err != nil {
		return nil, err
	}
	if res.Write, err = rewrite(r, show, old, merged, filled); err != nil {
		return nil, err
	}
	return res, nil
}

// WroteMetrics reports that the run wrote a metric file some source reads.
func (o *ObserveResult) WroteMetrics() bool {
	for _, ob := range o.Observations {
		if ob.Status != ObsMissing {
			return true
		}
	}
	return false
}

// WriteText lists each source's observation as TSV rows, then the write.
func (o *ObserveResult) WriteText(out io.Writer) {
	for _, ob := range o.Observations {
		var points int64
		for _, t := range ob.Tags {
			points += t.Points
		}
		fmt.Fprintf(out, "source\t%s\t%s\t%s\t%d tags, %d points\n", ob.Source, ob.Status, dash(ob.File), len(ob.Tags), points)
		if ob.Path != ob.Declared && ob.Declared != "" {
			fmt.Fprintf(out, "path\t%s\t%s -> %s\n", ob.Source, ob.Declared, ob.Path)
		}
		for _, t := range ob.Confirmed {
			fmt.Fprintf(out, "tag\t%s\t%s\tconfirmed\n", ob.Source, t)
		}
		for _, t := range ob.Missing {
			fmt.Fprintf(out, "tag\t%s\t%s\tnot written\n", ob.Source, t)
		}
		for _, t := range ob.Added {
			fmt.Fprintf(out, "tag\t%s\t%s\tobserved\n", ob.Source, t)
		}
		if ob.Error != "" {
			fmt.Fprintf(out, "error\t%s\t%s\n", ob.Source, ob.Error)
		}
	}
	o.Write.WriteText(out)
}

// shownPath is a path as the person named it: under the repository,
// relative to how they named the root.
func shownPath(r *state.Repo, p string) string {
	if rel, err := filepath.Rel(r.Root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return r.Display(rel)
	}
	return p
}
