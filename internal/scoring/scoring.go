// Package scoring is the score pipeline: it finds each seed's run and
// metric sources, reads and hashes them, says what the score rests on (how
// each run ended, which plan started it, whether rlxp produced the source
// at all), and builds the ledger entry's body. It returns values; the cli
// renders them and appends the entry.
package scoring

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/digest"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/score"
	"github.com/rlxp/rlxp/internal/state"
)

// A Spec is one scoring of an experiment.
type Spec struct {
	Repo     *state.Repo
	Contract *contract.Loaded
	// Experiments is experiments.yaml; nil when the repo has none.
	Experiments *experiment.Set
	Experiment  string
	Adapter     *adapter.Adapter
	// RunDir, when set, is a template with {experiment} and {seed} that
	// names each seed's run directory instead of its run record.
	RunDir string
	// Sources override adapter.yaml's source paths: NAME=TEMPLATE each,
	// as --source gives them.
	Sources []string
	Format  metrics.Format
	// Runs are the run records (Slurm ones refreshed by the caller).
	Runs []runs.Record
	// Partial scores runs that did not finish; the entry says so.
	Partial bool
	// Cache remembers digests of unchanged files; nil hashes every time.
	Cache *digest.Cache
	// Progress, when set, is given the total bytes of the sources and
	// returns what counts them done.
	Progress func(total int64) Progress
}

// A UsageError is a bad --run-dir or --source: the caller's input.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Body is a ledger entry's content, before the ledger adds its chain
// fields.
type Body struct {
	score.Result
	// Partial is set when --partial scored runs that had not finished.
	Partial        bool         `json:"partial,omitempty"`
	Runs           []string     `json:"runs"`
	SeedRuns       []SeedRun    `json:"seed_runs"`
	ContractDigest string       `json:"contract_digest"`
	ConfigDigest   string       `json:"config_digest"`
	Git            *GitState    `json:"git"`
	Sources        []SourceFile `json:"sources"`
}

// A SeedRun is what one seed's score rests on.
type SeedRun struct {
	Seed   int    `json:"seed"`
	RunDir string `json:"run_dir"`
	// Run is the id of the run record, "" when no rlxp launch produced it.
	Run string `json:"run,omitempty"`
	// Ended is how the run ended, as status says it: finished, failed,
	// stopped, running, pending, lost or unknown; "not launched" without
	// a record.
	Ended  string `json:"ended"`
	Detail string `json:"detail,omitempty"`
	// Plan is the digest of the launch plan a human confirmed.
	Plan string `json:"plan,omitempty"`

	started string       // the run's start (RFC 3339)
	other   *runs.Record // a run of another experiment or seed that owns RunDir
	held    *runs.Held   // the run held to its approval
	backend string       // the run's backend; "" for a record written by hand
	// rewritten is when its supervisor found the record rewritten by
	// another process (runs.Record.Rewritten).
	rewritten string
}

// NotLaunched is SeedRun.Ended for a run no rlxp launch recorded.
const NotLaunched = "not launched"

// Complete says whether the seed's run finished: ended on its own, exit 0.
func (s SeedRun) Complete() bool {
	return s.Ended == string(diagnose.Finished) || s.Ended == NotLaunched
}

// GitState is the commit the repository was at.
type GitState struct {
	Commit string `json:"commit"`
	Dirty  bool   `json:"dirty"`
}

// A SourceFile is one metric file a score read.
type SourceFile struct {
	Seed   int    `json:"seed"`
	Source string `json:"source"`
	Path   string `json:"path"`
	Format string `json:"format"`
	SHA256 string `json:"sha256"`
	Points int64  `json:"points"`
	// Launched is false for a file no rlxp launch produced: its seed has
	// no run record, or it lies outside the run's directory.
	Launched bool `json:"launched"`
}

// metricSpec is one metric the protocol needs from every seed.
type metricSpec struct {
	name, source, aggregate string
	n                       int
	step                    int64
	// optional is a tag read when a source has it (an episode count),
	// never missed.
	optional bool
}

// A Scored experiment is its per-seed values and what they rest on, ready
// to be judged against the ledger.
type Scored struct {
	in   score.Input
	body Body
	// unended lists the sources whose content shows that their run had
	// not ended (read only for a partial score).
	unended []string
	// problems make the score invalid; notes are its warnings (evidence).
	problems, notes []string
}

