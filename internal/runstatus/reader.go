package runstatus

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/state"
)

// A Reader builds run statuses from one repository's files.
type Reader struct {
	Repo    *state.Repo
	Adapter *adapter.Adapter
	Now     func() time.Time
	// Stale is the log age at which a live run counts as stalled.
	Stale time.Duration
	// Cache, when set, keeps what each file said until the file changes.
	Cache *Cache
}

// Of builds one run's status from its record, its liveness, its log and
// its declared metric sources.
func (rd *Reader) Of(rec runs.Record, live diagnose.Liveness) (Run, error) {
	now := rd.Now()
	start, _ := time.Parse(time.RFC3339, rec.StartedAt)
	end := now
	if rec.Ended() {
		end, _ = time.Parse(time.RFC3339, rec.EndedAt)
	}
	run := Run{
		ID: rec.ID, Experiment: rec.Experiment, Seed: rec.Seed, Backend: rec.Backend, Confirmed: rec.Confirmed,
		State: live.State, StateDetail: live.Detail, Liveness: live.Evidence,
		SupervisorPID: rec.Supervisor, PID: rec.PID, JobID: rec.JobID,
		StartedAt: rec.StartedAt, EndedAt: rec.EndedAt, WallClock: rec.WallClock,
		Exit: rec.Exit, Signal: rec.Signal, StoppedBy: rec.StoppedBy,
		Sources: []Source{}, Signatures: []diagnose.Result{}, Live: live,
		Elapsed: max(end.Sub(start), 0),
	}
	if run.Liveness == nil {
		run.Liveness = []string{}
	}
	run.ElapsedS = int64(run.Elapsed / time.Second)
	if rec.WallClock != "" && !rec.Ended() {
		allowance, _ := time.ParseDuration(rec.WallClock)
		left := int64((allowance - run.Elapsed) / time.Second)
		run.WallClockLeft = &left
	}
	rules := diagnose.Rules()

	logSrc, err := rd.readLog(&run, rec, now, rules)
	if err != nil {
		return run, err
	}
	facts := diagnose.Facts{Alive: live.Alive, AliveKnown: live.Known, Process: strings.Join(live.Evidence, "; "), Stale: rd.Stale}
	if logSrc != nil {
		run.Log.Stale = run.LogAge > rd.Stale
		facts.Log, facts.LogAge = run.Log.Path, run.LogAge
		if n := len(run.Log.Tail); n > 0 {
			facts.LastLine = run.Log.Tail[n-1]
		}
	}

	// The metric sources adapter.yaml declares, for this run only.
	var declared []*diagnose.Source
	for _, name := range rd.Adapter.SourceNames() {
		src, view, err := rd.readSource(&run, name, rec, start, rules)
		if err != nil {
			return run, err
		}
		run.Sources = append(run.Sources, view)
		if src != nil {
			declared = append(declared, src)
		}
	}

	if src := diagnose.PickProgress(logSrc, declared); src != nil {
		p, _ := src.Progress(run.Elapsed)
		run.Progress = &p
		facts.HasStep, facts.LastStep = true, p.LastStep
	}
	in := diagnose.Input{Sources: declared, Facts: facts}
	if logSrc != nil {
		in.Sources = append(in.Sources, logSrc)
	}
	judge(&run, rules, in)
	return run, nil
}

// LogPath is a run's console log, relative to the repository unless
// recorded absolute.
func LogPath(rec runs.Record) string {
	if rec.Log != "" {
		return rec.Log
	}
	return filepath.Join(state.DirName, state.Runs, rec.ID, "log")
}

// readLog reads a run's log: its age, its step lines (verl console
// format) and its last lines. A run without a log yet has no source.
func (rd *Reader) readLog(run *Run, rec runs.Record, now time.Time, rules []diagnose.Rule) (*diagnose.Source, error) {
	rel := LogPath(rec)
	abs := InRepo(rd.Repo, rel)
	run.Log = Log{Path: ShowPath(rd.Repo, rel)}
	st, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		run.Log.Missing = true
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", run.Log.Path, err)
	}
	run.LogAge = max(now.Sub(st.ModTime()), 0)
	secs := int64(run.LogAge / time.Second)
	run.Log.AgeS = &secs
	f := rd.Cache.read(abs, run.Log.Path, metrics.VerlLog, time.Time{}, st, true, rules)
	// Most lines of a log are not step lines, and a log may hold none
	// (another framework, or too early): that is no error.
	var me *metrics.Error
	if f.err != nil && !errors.As(f.err, &me) {
		run.Warnings = append(run.Warnings, f.err.Error())
	}
	if f.tailErr != nil {
		run.Warnings = append(run.Warnings, f.tailErr.Error())
	}
	run.Log.Tail = f.tail
	return f.src, nil
}

