package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/slurm"
	"github.com/rlxp/rlxp/internal/state"
)

type statusOptions struct {
	root  string
	stale time.Duration
	json  bool
}

func newStatusCmd() *Command {
	var o statusOptions
	fs := pflag.NewFlagSet("status", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.DurationVar(&o.stale, "stale", 30*time.Minute, "a live run whose log is older than `DUR` has stalled")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp status [RUN|EXPERIMENT] [--stale DUR] [--root DIR] [--json]",
		Short:     "say whether runs are alive, how far they got, and which failure signature has evidence",
		Long: `Status reports on the runs recorded in .rlxp/runs, one report per run:
the metrics of two runs are never mixed. Without an argument it reports
the runs in flight or, when none is, the latest run, and says so. RUN is a
run id; EXPERIMENT reports the latest run of each of its seeds.

A report gives the run's state (running, pending, finished, failed,
stopped, lost or unknown) with its evidence: for a local run, its
supervisor and process group leader in the process table, the leader's
recorded start time telling a reused pid apart; for a Slurm run, the
scheduler. Then when it started, how long it has run and how much of its
wall-clock allowance is left, its last step and step rate (from the
points' wall times when a source has them, else the steps logged over the
run's elapsed time), how long ago its log was written, and the last lines
of the log of a run that failed, was lost or stalled.

The run's log (verl console step lines) and the metric sources adapter.yaml
declares, filled in with the run's {run_dir}, {seed} and {experiment},
are checked for failure signatures: R3 misalignment, frozen model,
gradient starvation, env avalanche, val fake-zero, no-tool-call collapse,
deadlock / stall (alive, with a log older than --stale), step slowdown,
NaN/Inf loss, entropy collapse, KL blow-up and reward plateau. A signature
is claimed only when its specific evidence is there, and the evidence is
quoted (tag, steps, values); otherwise the report says "no known signature
matched". A signature whose tags the run does not log is not evaluated;
--json lists each rule's outcome and why. A metric file that cannot be
read is named in a warning, with its position, and left out. A file
untouched since before the run started is an earlier run's, and points
stamped before the start belong to an earlier run appending to the same
file: both are left out, and the sources list says so.

Status only reads; it never writes .rlxp.

EXIT STATUS
  0  reported: no signature matched, and no run failed or was lost
  1  .rlxp, adapter.yaml or a run.json is missing or malformed, or there is
     no such run or experiment
  2  usage error
  3  reported, and a signature matched or a run failed or was lost`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runStatus(ctx, env, &o, args)
		},
	}
}

// statusReport is the --json output.
type statusReport struct {
	Schema string      `json:"schema"`
	Note   string      `json:"note,omitempty"`
	Runs   []statusRun `json:"runs"`
}

type statusRun struct {
	ID            string             `json:"id"`
	Experiment    string             `json:"experiment"`
	Seed          *int               `json:"seed"`
	Backend       string             `json:"backend"`
	State         diagnose.State     `json:"state"`
	StateDetail   string             `json:"state_detail,omitempty"`
	Liveness      []string           `json:"liveness"`
	SupervisorPID int                `json:"supervisor_pid,omitempty"`
	PID           int                `json:"pid,omitempty"`
	JobID         string             `json:"job_id,omitempty"`
	StartedAt     string             `json:"started_at"`
	EndedAt       string             `json:"ended_at,omitempty"`
	ElapsedS      int64              `json:"elapsed_s"`
	WallClock     string             `json:"wall_clock,omitempty"`
	WallClockLeft *int64             `json:"wall_clock_left_s,omitempty"`
	Exit          *int               `json:"exit,omitempty"`
	Signal        string             `json:"signal,omitempty"`
	StoppedBy     string             `json:"stopped_by,omitempty"`
	Progress      *diagnose.Progress `json:"progress"`
	Log           statusLog          `json:"log"`
	Sources       []statusSource     `json:"sources"`
	Diagnosis     string             `json:"diagnosis"`
	Signatures    []diagnose.Result  `json:"signatures"`
	Rules         []statusRule       `json:"rules"`
	Negative      bool               `json:"negative"` // failed, lost, or a signature matched
	// What the text report shows besides the JSON fields.
	live    diagnose.Liveness
	elapsed time.Duration
	logAge  time.Duration
}

