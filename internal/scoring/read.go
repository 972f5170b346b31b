package scoring

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/digest"
	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/score"
	"github.com/rlxp/rlxp/internal/state"
)

type reader struct {
	s       Spec
	sources map[string]adapter.Source
	bar     Progress
}

// A Progress counts the bytes of sources done.
type Progress interface{ Add(n int64) }

// counter is an io.Writer that counts what the hash reads on a Progress.
type counter struct {
	p Progress
	n int64
}

func (c *counter) Write(b []byte) (int, error) {
	c.n += int64(len(b))
	c.p.Add(int64(len(b)))
	return len(b), nil
}

func sizeOf(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return fi.Size()
}

// A resolved source is one seed's file of a named source.
type resolved struct {
	rel, path, shown string
	format           metrics.Format
	// picked says why one of a pattern's several matches is the source.
	picked string
}

func (rd reader) resolve(sr SeedRun, name string) (resolved, error) {
	r := rd.s.Repo
	src, ok := rd.sources[name]
	if !ok {
		return resolved{}, fmt.Errorf("metric source %q is not declared in %s metrics.sources (nor given with --source)", name, r.Show(state.Adapter))
	}
	vars := map[string]string{"run_dir": sr.RunDir, "seed": strconv.Itoa(sr.Seed), "experiment": rd.s.Experiment}
	rel, err := adapter.Expand(src.Path, vars)
	if err != nil {
		return resolved{}, fmt.Errorf("%s metrics.sources.%s.path: %w", r.Show(state.Adapter), name, err)
	}
	out := resolved{rel: rel, path: rel, shown: rel, format: rd.s.Format}
	if !filepath.IsAbs(rel) {
		out.path, out.shown = filepath.Join(r.Root, rel), r.Display(rel)
	}
	if adapter.IsPattern(src.Path) {
		if out, err = rd.match(out, src.Path, vars); err != nil {
			return resolved{}, err
		}
	}
	if out.format == "" {
		out.format = src.MetricFormat()
	}
	return out, nil
}

// match resolves a source named by a pattern to the one regular file it
// matches; pattern shows the pattern filled in.
func (rd reader) match(pattern resolved, template string, vars map[string]string) (resolved, error) {
	r := rd.s.Repo
	_, found, err := adapter.Matches(template, vars, r.Root)
	if err != nil {
		return resolved{}, fmt.Errorf("%s: %w", pattern.shown, err)
	}
	// Each match as the source would be had it been named: relative to
	// the repository when the pattern is.
	matches := make([]resolved, len(found))
	shown := make([]string, len(found))
	for i, f := range found {
		m := pattern
		m.rel, m.path, m.shown = f, f, f
		if !filepath.IsAbs(pattern.rel) {
			if rel, err := filepath.Rel(r.Root, f); err == nil {
				m.rel, m.shown = rel, r.Display(rel)
			}
		}
		matches[i], shown[i] = m, m.shown
	}
	switch len(found) {
	case 0:
		return resolved{}, fmt.Errorf("%s: no file matches the pattern", pattern.shown)
	case 1:
		return matches[0], nil
	}
	if i, ok := latestCheckpoint(found); ok {
		m := matches[i]
		others := append(slices.Clone(shown[:i]), shown[i+1:]...)
		m.picked = fmt.Sprintf("the pattern %s matches %d checkpoints' trainer_state.json: scored the latest, %s, whose log_history holds the earlier ones' (%s)",
			pattern.shown, len(found), m.shown, strings.Join(others, ", "))
		return m, nil
	}
	return resolved{}, fmt.Errorf("%s: the pattern matches %d files (%s): a source must be one file; narrow the pattern", pattern.shown, len(found), strings.Join(shown, ", "))
}

// seedsRead is what readSeeds found.
type seedsRead struct {
	values [][]score.SeedValue // per spec, per seed
	files  []SourceFile
	// unended says, per source, that its content shows an unended run.
	unended []string
	// notes are warnings for the entry: which match of a pattern was read.
	notes []string
	// reached is, per seed, the furthest step of the series read (-1
	// when none has a point).
	reached []int64
}

