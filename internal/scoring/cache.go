package scoring

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/rlxp/rlxp/internal/digest"
	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/score"
)

// What a score needs of a source file is small: each wanted tag's
// aggregate and point count, the file's digest, format and points, and
// its tags (for suggestions). It is remembered in the digest cache under
// the file's identity and change stamps, the readers' version and the
// aggregates asked for, so re-scoring an unchanged file reads nothing.
// The entry holds the content digest too, and is used only when the
// digest cache gives the same digest for the file as it is now.

// aggCacheVersion changes with the encoding below.
const aggCacheVersion = "aggregates/4"

// An aggregate is a seed's reduction of one tag: read now, or remembered.
type aggregate interface {
	Value() (float64, error)
	Points() int64
	LastStep() int64
}

// A cachedAgg is a remembered aggregate. The value is kept as its bits:
// NaN and infinities come back as they were.
type cachedAgg struct {
	Bits    uint64           `json:"bits"`
	Err     string           `json:"err,omitempty"`
	Count   int64            `json:"points"`
	Last    int64            `json:"last_step,omitempty"`
	HasErr  bool             `json:"has_err,omitempty"`
	StepErr *score.StepError `json:"step_err,omitempty"`
}

func (a cachedAgg) Value() (float64, error) {
	v := math.Float64frombits(a.Bits)
	if a.StepErr != nil {
		return v, a.StepErr
	}
	if a.HasErr {
		return v, errors.New(a.Err)
	}
	return v, nil
}

func (a cachedAgg) Points() int64 { return a.Count }

func (a cachedAgg) LastStep() int64 { return a.Last }

func remember(a aggregate) cachedAgg {
	v, err := a.Value()
	c := cachedAgg{Bits: math.Float64bits(v), Count: a.Points(), Last: a.LastStep()}
	if err != nil {
		c.Err, c.HasErr = err.Error(), true
	}
	errors.As(err, &c.StepErr)
	return c
}

// A cachedSource is what a read of one source file gave.
type cachedSource struct {
	SHA256 string      `json:"sha256"`
	Format string      `json:"format"`
	Points int64       `json:"points"`
	Tags   []string    `json:"tags"`
	Aggs   []cachedAgg `json:"aggs"` // in the order of the specs
	// What the read found of a run that had not ended.
	TruncatedAt int64  `json:"truncated_at,omitempty"`
	Unfinished  string `json:"unfinished,omitempty"`
}

// aggCacheName names the entry for reading the file at path as format for
// specs. The path is part of it: what a reader checks may rest on the
// file's name as well as its bytes (a trainer_state.json's global_step
// against its checkpoint-N directory), and renaming a directory leaves
// the change stamps of the files in it as they were.
func aggCacheName(path string, format metrics.Format, specs []metricSpec) string {
	h := sha256.New()
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", aggCacheVersion, metrics.ReaderVersion, format, path)
	for _, sp := range specs {
		fmt.Fprintf(h, "%q %q %d %d\x00", sp.name, sp.aggregate, sp.n, sp.step)
	}
	return aggCacheVersion + " " + hex.EncodeToString(h.Sum(nil))
}

// cachedRead returns the remembered read of the file whose stat is fi,
// when there is one and its digest is the file's digest now.
func (rd reader) cachedRead(path string, fi fs.FileInfo, name string, specs []metricSpec) (cachedSource, bool) {
	data, ok := rd.s.Cache.Lookup(fi, name)
	if !ok {
		return cachedSource{}, false
	}
	var cs cachedSource
	if json.Unmarshal(data, &cs) != nil || len(cs.Aggs) != len(specs) {
		return cachedSource{}, false
	}
	// The file's digest as the digest cache has it now: a file whose
	// stamps moved is hashed again, and then differs.
	if sum, err := rd.s.Cache.File(path, nil); err != nil || sum != cs.SHA256 {
		return cachedSource{}, false
	}
	return cs, true
}

// tagRecorder is a Collector that also lists the tags a file holds, and
// lends the readers the file being hashed.
type tagRecorder struct {
	*score.Collector
	lender
	tags []string
}

func (r *tagRecorder) Want(tag string) bool {
	r.tags = append(r.tags, tag)
	return r.Collector.Want(tag)
}

// A lender gives the readers the file being hashed (a metrics.Opener), so
// that the hash and the parse read it once between them; other files
// they open themselves.
type lender struct {
	path string
	r    *digest.Reading
}

func (l lender) OpenSource(path string) (metrics.File, os.FileInfo, error) {
	if l.r != nil && path == l.path {
		return l.r.Lend(), l.r.Stat(), nil
	}
	f, fi, err := metrics.OpenSource(path)
	if err != nil {
		return nil, nil, err
	}
	return f, fi, nil
}

// sortedTags returns the tags once each, in order.
func sortedTags(tags []string) []string {
	slices.Sort(tags)
	return slices.Compact(tags)
}