type statusLog struct {
	Path    string   `json:"path"`
	Missing bool     `json:"missing,omitempty"`
	AgeS    *int64   `json:"age_s,omitempty"`
	Stale   bool     `json:"stale"`
	Tail    []string `json:"tail,omitempty"`
}

type statusSource struct {
	Name   string `json:"name"`
	Path   string `json:"path,omitempty"`
	Format string `json:"format,omitempty"`
	Points int64  `json:"points"`
	State  string `json:"state"` // read | missing | earlier (an earlier run's file) | skipped | unreadable
	Detail string `json:"detail,omitempty"`
}

type statusRule struct {
	ID      string           `json:"id"`
	Name    string           `json:"name"`
	Outcome diagnose.Outcome `json:"outcome"`
	Reason  string           `json:"reason,omitempty"`
}

const noSignature = "no known signature matched"

// tailLines is how much of a failed run's log the report quotes.
const tailLines = 5

func runStatus(ctx context.Context, env *Env, o *statusOptions, args []string) error {
	if len(args) > 1 {
		return usagef("status takes at most one run or experiment ID")
	}
	if o.stale <= 0 {
		return usagef("--stale must be a positive duration, such as 30m")
	}
	var id string
	if len(args) == 1 {
		var err error
		if id, err = argID(args[0]); err != nil {
			return err
		}
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	data, err := r.Read(state.Adapter)
	if err != nil {
		return err
	}
	ad, err := adapter.Parse(r.Show(state.Adapter), data)
	if err != nil {
		return err
	}
	recs, err := runs.List(r.Path(state.Runs))
	if err != nil {
		return err
	}
	for _, rec := range recs {
		if err := checkRecord(rec); err != nil {
			return fmt.Errorf("%s: %w", r.Display(filepath.Join(state.DirName, state.Runs, rec.ID, "run.json")), err)
		}
	}
	h := probe.System()
	sched := slurmScheduler{slurm.New()}
	lives := map[string]diagnose.Liveness{}
	liveness := func(rec runs.Record) diagnose.Liveness {
		l, ok := lives[rec.ID]
		if !ok {
			l = diagnose.Check(ctx, h, sched, rec)
			lives[rec.ID] = l
		}
		return l
	}
	chosen, note, err := chooseRuns(r, recs, id, liveness)
	if err != nil {
		return err
	}
	rep := statusReport{Schema: "rlxp.status/v1", Note: note, Runs: []statusRun{}}
	for _, rec := range chosen {
		run, err := statusOf(env, r, ad, rec, liveness(rec), o.stale)
		if err != nil {
			return err
		}
		rep.Runs = append(rep.Runs, run)
	}
	if o.json {
		if err := writeJSON(env.Stdout, rep); err != nil {
			return err
		}
	} else {
		printStatus(env, rep)
	}
	for _, run := range rep.Runs {
		if run.Negative {
			return errNegative
		}
	}
	return nil
}

// checkRecord rejects a run.json whose times cannot be read.
func checkRecord(rec runs.Record) error {
	if rec.StartedAt == "" {
		return errors.New("started_at is missing")
	}
	if _, err := time.Parse(time.RFC3339, rec.StartedAt); err != nil {
		return fmt.Errorf("started_at %q is not an RFC 3339 time", rec.StartedAt)
	}
	if rec.EndedAt != "" {
		if _, err := time.Parse(time.RFC3339, rec.EndedAt); err != nil {
			return fmt.Errorf("ended_at %q is not an RFC 3339 time", rec.EndedAt)
		}
	}
	if rec.WallClock != "" {
		if d, err := time.ParseDuration(rec.WallClock); err != nil || d <= 0 {
			return fmt.Errorf("wall_clock %q is not a positive duration", rec.WallClock)
		}
	}
	return nil
}

// chooseRuns picks the runs to report: the one named, the latest of each
// seed of the experiment named, or the runs in flight; with none in
// flight, the latest run, with a note saying so.
func chooseRuns(r *state.Repo, recs []runs.Record, id string, liveness func(runs.Record) diagnose.Liveness) ([]runs.Record, string, error) {
	byStart := func(rs []runs.Record) {
		sort.SliceStable(rs, func(i, j int) bool {
			a, _ := time.Parse(time.RFC3339, rs[i].StartedAt)
			b, _ := time.Parse(time.RFC3339, rs[j].StartedAt)
			return a.Before(b) || a.Equal(b) && rs[i].ID < rs[j].ID
		})
	}
	recs = append([]runs.Record(nil), recs...)
	byStart(recs)
	if id != "" {
		for _, rec := range recs {
			if rec.ID == id {
				return []runs.Record{rec}, "", nil
			}
		}
		latest := map[int]runs.Record{}
		for _, rec := range recs {
			if rec.Experiment == id {
				latest[seedKey(rec)] = rec
			}
		}
		if len(latest) == 0 {
			return nil, "", fmt.Errorf("no run or experiment %q in %s", id, r.Show(state.Runs))
		}
		var out []runs.Record
		for _, rec := range latest {
			out = append(out, rec)
		}
		sort.Slice(out, func(i, j int) bool { return seedKey(out[i]) < seedKey(out[j]) })
		return out, "", nil
	}
	if len(recs) == 0 {
		return nil, "no runs recorded in " + r.Show(state.Runs), nil
	}
	var flying []runs.Record
	for _, rec := range recs {
		if rec.Ended() {
			continue
		}
		switch liveness(rec).State {
		case diagnose.Running, diagnose.Pending, diagnose.Unknown:
			flying = append(flying, rec)
		}
	}
	if len(flying) > 0 {
		return flying, "", nil
	}
	last := recs[len(recs)-1]
	return []runs.Record{last}, fmt.Sprintf("no run in flight; the latest run, %s, is shown", last.ID), nil
}

// seedKey orders runs by seed, a run without one first.
func seedKey(rec runs.Record) int {
	if rec.Seed == nil {
		return -1
	}
	return *rec.Seed
}

// statusOf builds one run's report from its record, the process table or
// scheduler, its log and its declared metric sources.
func statusOf(env *Env, r *state.Repo, ad *adapter.Adapter, rec runs.Record, live diagnose.Liveness, stale time.Duration) (statusRun, error) {
	now := env.Now()
	start, _ := time.Parse(time.RFC3339, rec.StartedAt)
	end := now
	if rec.Ended() {
		end, _ = time.Parse(time.RFC3339, rec.EndedAt)
	}
	run := statusRun{
		ID: rec.ID, Experiment: rec.Experiment, Seed: rec.Seed, Backend: rec.Backend,
		State: live.State, StateDetail: live.Detail, Liveness: live.Evidence,
		SupervisorPID: rec.Supervisor, PID: rec.PID, JobID: rec.JobID,
		StartedAt: rec.StartedAt, EndedAt: rec.EndedAt, WallClock: rec.WallClock,
		Exit: rec.Exit, Signal: rec.Signal, StoppedBy: rec.StoppedBy,
		Sources: []statusSource{}, Signatures: []diagnose.Result{}, live: live,
		elapsed: max(end.Sub(start), 0),
	}
	if run.Liveness == nil {
		run.Liveness = []string{}
	}
	run.ElapsedS = int64(run.elapsed / time.Second)
	if rec.WallClock != "" && !rec.Ended() {
		allowance, _ := time.ParseDuration(rec.WallClock)
		left := int64((allowance - run.elapsed) / time.Second)
		run.WallClockLeft = &left
	}
	rules := diagnose.Rules()

	var logSrc *diagnose.Source
	var err error
	run.Log, logSrc, run.logAge, err = readLog(env, r, rec, now, rules)
	if err != nil {
		return run, err
	}
	facts := diagnose.Facts{Alive: live.Alive, AliveKnown: live.Known, Process: strings.Join(live.Evidence, "; "), Stale: stale}
	if logSrc != nil {
		run.Log.Stale = run.logAge > stale
		facts.Log, facts.LogAge = run.Log.Path, run.logAge
		if n := len(run.Log.Tail); n > 0 {
			facts.LastLine = run.Log.Tail[n-1]
		}
	}

	// The metric sources adapter.yaml declares, for this run only.
	var declared []*diagnose.Source
	for _, name := range ad.SourceNames() {
		src, view, err := readSource(env, r, ad, name, rec, rules)
		if err != nil {
			return run, err
		}
		run.Sources = append(run.Sources, view)
		if src != nil {
			declared = append(declared, src)
		}
	}

	if src := diagnose.PickProgress(logSrc, declared); src != nil {
		p, _ := src.Progress(run.elapsed)
		run.Progress = &p
		facts.HasStep, facts.LastStep = true, p.LastStep
	}
	in := diagnose.Input{Sources: declared, Facts: facts}
	if logSrc != nil {
		in.Sources = append(in.Sources, logSrc)
	}
	for _, res := range diagnose.Evaluate(rules, in) {
		run.Rules = append(run.Rules, statusRule{res.ID, res.Name, res.Outcome, res.Reason})
		if res.Outcome == diagnose.Matched {
			run.Signatures = append(run.Signatures, res)
		}
	}

	run.Diagnosis = noSignature
	if n := len(run.Signatures); n > 0 {
		names := make([]string, n)
		for i, s := range run.Signatures {
			names[i] = s.Name
		}
		run.Diagnosis = strings.Join(names, ", ")
	}
	failed := live.State == diagnose.Failed || live.State == diagnose.Lost
	run.Negative = failed || len(run.Signatures) > 0
	// The log's last lines say why a run failed or where it hangs; a
	// healthy report does without them.
	if !failed && !matched(run.Signatures, "deadlock") {
		run.Log.Tail = nil
	}
	return run, nil
}

func matched(rs []diagnose.Result, id string) bool {
	for _, r := range rs {
		if r.ID == id {
			return true
		}
	}
	return false
}

// readLog reads a run's log: its age, its step lines (verl console
// format) and its last lines. A run without a log yet has no source.
func readLog(env *Env, r *state.Repo, rec runs.Record, now time.Time, rules []diagnose.Rule) (statusLog, *diagnose.Source, time.Duration, error) {
	rel := rec.Log
	if rel == "" {
		rel = filepath.Join(state.DirName, state.Runs, rec.ID, "log")
	}
	abs := inRepo(r, rel)
	l := statusLog{Path: showPath(r, rel)}
	st, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		l.Missing = true
		return l, nil, 0, nil
	}
	if err != nil {
		return l, nil, 0, fmt.Errorf("stat %s: %w", l.Path, err)
	}
	age := max(now.Sub(st.ModTime()), 0)
	secs := int64(age / time.Second)
	l.AgeS = &secs
	src := diagnose.NewSource(l.Path, rules)
	// Most lines of a log are not step lines, and a log may hold none
	// (another framework, or too early): that is no error.
	if _, err := readMetrics(abs, l.Path, metrics.VerlLog, src); err != nil {
		var me *metrics.Error
		if !errors.As(err, &me) {
			warnf(env, "%v", err)
		}
	}
	if l.Tail, err = diagnose.Tail(abs, tailLines); err != nil {
		warnf(env, "%v", err)
	}
	return l, src, age, nil
}