// readSeeds reads every source file of every seed once, feeding the
// aggregates of all specs; values[i] holds spec i's per-seed results.
func (rd reader) readSeeds(seeds []SeedRun, specs []metricSpec) (seedsRead, error) {
	values := make([][]score.SeedValue, len(specs))
	var files []SourceFile
	var unended, notes []string
	var reached []int64
	// A tag missing from every seed is a wrong name, not a failed run.
	missing := make([]int, len(specs))
	hints := make([][]string, len(specs))
	// Each source file is read once per seed, for all the specs it feeds.
	bySource := map[string][]int{}
	var order []string
	for i, sp := range specs {
		if _, ok := bySource[sp.source]; !ok {
			order = append(order, sp.source)
		}
		bySource[sp.source] = append(bySource[sp.source], i)
	}
	if rd.s.Progress != nil {
		var total int64
		for _, sr := range seeds {
			for _, name := range order {
				if src, err := rd.resolve(sr, name); err == nil {
					total += sizeOf(src.path)
				}
			}
		}
		rd.bar = rd.s.Progress(total)
	}
	for _, sr := range seeds {
		aggs := make([]aggregate, len(specs))
		paths := make([]string, len(specs))
		for _, name := range order {
			idx := bySource[name]
			sps := make([]metricSpec, len(idx))
			for k, i := range idx {
				sps[k] = specs[i]
			}
			got, err := rd.readSource(sr, name, sps)
			if err != nil {
				return seedsRead{}, err
			}
			files = append(files, got.file)
			if got.unended != "" {
				unended = append(unended, fmt.Sprintf("seed %d: %s", sr.Seed, got.unended))
			}
			if got.picked != "" {
				notes = append(notes, fmt.Sprintf("seed %d: %s", sr.Seed, got.picked))
			}
			for k, i := range idx {
				aggs[i], paths[i] = got.aggs[k], got.file.Path
				if !got.col.Seen(specs[i].name) {
					missing[i]++
					hints[i] = got.col.Closest(specs[i].name)
				}
			}
		}
		reach := int64(-1)
		for i, a := range aggs {
			if !specs[i].optional && a.Points() > 0 {
				reach = max(reach, a.LastStep())
			}
		}
		reached = append(reached, reach)
		for i, a := range aggs {
			sv := score.SeedValue{Seed: sr.Seed, Run: sr.RunDir}
			if v, err := a.Value(); err != nil {
				sv.Error = err.Error()
				switch {
				case a.Points() == 0 && missing[i] > 0:
					sv.Error = fmt.Sprintf("tag %s not found", specs[i].name)
				case errors.As(err, new(*score.StepError)):
					// Where the series went wrong: the file, then the point.
					sv.Error = paths[i] + ": " + sv.Error
				}
			} else {
				sv.Value = &v
			}
			values[i] = append(values[i], sv)
		}
	}
	for i, sp := range specs {
		if missing[i] == len(seeds) && !sp.optional {
			msg := fmt.Sprintf("unknown tag %q in source %s of every seed", sp.name, sp.source)
			if len(hints[i]) > 0 {
				msg += fmt.Sprintf(" (closest: %s)", strings.Join(hints[i], ", "))
			}
			return seedsRead{}, errors.New(msg + "; check the contract's metric names with 'rlxp metrics inspect'")
		}
	}
	return seedsRead{values, files, unended, notes, reached}, nil
}

type hashResult struct {
	sum string
	err error
}

// A sourceRead is what one seed's source gave: its file, the aggregates
// of the specs it feeds, and the collector that saw its tags.
type sourceRead struct {
	file SourceFile
	aggs []aggregate
	col  *score.Collector
	// picked says why a pattern's match was read (resolved.picked).
	picked string
	// unended says where the file shows that its run had not ended, ""
	// when it does not; only a partial score gets this far with one.
	unended string
}

// unended says whether a source's own content shows that its run had not
// ended: a last record cut off (still being written, or its writer
// crashed), or a log that says so. Its last values are not the run's
// result: an error, unless the score is partial, which records why.
func (rd reader) unended(shown string, cs cachedSource) (string, error) {
	var why error
	switch {
	case cs.TruncatedAt > 0:
		why = &metrics.Error{Path: shown, Offset: cs.TruncatedAt, Msg: "truncated record: the run is still writing or its writer crashed"}
	case cs.Unfinished != "":
		why = fmt.Errorf("%s: %s", shown, cs.Unfinished)
	default:
		return "", nil
	}
	if !rd.s.Partial {
		return "", fmt.Errorf("%w; score it once the run has ended", why)
	}
	return why.Error(), nil
}

