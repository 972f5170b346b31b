package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/state"
)

// What an update did.
const (
	Written   = "written"
	UpToDate  = "up_to_date"
	OutOfDate = "out_of_date"
)

// An Outcome is what 'rlxp report' did, or with Check would do.
type Outcome struct {
	Schema string  `json:"schema"`
	File   string  `json:"file"`
	Check  bool    `json:"check"`
	Action string  `json:"action"`
	Report *Report `json:"report"`
	// Wrote are the files written (report.md and the charts that changed).
	Wrote []string `json:"wrote,omitempty"`
	// plots says the charts were asked for, so the command to bring
	// them up to date asks for them too.
	plots bool
}

// Charts draws the learning-curve charts: their links and, by file name,
// their bytes.
type Charts func(context.Context) ([]Plot, map[string][]byte, error)

// Update regenerates the generated blocks of report.md (and, when charts
// is not nil, the charts in .rlxp/plots/) from the repository's state and
// its run records. With check it writes nothing and says whether a file is
// out of date. warn receives what the state holds that the report leaves
// out. The caller holds the state lock unless check is set.
func Update(ctx context.Context, r *state.Repo, check bool, charts Charts, warn func(string)) (Outcome, error) {
	name := r.Show(state.Report)
	old, err := r.Read(state.Report)
	if err != nil {
		return Outcome{}, err
	}
	doc, err := ParseMarkers(name, old)
	if err != nil {
		return Outcome{}, err
	}
	recs, err := runs.List(r.Path(state.Runs))
	if err != nil {
		return Outcome{}, err
	}
	rep, warnings, err := Load(r, recs)
	if err != nil {
		return Outcome{}, err
	}
	for _, w := range warnings {
		warn(w)
	}
	var svgs map[string][]byte
	if charts != nil {
		if rep.Plots, svgs, err = charts(ctx); err != nil {
			return Outcome{}, err
		}
	}
	out := doc.Render(rep.Markdown)
	res := Outcome{Schema: Schema, File: name, Check: check, Action: UpToDate, Report: rep, plots: charts != nil}
	plotsDir := filepath.Join(filepath.Dir(r.Path(state.Report)), "plots")
	var stale []Plot
	for _, p := range rep.Plots {
		cur, err := os.ReadFile(filepath.Join(plotsDir, filepath.Base(p.File)))
		if err != nil || !bytes.Equal(cur, svgs[p.File]) {
			stale = append(stale, p)
		}
	}
	if len(stale) > 0 {
		res.Action = OutOfDate
		if !check {
			if err := os.MkdirAll(plotsDir, 0o755); err != nil {
				return Outcome{}, fmt.Errorf("creating %s: %w", r.Display(filepath.Join(state.DirName, "plots")), err)
			}
			for _, p := range stale {
				path := filepath.Join(plotsDir, filepath.Base(p.File))
				if err := state.WriteFile(path, svgs[p.File], 0o644); err != nil {
					return Outcome{}, err
				}
				res.Wrote = append(res.Wrote, r.Display(filepath.Join(state.DirName, "plots", filepath.Base(p.File))))
			}
			res.Action = Written
		}
	}
	if !bytes.Equal(out, old) {
		res.Action = OutOfDate
		if !check {
			perm := os.FileMode(0o644)
			if fi, err := os.Stat(r.Path(state.Report)); err == nil {
				perm = fi.Mode().Perm()
			}
			if err := state.WriteFile(r.Path(state.Report), out, perm); err != nil {
				return Outcome{}, err
			}
			res.Wrote = append([]string{name}, res.Wrote...)
			res.Action = Written
		}
	}
	return res, nil
}

// Text is the outcome and the next steps, as lines of text.
func (o Outcome) Text() string {
	var b strings.Builder
	switch o.Action {
	case Written:
		for _, f := range o.Wrote {
			fmt.Fprintf(&b, "wrote %s\n", f)
		}
		if len(o.Wrote) > 0 && o.Wrote[0] != o.File {
			fmt.Fprintf(&b, "%s is up to date\n", o.File)
		}
	case UpToDate:
		fmt.Fprintf(&b, "%s is up to date\n", o.File)
	case OutOfDate:
		cmd := "rlxp report"
		if o.plots {
			cmd += " --plots"
		}
		fmt.Fprintf(&b, "%s is out of date: run '%s' to regenerate it\n", o.File, cmd)
	}
	b.WriteString("next:\n")
	for i, s := range o.Report.Next {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, s)
	}
	return b.String()
}
