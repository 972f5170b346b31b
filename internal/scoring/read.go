package scoring

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rlxp/rlxp/internal/adapter"
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
}

func (rd reader) resolve(sr SeedRun, name string) (resolved, error) {
	r := rd.s.Repo
	src, ok := rd.sources[name]
	if !ok {
		return resolved{}, fmt.Errorf("metric source %q is not declared in %s metrics.sources (nor given with --source)", name, r.Show(state.Adapter))
	}
	rel, err := adapter.Expand(src.Path, map[string]string{"run_dir": sr.RunDir, "seed": strconv.Itoa(sr.Seed), "experiment": rd.s.Experiment})
	if err != nil {
		return resolved{}, fmt.Errorf("%s metrics.sources.%s.path: %w", r.Show(state.Adapter), name, err)
	}
	out := resolved{rel: rel, path: rel, shown: rel, format: rd.s.Format}
	if !filepath.IsAbs(rel) {
		out.path, out.shown = filepath.Join(r.Root, rel), r.Display(rel)
	}
	if out.format == "" {
		out.format = src.MetricFormat()
	}
	return out, nil
}

// readSeeds reads every source file of every seed once, feeding the
// aggregates of all specs; values[i] holds spec i's per-seed results.
func (rd reader) readSeeds(seeds []SeedRun, specs []metricSpec) ([][]score.SeedValue, []SourceFile, error) {
	values := make([][]score.SeedValue, len(specs))
	var files []SourceFile
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
		aggs := make([]*score.Agg, len(specs))
		for _, name := range order {
			col := score.NewCollector()
			for _, i := range bySource[name] {
				sp := specs[i]
				aggs[i] = score.NewAgg(sp.aggregate, sp.n, sp.step)
				col.Track(sp.name, aggs[i])
			}
			f, err := rd.readSource(sr, name, col)
			if err != nil {
				return nil, nil, err
			}
			files = append(files, f)
			for _, i := range bySource[name] {
				if !col.Seen(specs[i].name) {
					missing[i]++
					hints[i] = col.Closest(specs[i].name)
				}
			}
		}
		for i, a := range aggs {
			sv := score.SeedValue{Seed: sr.Seed, Run: sr.RunDir}
			if v, err := a.Value(); err != nil {
				sv.Error = err.Error()
				if a.Points() == 0 && missing[i] > 0 {
					sv.Error = fmt.Sprintf("tag %s not found", specs[i].name)
				}
			} else {
				sv.Value = &v
			}
			values[i] = append(values[i], sv)
		}
	}
	for i, sp := range specs {
		if missing[i] == len(seeds) {
			msg := fmt.Sprintf("unknown tag %q in source %s of every seed", sp.name, sp.source)
			if len(hints[i]) > 0 {
				msg += fmt.Sprintf(" (closest: %s)", strings.Join(hints[i], ", "))
			}
			return nil, nil, errors.New(msg + "; check the contract's metric names with 'rlxp metrics inspect'")
		}
	}
	return values, files, nil
}

type hashResult struct {
	sum string
	err error
}

// readSource reads one seed's source into col while hashing it on another
// core (or finding its digest in the cache): for a large file the two
// together cost about one pass.
func (rd reader) readSource(sr SeedRun, name string, col *score.Collector) (SourceFile, error) {
	r := rd.s.Repo
	src, err := rd.resolve(sr, name)
	if err != nil {
		return SourceFile{}, err
	}
	rel, path, shown := src.rel, src.path, src.shown
	if err := regular(path, shown); err != nil {
		return SourceFile{}, err
	}
	var count *counter
	var hashed io.Writer
	if rd.bar != nil {
		count = &counter{p: rd.bar}
		hashed = count
	}
	sum := make(chan hashResult, 1)
	go func() {
		s, err := rd.s.Cache.Path(path, hashed)
		sum <- hashResult{s, err}
	}()
	info, err := metrics.Read(path, src.format, col)
	digest := <-sum
	if count != nil {
		// A cached digest read nothing: the file is done all the same.
		rd.bar.Add(max(sizeOf(path)-count.n, 0))
	}
	var me *metrics.Error
	if errors.As(err, &me) {
		me.Path = shown
	}
	if err != nil {
		return SourceFile{}, err
	}
	if digest.err != nil {
		return SourceFile{}, digest.err
	}
	if info.TruncatedAt > 0 {
		// A run whose log ends mid-record is still running or crashed:
		// its last values are not the run's result.
		return SourceFile{}, &metrics.Error{Path: shown, Offset: info.TruncatedAt,
			Msg: "truncated record: the run is still writing or its writer crashed; score it once the run has ended"}
	}
	return SourceFile{
		Seed: sr.Seed, Source: name, Path: rel, Format: string(info.Format), SHA256: digest.sum, Points: info.Points,
		Launched: sr.Run != "" && within(r.Root, sr.RunDir, rel),
	}, nil
}