// readSource reads one seed's source for specs while hashing it on
// another core (or finding its digest in the cache): the reader borrows
// the blocks the hash reads, so the file is read once. An unchanged file
// read before for the same specs is not read again: its aggregates are
// remembered with its digest.
func (rd reader) readSource(sr SeedRun, name string, specs []metricSpec) (sourceRead, error) {
	r := rd.s.Repo
	src, err := rd.resolve(sr, name)
	if err != nil {
		return sourceRead{}, err
	}
	rel, path, shown := src.rel, src.path, src.shown
	if err := regular(path, shown); err != nil {
		return sourceRead{}, err
	}
	file := SourceFile{Seed: sr.Seed, Source: name, Path: rel, Launched: sr.Run != "" && within(r.Root, sr.RunDir, rel)}
	before, _ := os.Stat(path)
	regularFile := before != nil && before.Mode().IsRegular()
	cacheName := aggCacheName(path, src.format, specs)
	if regularFile {
		if cs, ok := rd.cachedRead(path, before, cacheName, specs); ok {
			unended, err := rd.unended(shown, cs)
			if err != nil {
				return sourceRead{}, err
			}
			out := sourceRead{file: file, col: score.NewCollector(), unended: unended, picked: src.picked}
			out.file.Format, out.file.SHA256, out.file.Points = cs.Format, cs.SHA256, cs.Points
			for _, t := range cs.Tags {
				out.col.Want(t)
			}
			for _, a := range cs.Aggs {
				out.aggs = append(out.aggs, a)
			}
			if rd.bar != nil {
				rd.bar.Add(before.Size())
			}
			return out, nil
		}
	}

	col := &tagRecorder{Collector: score.NewCollector()}
	aggs := make([]*score.Agg, len(specs))
	for k, sp := range specs {
		aggs[k] = score.NewAgg(sp.aggregate, sp.n, sp.step)
		col.Track(sp.name, aggs[k])
	}
	var count *counter
	var hashed io.Writer
	if rd.bar != nil {
		count = &counter{p: rd.bar}
		hashed = count
	}
	var digestOf func() (string, error)
	if regularFile {
		// One read of the file feeds the hash and the parser, and both
		// stop at its size when opened; a write meanwhile is refused
		// below, so the digest is of the bytes parsed.
		reading, err := rd.s.Cache.Begin(path, hashed)
		if err != nil {
			return sourceRead{}, err
		}
		defer reading.Close()
		col.lender = lender{path, reading}
		digestOf = func() (string, error) {
			s, err := reading.Sum()
			if err == nil {
				err = reading.Unchanged()
			}
			return s, err
		}
	} else {
		sum := make(chan hashResult, 1)
		go func() {
			s, err := rd.s.Cache.Path(path, hashed)
			sum <- hashResult{s, err}
		}()
		digestOf = func() (string, error) {
			d := <-sum
			if d.err != nil {
				return "", d.err
			}
			// A directory's files are hashed apart from the parse: hashed
			// again after it (unchanged files from the cache), the same
			// digest says the parse read what was hashed.
			again, err := rd.s.Cache.Path(path, nil)
			if err == nil && again != d.sum {
				err = fmt.Errorf("%s: changed while it was read: a writer is still at work", shown)
			}
			return d.sum, err
		}
	}
	info, err := metrics.Read(path, src.format, col)
	var dg hashResult
	if err == nil {
		dg.sum, dg.err = digestOf()
	}
	if count != nil {
		// A cached digest read nothing: the file is done all the same.
		rd.bar.Add(max(sizeOf(path)-count.n, 0))
	}
	var me *metrics.Error
	if errors.As(err, &me) {
		me.Path = shown
	}
	if err != nil {
		return sourceRead{}, err
	}
	var changed *digest.ChangedError
	if errors.As(dg.err, &changed) {
		changed.Path = shown
		return sourceRead{}, fmt.Errorf("%w; score it once the run has ended", changed)
	}
	if dg.err != nil {
		return sourceRead{}, dg.err
	}
	cs := cachedSource{SHA256: dg.sum, Format: string(info.Format), Points: info.Points, Tags: sortedTags(col.tags),
		TruncatedAt: info.TruncatedAt, Unfinished: info.Unfinished}
	unended, err := rd.unended(shown, cs)
	if err != nil {
		return sourceRead{}, err
	}
	file.Format, file.SHA256, file.Points = string(info.Format), dg.sum, info.Points
	out := sourceRead{file: file, col: col.Collector, unended: unended, picked: src.picked}
	for _, a := range aggs {
		out.aggs = append(out.aggs, a)
		cs.Aggs = append(cs.Aggs, remember(a))
	}
	// An MLflow metric file's run state is in meta.yaml beside it, which
	// its change stamps do not cover: it is read every time.
	if regularFile && rd.s.Cache != nil && info.Format != metrics.MLflow {
		if after, err := os.Stat(path); err == nil {
			if data, err := json.Marshal(cs); err == nil {
				rd.s.Cache.Store(before, after, cacheName, data)
			}
		}
	}
	return out, nil
}