// Read finds every seed's run and sources and reads them.
func Read(ctx context.Context, s Spec) (*Scored, error) {
	if err := s.Contract.Require("metrics", "evaluation", "baseline"); err != nil {
		return nil, err
	}
	c := s.Contract.Contract
	id := s.Experiment
	overrides, err := parseSources(s.Sources)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	exp, err := experimentOf(s.Experiments, c, id)
	if err != nil {
		return nil, err
	}
	sources, err := metricSources(s.Adapter, overrides)
	if err != nil {
		return nil, err
	}
	seeds, err := seedRuns(ctx, s, exp.Seeds)
	if err != nil {
		return nil, err
	}
	specs := []metricSpec{{c.Metrics.Primary.Name, c.Metrics.Primary.Source, c.Metrics.Primary.Aggregate, c.Metrics.Primary.N, c.Metrics.Primary.Step, false}}
	for _, g := range c.Metrics.Guardrails {
		specs = append(specs, metricSpec{g.Name, g.Source, g.Aggregate, g.N, g.Step, false})
	}
	rd := reader{s: s, sources: sources}
	nEval := len(specs)
	for _, sp := range specs[:nEval] {
		if sp.source == c.Evaluation.Source {
			// Only a source read anyway: no file is read for the count alone.
			specs = append(specs, episodeSpecs(c)...)
			break
		}
	}
	got, err := rd.readSeeds(seeds, specs)
	if err != nil {
		return nil, err
	}
	values, files := got.values, got.files
	sc := &Scored{
		unended: got.unended,
		in:      score.Input{Contract: c, Experiment: id, IsBaseline: id == c.Baseline.Experiment, Primary: values[0]},
		body: Body{
			ContractDigest: ContractDigest(s.Contract),
			ConfigDigest:   exp.Digest(),
			Git:            Git(s.Repo.Root),
			Sources:        files,
			SeedRuns:       seeds,
			Partial:        s.Partial,
		},
	}
	for i := range c.Metrics.Guardrails {
		sc.in.Guardrails = append(sc.in.Guardrails, values[i+1])
	}
	for _, sr := range seeds {
		sc.body.Runs = append(sc.body.Runs, sr.RunDir)
	}
	sc.problems, sc.notes = evidence(s.Repo.Root, seeds, files, s.Runs)
	sc.notes = append(sc.notes, got.notes...)
	sc.problems = append(sc.problems, resumed(s.Repo.Root, files, tagsBySource(specs))...)
	heldProblems, heldNotes := held(seeds)
	sc.problems, sc.notes = append(sc.problems, heldProblems...), append(sc.notes, heldNotes...)
	sc.problems = append(sc.problems, protocol(c, id, exp.Seeds)...)
	sc.problems = append(sc.problems, episodes(c, specs[nEval:], got.values[nEval:], files)...)
	sc.unended = append(sc.unended, shortOfBudget(c, seeds, got.reached)...)
	return sc, nil
}

// Judge compares the scored experiment with the baseline's latest entry
// among entries and decides the verdict: invalid, whatever the numbers
// say, when seeds share a source, or when a run did not finish and the
// score is not partial.
func (sc *Scored) Judge(entries []ledger.Entry) Body {
	in := sc.in
	in.Baseline = FindBaseline(entries, in.Contract.Baseline.Experiment)
	b := sc.body
	b.Result = score.Judge(in)
	var invalid []string
	invalid = append(invalid, sharedSources(b.Sources)...)
	invalid = append(invalid, sc.problems...)
	invalid = append(invalid, reused(entries, b.Experiment, b.Sources)...)
	b.Warnings = append(b.Warnings, sc.notes...)
	var unfinished []string
	for _, sr := range b.SeedRuns {
		if !sr.Complete() {
			what := sr.Ended
			if sr.Detail != "" {
				what += " (" + sr.Detail + ")"
			}
			unfinished = append(unfinished, fmt.Sprintf("seed %d: run %s %s, not complete", sr.Seed, sr.Run, what))
		}
	}
	unfinished = append(unfinished, sc.unended...)
	switch {
	case len(unfinished) > 0 && !b.Partial:
		for _, u := range unfinished {
			invalid = append(invalid, u+"; --partial scores it anyway, marked partial")
		}
	case len(unfinished) > 0:
		for _, u := range unfinished {
			b.Warnings = append(b.Warnings, "partial: "+u)
		}
	default:
		b.Partial = false // nothing was partial
	}
	if len(invalid) > 0 {
		b.Verdict = score.Invalid
		b.Reasons = append(invalid, b.Reasons...)
	}
	return b
}

