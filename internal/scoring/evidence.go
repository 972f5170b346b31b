package scoring

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/score"
)

// What a score's sources are, beyond their bytes: whose run wrote them.
// A file in another run's directory, a directory holding another seed's
// files, a file last written before its run started, or bytes another
// ledger entry already counted for another experiment or seed are not the
// seed's own evidence: the score is invalid, and says which file and why.

// evidence finds the problems (which make the score invalid) and notes
// (which the entry carries as warnings) of what the seeds read.
func evidence(root string, seeds []SeedRun, files []SourceFile, recs []runs.Record) (problems, notes []string) {
	abs := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		p = filepath.Clean(p)
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return real
		}
		return p
	}
	bySeed := map[int]SeedRun{}
	for _, sr := range seeds {
		bySeed[sr.Seed] = sr
		if o := sr.other; o != nil {
			problems = append(problems, fmt.Sprintf("seed %d: %s is the directory of run %s (%s): another run's output", sr.Seed, sr.RunDir, o.ID, whose(*o)))
		}
	}
	type located struct {
		SourceFile
		real string
	}
	var all []located
	for _, f := range files {
		all = append(all, located{f, abs(f.Path)})
	}
	for _, f := range all {
		sr := bySeed[f.Seed]
		if sr.other != nil {
			continue // said above, once for the seed
		}
		// The run whose directory holds the file most closely wrote it.
		var owner *runs.Record
		depth := -1
		for i := range recs {
			r := &recs[i]
			if r.RunDir == "" || !inside(abs(r.RunDir), f.real) {
				continue
			}
			if d := strings.Count(filepath.Clean(r.RunDir), string(filepath.Separator)); d > depth {
				owner, depth = r, d
			}
		}
		if owner != nil && owner.ID != sr.Run {
			problems = append(problems, fmt.Sprintf("seed %d: source %s (%s) lies in the directory of run %s (%s): another run's output", f.Seed, f.Source, f.Path, owner.ID, whose(*owner)))
			continue
		}
		if sr.Run == "" {
			continue // no run to hold it to: the entry marks it not launched
		}
		if !f.Launched {
			notes = append(notes, fmt.Sprintf("seed %d: source %s (%s) lies outside run %s's directory %s: nothing ties it to that run", f.Seed, f.Source, f.Path, sr.Run, sr.RunDir))
		}
		if written, start, ok := before(f.real, sr.started); ok {
			problems = append(problems, fmt.Sprintf("seed %d: source %s (%s) was last written at %s, before run %s started at %s: not that run's output",
				f.Seed, f.Source, f.Path, written.UTC().Format(time.RFC3339), sr.Run, start.UTC().Format(time.RFC3339)))
		}
	}
	// A source that holds another seed's source (a directory above it)
	// counts that seed's files twice.
	for _, a := range all {
		for _, b := range all {
			if a.Seed != b.Seed && a.real != b.real && inside(a.real, b.real) {
				problems = append(problems, fmt.Sprintf("seeds share one source: seed %d's %s (%s) holds seed %d's %s (%s)", a.Seed, a.Source, a.Path, b.Seed, b.Source, b.Path))
			}
		}
	}
	return problems, notes
}

// reused finds sources whose bytes an earlier ledger entry recorded for
// another experiment or another seed: one run's output counted again. A
// re-score of the same seed of the same experiment is no reuse.
func reused(entries []ledger.Entry, experiment string, files []SourceFile) []string {
	type use struct {
		seq        int64
		experiment string
		seed       string
		path       string
	}
	seen := map[string]use{}
	for _, e := range entries {
		exp, _ := e.Fields["experiment"].(string)
		srcs, _ := e.Fields["sources"].([]any)
		for _, s := range srcs {
			m, _ := s.(map[string]any)
			sum, _ := m["sha256"].(string)
			if sum == "" {
				continue
			}
			if _, ok := seen[sum]; !ok {
				path, _ := m["path"].(string)
				seen[sum] = use{e.Seq, exp, fmt.Sprint(m["seed"]), path}
			}
		}
	}
	var out []string
	for _, f := range files {
		u, ok := seen[f.SHA256]
		if !ok || u.experiment == experiment && u.seed == fmt.Sprint(f.Seed) {
			continue
		}
		out = append(out, fmt.Sprintf("seed %d: source %s (%s) has the bytes that ledger entry #%d scored for %s seed %s (%s): one run's output counted twice",
			f.Seed, f.Source, f.Path, u.seq, u.experiment, u.seed, u.path))
	}
	return out
}