// readSource reads one declared metric source of a run. A source that is
// not there yet, or cannot be filled in for this run, is reported and
// skipped; one that cannot be read is a warning: a file being written may
// end mid-line.
// runSource fills in adapter.yaml's metric source name for one run: its
// path relative to the repository and its format. skip says why a source
// cannot be filled in for this run; err is a malformed declaration.
func runSource(r *state.Repo, ad *adapter.Adapter, name string, rec runs.Record) (rel string, format metrics.Format, skip string, err error) {
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
	if s.Format != "" {
		if format, err = metrics.ParseFormat(s.Format); err != nil {
			return "", "", "", fmt.Errorf("%s metrics.sources.%s.format: %w", r.Show(state.Adapter), name, err)
		}
	}
	return rel, format, "", nil
}

func readSource(env *Env, r *state.Repo, ad *adapter.Adapter, name string, rec runs.Record, rules []diagnose.Rule) (*diagnose.Source, statusSource, error) {
	view := statusSource{Name: name}
	rel, format, skip, err := runSource(r, ad, name, rec)
	if err != nil {
		return nil, view, err
	}
	if skip != "" {
		view.State, view.Detail = "skipped", skip
		return nil, view, nil
	}
	view.Path = showPath(r, rel)
	abs := inRepo(r, rel)
	st, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		view.State, view.Detail = "missing", "not written yet"
		return nil, view, nil
	}
	// A file untouched since before the run started is an earlier run's.
	start, _ := time.Parse(time.RFC3339, rec.StartedAt)
	if err == nil && st.ModTime().Before(start) {
		view.State = "earlier"
		view.Detail = fmt.Sprintf("last written %s, before this run started", st.ModTime().UTC().Format(time.RFC3339))
		return nil, view, nil
	}
	src := diagnose.NewSource(view.Path, rules)
	src.NotBefore(start)
	info, err := readMetrics(abs, view.Path, format, src)
	view.Format, view.Points = string(info.Format), src.Points()
	if err != nil {
		warnf(env, "%v", err)
		view.State, view.Detail = "unreadable", oneLine(err.Error())
		return nil, view, nil
	}
	view.State = "read"
	if n := src.Dropped(); n > 0 {
		view.Detail = fmt.Sprintf("%d points stamped before this run started left out", n)
	}
	return src, view, nil
}