// sharedSources says which seeds read the same file, or files of the same
// content: their values are one run counted twice.
func sharedSources(files []SourceFile) []string {
	var out []string
	seen := map[string]SourceFile{}
	for _, f := range files {
		if prev, ok := seen[f.Source+"\x00"+f.SHA256]; ok && prev.Seed != f.Seed && f.SHA256 != "" {
			if prev.Path == f.Path {
				out = append(out, fmt.Sprintf("seeds share one source: seeds %d and %d both read %s from %s", prev.Seed, f.Seed, f.Source, f.Path))
			} else {
				out = append(out, fmt.Sprintf("seeds share one source: seeds %d and %d read %s from files of the same content (%s…): %s and %s",
					prev.Seed, f.Seed, f.Source, f.SHA256[:len(digest.Prefix)+12], prev.Path, f.Path))
			}
			continue
		}
		seen[f.Source+"\x00"+f.SHA256] = f
	}
	return out
}

// experimentOf returns the experiment; the contract's baseline may be
// scored without an experiments.yaml entry.
func experimentOf(set *experiment.Set, c contract.Contract, id string) (*experiment.Experiment, error) {
	var err error
	if set != nil {
		var e *experiment.Experiment
		if e, err = set.Get(id); err == nil {
			return e, nil
		}
	}
	if id == c.Baseline.Experiment {
		return &experiment.Experiment{ID: id, Seeds: c.Baseline.Seeds}, nil
	}
	if err == nil {
		err = fmt.Errorf("unknown experiment %q", id)
	}
	return nil, err
}

func metricSources(a *adapter.Adapter, overrides map[string]string) (map[string]adapter.Source, error) {
	sources := map[string]adapter.Source{}
	for name, s := range a.Metrics.Sources {
		sources[name] = s
	}
	for name, path := range overrides {
		s := sources[name]
		s.Path = path
		sources[name] = s
	}
	return sources, nil
}

// seedRuns finds each seed's run directory and run: from the template
// when one is given, else from the latest run record of the seed.
func seedRuns(ctx context.Context, s Spec, seeds []int) ([]SeedRun, error) {
	latest := map[int]runs.Record{}
	byDir := map[string]runs.Record{}
	for _, rec := range s.Runs {
		// Records are listed oldest first: the last one wins.
		if rec.Experiment == s.Experiment && rec.Seed != nil && rec.RunDir != "" {
			latest[*rec.Seed] = rec
		}
		if rec.RunDir != "" {
			byDir[filepath.Clean(rec.RunDir)] = rec
		}
	}
	h := probe.System()
	var out []SeedRun
	for _, seed := range seeds {
		var rec runs.Record
		var ok bool
		sr := SeedRun{Seed: seed}
		if s.RunDir != "" {
			d, err := adapter.Expand(s.RunDir, map[string]string{"experiment": s.Experiment, "seed": strconv.Itoa(seed)})
			if err != nil {
				return nil, &UsageError{Err: fmt.Errorf("--run-dir %w", err)}
			}
			sr.RunDir = d
			rec, ok = byDir[filepath.Clean(d)]
			if ok && (rec.Experiment != s.Experiment || rec.Seed == nil || *rec.Seed != seed) {
				other := rec
				sr.other, ok = &other, false
			}
		} else if rec, ok = latest[seed]; ok {
			sr.RunDir = rec.RunDir
		} else {
			return nil, fmt.Errorf("no run of %s with seed %d in %s; pass --run-dir, e.g. --run-dir 'runs/{experiment}/seed{seed}'", s.Experiment, seed, s.Repo.Show(state.Runs))
		}
		if !ok {
			sr.Ended = NotLaunched
		} else {
			l := diagnose.Check(ctx, h, nil, rec)
			sr.Run, sr.Plan, sr.Ended, sr.Detail, sr.started = rec.ID, rec.Plan, string(l.State), l.Detail, rec.StartedAt
			sr.held, sr.backend, sr.rewritten = rec.Held, rec.Backend, rec.Rewritten
		}
		out = append(out, sr)
	}
	return out, nil
}

// within says whether path (relative to the repository, or absolute) lies
// inside dir.
func within(root, dir, path string) bool {
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(root, p)
	}
	rel, err := filepath.Rel(abs(dir), abs(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// regular refuses what a metric source must not be: a device, a pipe, a
// socket, reached directly or through a symbolic link. Reading one could
// hang or never end.
func regular(path, shown string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil // the reader names a missing file in its own words
	}
	if err != nil {
		return fmt.Errorf("%s: %w", shown, err)
	}
	if fi.Mode().IsRegular() || fi.IsDir() {
		return nil
	}
	kind := "not a regular file"
	switch {
	case fi.Mode()&os.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case fi.Mode()&os.ModeCharDevice != 0, fi.Mode()&os.ModeDevice != 0:
		kind = "a device"
	case fi.Mode()&os.ModeSocket != 0:
		kind = "a socket"
	}
	return fmt.Errorf("%s: %s, not a regular file: metric sources must be files a run wrote", shown, kind)
}