// whose names a run's experiment and seed.
func whose(r runs.Record) string {
	if r.Seed == nil {
		return "experiment " + r.Experiment
	}
	return fmt.Sprintf("experiment %s, seed %d", r.Experiment, *r.Seed)
}

// inside says whether path is dir or lies below it (both cleaned and
// absolute).
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// clockSlack forgives a file server's clock a little behind the host's.
const clockSlack = 5 * time.Second

// before reports a file (or a directory's newest file) last written
// before the run started; started is the run record's RFC 3339 start.
func before(path, started string) (written, start time.Time, ok bool) {
	start, err := time.Parse(time.RFC3339, started)
	if err != nil {
		return time.Time{}, time.Time{}, false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}, time.Time{}, false
	}
	written = fi.ModTime()
	if fi.IsDir() {
		filepath.WalkDir(path, func(_ string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if i, err := d.Info(); err == nil && i.ModTime().After(written) {
					written = i.ModTime()
				}
			}
			return nil
		})
	}
	return written, start, written.Before(start.Add(-clockSlack))
}

// protocol finds where the runs fall short of the contract's protocol: an
// experiment on fewer seeds than the baseline's, or a training seed among
// the held-out evaluation seeds.
func protocol(c contract.Contract, id string, expSeeds []int) []string {
	var out []string
	if id != c.Baseline.Experiment && len(expSeeds) < len(c.Baseline.Seeds) {
		out = append(out, fmt.Sprintf("experiment %s has %d seeds, the protocol %d (baseline.seeds): fewer seeds than the baseline's are not its comparison",
			id, len(expSeeds), len(c.Baseline.Seeds)))
	}
	if r, ok := c.Evaluation.HeldOutRange(); ok {
		for _, s := range expSeeds {
			if r.Contains(s) {
				out = append(out, fmt.Sprintf("seed %d is a held-out evaluation seed (%s): a run trained on it is no held-out evidence", s, r))
			}
		}
	}
	return out
}

// episodeSpecs are the tags of the evaluation source that may count its
// episodes: "episodes", "n_episodes" or "num_episodes", beside the
// primary metric (eval/episodes for eval/mean_return) or alone.
func episodeSpecs(c contract.Contract) []metricSpec {
	if c.Evaluation.Episodes <= 0 || c.Evaluation.Source == "" {
		return nil
	}
	prefix := ""
	if i := strings.LastIndex(c.Metrics.Primary.Name, "/"); i >= 0 {
		prefix = c.Metrics.Primary.Name[:i+1]
	}
	var out []metricSpec
	seen := map[string]bool{}
	for _, p := range []string{prefix, ""} {
		for _, n := range []string{"episodes", "n_episodes", "num_episodes"} {
			if !seen[p+n] {
				seen[p+n] = true
				out = append(out, metricSpec{name: p + n, source: c.Evaluation.Source, aggregate: score.Last, optional: true})
			}
		}
	}
	return out
}

// episodes finds seeds whose evaluation source says it ran fewer episodes
// than evaluation.episodes asks for: values are per spec, per seed.
func episodes(c contract.Contract, specs []metricSpec, values [][]score.SeedValue, files []SourceFile) []string {
	var out []string
	for i, sp := range specs {
		for _, v := range values[i] {
			if v.Value == nil || *v.Value >= float64(c.Evaluation.Episodes) {
				continue
			}
			path := ""
			for _, f := range files {
				if f.Seed == v.Seed && f.Source == sp.source {
					path = f.Path
				}
			}
			out = append(out, fmt.Sprintf("seed %d: %s says %s is %g: fewer episodes than the %d the protocol evaluates (evaluation.episodes)",
				v.Seed, path, sp.name, *v.Value, c.Evaluation.Episodes))
		}
	}
	return out
}

// shortOfBudget finds the seeds whose series stop short of the steps the
// budget gives a run (budget.steps_per_run): however the run ended, it
// did not train as far as the protocol says, so its score is partial.
// reached is per seed, the furthest step of the series read.
func shortOfBudget(c contract.Contract, seeds []SeedRun, reached []int64) []string {
	want := c.Budget.StepsPerRun
	if want <= 0 {
		return nil
	}
	var out []string
	for i, sr := range seeds {
		if i >= len(reached) || reached[i] < 0 || reached[i] >= want {
			continue // a seed with no point at all is invalid already
		}
		out = append(out, fmt.Sprintf("seed %d: its metrics stop at step %d, short of the %d steps a run trains (budget.steps_per_run): the run stopped early",
			sr.Seed, reached[i], want))
	}
	return out
}