// RunSource fills in adapter.yaml's metric source name for one run: its
// path relative to the repository and its format. skip says why a source
// cannot be filled in for this run; err is a malformed declaration.
func RunSource(r *state.Repo, ad *adapter.Adapter, name string, rec runs.Record) (rel string, format metrics.Format, skip string, err error) {
	s := ad.Metrics.Sources[name]
	if rec.RunDir == "" && strings.Contains(s.Path, "{run_dir}") {
		return "", "", "run.json records no run_dir", nil
	}
	vars := map[string]string{"run_dir": rec.RunDir, "experiment": rec.Experiment}
	if rec.Seed != nil {
		vars["seed"] = strconv.Itoa(*rec.Seed)
	}
	if rel, err = adapter.Expand(s.Path, vars); err != nil {
		return "", "", err.Error(), nil
	}
	if adapter.IsPattern(s.Path) {
		// A pattern that matches nothing yet is a file not written yet.
		_, found, err := adapter.Matches(s.Path, vars, r.Root)
		switch {
		case err != nil:
			return "", "", err.Error(), nil
		case len(found) > 1:
			return "", "", fmt.Sprintf("%s matches %d files, a source must be one", rel, len(found)), nil
		case len(found) == 1 && !filepath.IsAbs(rel):
			if rel, err = filepath.Rel(r.Root, found[0]); err != nil {
				return "", "", err.Error(), nil
			}
		case len(found) == 1:
			rel = found[0]
		}
	}
	return rel, s.MetricFormat(), "", nil
}

// readSource reads one declared metric source of a run. A source that is
// not there yet, or cannot be filled in for this run, is reported and
// skipped; one that cannot be read is a warning: a file being written may
// end mid-line.
func (rd *Reader) readSource(run *Run, name string, rec runs.Record, start time.Time, rules []diagnose.Rule) (*diagnose.Source, Source, error) {
	view := Source{Name: name}
	rel, format, skip, err := RunSource(rd.Repo, rd.Adapter, name, rec)
	if err != nil {
		return nil, view, err
	}
	if skip != "" {
		view.State, view.Detail = SourceSkipped, skip
		return nil, view, nil
	}
	view.Path = ShowPath(rd.Repo, rel)
	abs := InRepo(rd.Repo, rel)
	st, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		view.State, view.Detail = SourceMissing, "not written yet"
		return nil, view, nil
	}
	// A file untouched since before the run started is an earlier run's.
	if err == nil && st.ModTime().Before(start) {
		view.State = SourceEarlier
		view.Detail = fmt.Sprintf("last written %s, before this run started", st.ModTime().UTC().Format(time.RFC3339))
		return nil, view, nil
	}
	f := rd.Cache.read(abs, view.Path, format, start, st, false, rules)
	view.Format, view.Points = string(f.format), f.src.Points()
	if f.err != nil {
		run.Warnings = append(run.Warnings, f.err.Error())
		view.State, view.Detail = SourceUnreadable, oneLine(f.err.Error())
		return nil, view, nil
	}
	view.State = SourceRead
	if n := f.src.Dropped(); n > 0 {
		view.Detail = fmt.Sprintf("%d points stamped before this run started left out", n)
	}
	return f.src, view, nil
}

// readFile reads one metric file into a fresh source; tail also reads its
// last lines.
func readFile(abs, shown string, format metrics.Format, notBefore time.Time, tail bool, rules []diagnose.Rule) fileFacts {
	src := diagnose.NewSource(shown, rules)
	if !notBefore.IsZero() {
		src.NotBefore(notBefore)
	}
	info, err := metrics.Read(abs, format, src)
	var me *metrics.Error
	if errors.As(err, &me) {
		me.Path = shown
	}
	f := fileFacts{src: src, format: info.Format, err: err}
	if tail {
		f.tail, f.tailErr = diagnose.Tail(abs, tailLines)
	}
	return f
}

// InRepo resolves a path recorded relative to the repository.
func InRepo(r *state.Repo, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(r.Root, p)
}

// ShowPath is a recorded path as the user sees it.
func ShowPath(r *state.Repo, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return r.Display(p)
}

// oneLine puts a message on one line.
func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ")
}