// inRepo resolves a path recorded relative to the repository.
func inRepo(r *state.Repo, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(r.Root, p)
}

// showPath is a recorded path as the user sees it.
func showPath(r *state.Repo, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return r.Display(p)
}

func printStatus(env *Env, rep statusReport) {
	if rep.Note != "" {
		fmt.Fprintf(env.Stdout, "note: %s\n", rep.Note)
	}
	for i, run := range rep.Runs {
		if i > 0 || rep.Note != "" {
			fmt.Fprintln(env.Stdout)
		}
		printTable(env, []string{"FIELD", "VALUE"}, statusRows(env, run))
	}
}

func statusRows(env *Env, run statusRun) [][]string {
	var rows [][]string
	add := func(k, v string) { rows = append(rows, []string{k, v}) }
	add("run", run.ID)
	exp := run.Experiment
	if run.Seed != nil {
		exp += fmt.Sprintf(" (seed %d)", *run.Seed)
	}
	add("experiment", exp)
	st := string(run.State)
	if run.StateDetail != "" {
		st += " (" + run.StateDetail + ")"
	}
	color := yellow
	switch run.State {
	case diagnose.Running, diagnose.Finished:
		color = green
	case diagnose.Failed, diagnose.Lost:
		color = red
	}
	add("state", env.paint(color, st))
	for _, e := range run.Liveness {
		add("liveness", e)
	}
	add("backend", orDash(run.Backend))
	switch {
	case run.JobID != "":
		add("job", run.JobID)
	case run.PID != 0 && run.SupervisorPID != 0:
		add("pid", fmt.Sprintf("%d (supervisor %d)", run.PID, run.SupervisorPID))
	case run.PID != 0:
		add("pid", strconv.Itoa(run.PID))
	case run.SupervisorPID != 0:
		add("pid", fmt.Sprintf("none yet (supervisor %d)", run.SupervisorPID))
	}
	add("started", run.StartedAt)
	if run.EndedAt != "" {
		add("ended", run.EndedAt)
	}
	add("elapsed", duration(run.elapsed))
	switch {
	case run.WallClock == "":
		add("allowance", "-")
	case run.WallClockLeft == nil:
		add("allowance", run.WallClock)
	case *run.WallClockLeft >= 0:
		add("allowance", fmt.Sprintf("%s, %s left", run.WallClock, duration(time.Duration(*run.WallClockLeft)*time.Second)))
	default:
		add("allowance", fmt.Sprintf("%s, exceeded by %s", run.WallClock, duration(time.Duration(-*run.WallClockLeft)*time.Second)))
	}
	if p := run.Progress; p != nil {
		add("last step", fmt.Sprintf("%d (%s)", p.LastStep, p.Source))
		if p.PerMin > 0 {
			rate := fmt.Sprintf("%s steps/min", rateText(p.PerMin))
			if p.PerMin <= 60 {
				rate += fmt.Sprintf(", %s per step", duration(time.Duration(float64(time.Minute)/p.PerMin)))
			}
			add("step rate", rate+" (from "+p.Basis+")")
		} else {
			add("step rate", "unknown")
		}
	} else {
		add("last step", "none logged yet")
	}
	switch {
	case run.Log.Missing:
		add("log", run.Log.Path+" (missing)")
	default:
		l := fmt.Sprintf("%s, last written %s ago", run.Log.Path, duration(run.logAge))
		if run.Log.Stale && run.live.Alive {
			l = env.paint(yellow, l+" (stale)")
		}
		add("log", l)
	}
	for _, s := range run.Sources {
		v := fmt.Sprintf("%s: %s", s.Name, s.Path)
		switch s.State {
		case "read":
			v += fmt.Sprintf(" (%s, %d points)", s.Format, s.Points)
			if s.Detail != "" {
				v += "; " + s.Detail
			}
		case "missing", "earlier":
			v += " " + s.Detail
		default: // the detail names the file
			v = fmt.Sprintf("%s: %s: %s", s.Name, s.State, s.Detail)
		}
		add("source", v)
	}
	for _, sig := range run.Signatures {
		add("signature", env.paint(red, sig.Name))
		for _, e := range sig.Evidence {
			add("evidence", e.Text)
		}
		add("advice", sig.Advice)
	}
	evaluated := 0
	for _, r := range run.Rules {
		if r.Outcome != diagnose.NotEvaluated {
			evaluated++
		}
	}
	add("diagnosis", run.Diagnosis)
	add("rules", fmt.Sprintf("%d evaluated, %d not evaluated for want of tags or points (--json says why)", evaluated, len(run.Rules)-evaluated))
	for _, l := range run.Log.Tail {
		add("tail", l)
	}
	return rows
}

// duration rounds to the second: "1h2m3s".
func duration(d time.Duration) string { return d.Round(time.Second).String() }

func rateText(perMin float64) string {
	if perMin >= 100 {
		return strconv.FormatFloat(perMin, 'f', 0, 64)
	}
	return strconv.FormatFloat(perMin, 'f', 2, 64)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// slurmScheduler answers diagnose's questions with scontrol.
type slurmScheduler struct{ c *slurm.Client }

func (s slurmScheduler) Job(ctx context.Context, id string) (diagnose.Job, error) {
	j, err := s.c.Job(ctx, id)
	if errors.Is(err, slurm.ErrUnknownJob) {
		return diagnose.Job{ID: id}, fmt.Errorf("%w: %v", diagnose.ErrNoJob, err)
	}
	if err != nil {
		return diagnose.Job{ID: id}, err
	}
	return diagnose.Job{ID: j.ID, State: j.State, ExitCode: j.Exit, Reason: j.Reason, Node: j.Nodes, StartTime: j.Began(), EndTime: j.Finished()}, nil
}
