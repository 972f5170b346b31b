package dashboard

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/plot"
)

// readAll streams every source of a run into a sink. A file not written yet
// is skipped, and so is the rest of one that cannot be read: a file being
// written may end mid-record, and its points up to there still count.
func readAll(ctx context.Context, srcs []Source) plot.ReadFunc {
	return func(sink metrics.Sink) error {
		seen := &seenSink{Sink: sink, tags: map[string]bool{}}
		for _, fallback := range []bool{false, true} {
			for _, src := range srcs {
				if src.Fallback != fallback {
					continue
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				if _, err := os.Stat(src.Path); errors.Is(err, fs.ErrNotExist) {
					continue
				}
				var to metrics.Sink = seen
				if fallback {
					to = &unseenSink{Sink: sink, seen: seen.tags}
				}
				_, err := metrics.Read(src.Path, src.Format, &since{Sink: to, ctx: ctx, t: src.NotBefore})
				var me *metrics.Error
				if err != nil && !errors.As(err, &me) && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
			}
		}
		return nil
	}
}

// seenSink notes the tags the primary sources gave.
type seenSink struct {
	metrics.Sink
	tags map[string]bool
}

func (s *seenSink) Point(tag string, p metrics.Point) error {
	s.tags[tag] = true
	return s.Sink.Point(tag, p)
}

// unseenSink passes on only the tags no primary source gave.
type unseenSink struct {
	metrics.Sink
	seen map[string]bool
}

func (s *unseenSink) Want(tag string) bool { return !s.seen[tag] && s.Sink.Want(tag) }

// since drops points stamped before a time, and stops a read whose request
// has gone away.
type since struct {
	metrics.Sink
	ctx context.Context
	t   time.Time
	n   int
}

func (s *since) Point(tag string, p metrics.Point) error {
	if s.n++; s.n%65536 == 0 {
		if err := s.ctx.Err(); err != nil {
			return err
		}
	}
	if !s.t.IsZero() && p.WallTime > 0 && p.WallTime < float64(s.t.Unix()) {
		return nil
	}
	return s.Sink.Point(tag, p)
}

// tagSink collects the distinct tags of a run, up to maxTags.
type tagSink struct{ seen map[string]bool }

func (s *tagSink) Want(tag string) bool {
	if !s.seen[tag] && len(s.seen) < maxTags {
		s.seen[tag] = true
	}
	return false
}

func (s *tagSink) Point(string, metrics.Point) error { return nil }

func (s *tagSink) sorted() []string {
	out := make([]string, 0, len(s.seen))
	for t := range s.seen {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
