package metrics

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A TagSummary is what a file holds of one tag.
type TagSummary struct {
	Tag       string
	Points    int64
	FirstStep int64
	LastStep  int64
	Last      float64 // NaN and ±Inf as read
	NonFinite int64
}

// A Summary is what one metric file holds: its tags in name order.
type Summary struct {
	Info
	Tags []TagSummary
}

// Inspect reads the file (or MLflow directory) at path and summarises
// each tag. counter, when not nil, is told of the bytes read.
func Inspect(path string, format Format, counter ByteCounter) (Summary, error) {
	s := &summarySink{index: map[string]int{}, counter: counter}
	return s.inspect(path, format, s)
}

// inspect reads through sink, which is s or a sink around it.
func (s *summarySink) inspect(path string, format Format, sink Sink) (Summary, error) {
	info, err := Read(path, format, sink)
	if err != nil {
		return Summary{Info: info}, err
	}
	if info.Points == 0 && len(s.tags) == 0 {
		info.Notes = append(info.Notes, "The file holds no scalar values.")
	}
	sortTags(s.tags)
	return Summary{Info: info, Tags: s.tags}, nil
}

func sortTags(tags []TagSummary) {
	sort.Slice(tags, func(i, j int) bool { return tags[i].Tag < tags[j].Tag })
}

// A summarySink keeps, per tag, only what a summary shows. Rows repeat
// their tags in the same order, so the tag after the last one is tried
// before the map: most points cost a string comparison of the same
// backing bytes.
type summarySink struct {
	tags    []TagSummary
	index   map[string]int
	next    int
	counter ByteCounter
}

func (s *summarySink) Want(string) bool { return true }

// Rewind forgets every point, for a reader that starts over.
func (s *summarySink) Rewind() {
	s.tags, s.next = s.tags[:0], 0
	clear(s.index)
}

func (s *summarySink) BytesRead(n int64) {
	if s.counter != nil {
		s.counter.BytesRead(n)
	}
}

// merge takes a block's summary of a tag, in file order.
func (s *summarySink) merge(tag string, n int64, firstStep, lastStep int64, last float64, nonFinite int64) {
	i, ok := s.index[tag]
	if !ok {
		i = len(s.tags)
		s.index[tag] = i
		s.tags = append(s.tags, TagSummary{Tag: tag, FirstStep: firstStep})
	}
	t := &s.tags[i]
	t.Points += n
	t.LastStep, t.Last = lastStep, last
	t.NonFinite += nonFinite
}

func (s *summarySink) Point(tag string, p Point) error {
	i := s.next
	if i >= len(s.tags) || s.tags[i].Tag != tag {
		var ok bool
		if i, ok = s.index[tag]; !ok {
			i = len(s.tags)
			s.index[tag] = i
			s.tags = append(s.tags, TagSummary{Tag: tag, FirstStep: p.Step})
		}
	}
	s.next = i + 1
	t := &s.tags[i]
	t.Points++
	t.LastStep = p.Step
	t.Last = p.Value
	if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
		t.NonFinite++
	}
	return nil
}

// A Source is a metric file (or MLflow run directory) found in a log
// directory, with its format when detection knew it.
type Source struct {
	Path   string
	Format Format
	Err    error // why detection refused it; reading it reports the same
}

// FindSources walks a log directory (a TensorBoard logdir, a W&B run
// directory, a run root) and returns the metric files in it, in path
// order: TensorBoard event files, W&B logs and summaries, JSONL, CSV
// (progress.csv, monitor.csv, exports), TensorBoard JSON exports, verl
// and JSONL console logs, and MLflow runs (each run directory once).
// Hidden directories are not entered. Files whose names promise a metric
// format but whose content does not hold one come back with Err set.
func FindSources(dir string) ([]Source, error) {
	var out []Source
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			if isDir(filepath.Join(p, "metrics")) && isFile(filepath.Join(p, "meta.yaml")) {
				out = append(out, Source{Path: p, Format: MLflow})
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		lower := strings.ToLower(name)
		ext := filepath.Ext(lower)
		named := strings.Contains(lower, "tfevents") || ext == ".wandb" || lower == "wandb-summary.json" ||
			ext == ".jsonl" || ext == ".ndjson" || ext == ".csv"
		if !named && ext != ".json" && ext != ".log" && ext != ".txt" && ext != ".out" {
			return nil
		}
		f, err := Detect(p)
		switch {
		case named:
			out = append(out, Source{Path: p, Format: f, Err: err})
		case err == nil && (f == TBJSON || f == VerlLog || f == JSONL):
			// Other .json, .log and .txt files are configuration and
			// console output, not metrics.
			out = append(out, Source{Path: p, Format: f})
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	return out, nil
}

// IsDir reports whether path is a directory that is not an MLflow run:
// a log directory to search with FindSources.
func IsDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir() && !looksLikeMLflowDir(path)
}
