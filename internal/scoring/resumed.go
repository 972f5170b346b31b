package scoring

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rlxp/rlxp/internal/metrics"
)

// A resumed run goes on in a second log beside the first: TensorBoard's
// writer opens a new events.out.tfevents.* file in the same directory,
// W&B a new run-<date>-<id> directory holding another run-<id>.wandb. A
// score of one file reads part of the run: the steps before the resume,
// or those after it. Which file holds the run's result cannot be told
// from one of them, so the score is invalid and names the others.
//
// A file beside it counts only when it holds a point of a tag the score
// reads from that source: a writer also leaves files that hold none (a
// profiler's events.out.tfevents.*.profile-empty, a writer opened and
// closed before its first point, another writer's own tags).

// resumed finds the sources that have such a second log; tags maps a
// source's name to the tags the score reads from it.
func resumed(root string, files []SourceFile, tags map[string][]string) []string {
	var out []string
	for _, f := range files {
		path := f.Path
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, path)
		}
		var others []string
		switch metrics.Format(f.Format) {
		case metrics.TFEvents:
			others = siblings(path, func(name string) bool { return strings.HasPrefix(name, "events.out.tfevents.") })
		case metrics.Wandb:
			others = wandbResumes(path)
		default:
			continue
		}
		others = slices.DeleteFunc(others, func(o string) bool {
			return !holdsAny(o, metrics.Format(f.Format), tags[f.Source])
		})
		if len(others) == 0 {
			continue
		}
		for i, o := range others {
			if rel, err := filepath.Rel(root, o); err == nil && !strings.HasPrefix(rel, "..") {
				others[i] = rel
			}
		}
		out = append(out, fmt.Sprintf("seed %d: source %s (%s) is one of %d logs of its run (also %s): a resumed run writes another, so one file holds only part of the run",
			f.Seed, f.Source, f.Path, len(others)+1, strings.Join(others, ", ")))
	}
	return out
}

// tagsBySource maps each source to the tags the score needs from it.
func tagsBySource(specs []metricSpec) map[string][]string {
	out := map[string][]string{}
	for _, sp := range specs {
		if !sp.optional {
			out[sp.source] = append(out[sp.source], sp.name)
		}
	}
	return out
}

// holdsAny says whether the log at path holds a point of one of tags. A
// log that cannot be read counts as holding one: what it holds cannot be
// told, so it may be part of the run.
func holdsAny(path string, format metrics.Format, tags []string) bool {
	found := &firstPoint{tags: tags}
	_, err := metrics.Read(path, format, found)
	return found.seen || err != nil
}

var errFound = errors.New("a point of a scored tag")

// firstPoint is a sink that stops a read at the first point of its tags.
type firstPoint struct {
	tags []string
	seen bool
}

func (s *firstPoint) Want(tag string) bool { return slices.Contains(s.tags, tag) }

func (s *firstPoint) Point(string, metrics.Point) error {
	s.seen = true
	return errFound
}

// siblings lists the regular files in path's directory, other than path,
// whose names match.
func siblings(path string, match func(name string) bool) []string {
	dir := filepath.Dir(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if p == filepath.Clean(path) || !match(e.Name()) {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && !os.SameFile(fi, statOf(path)) {
			out = append(out, p)
		}
	}
	return out
}

func statOf(path string) os.FileInfo {
	fi, _ := os.Stat(path)
	return fi
}

// wandbResumes lists the other logs of the W&B run whose log is path
// (run-<id>.wandb): another .wandb file beside it, or a run-<id>.wandb in
// another run directory (run-<date>-<id>, offline-run-<date>-<id>) of the
// same wandb/ directory.
func wandbResumes(path string) []string {
	out := siblings(path, func(name string) bool { return strings.HasSuffix(name, ".wandb") })
	base := filepath.Base(path)
	id, ok := strings.CutPrefix(strings.TrimSuffix(base, ".wandb"), "run-")
	if !ok || id == "" || !strings.HasSuffix(base, ".wandb") {
		return out
	}
	runDir := filepath.Dir(filepath.Clean(path))
	if !strings.HasSuffix(filepath.Base(runDir), "-"+id) {
		return out
	}
	entries, err := os.ReadDir(filepath.Dir(runDir))
	if err != nil {
		return out
	}
	for _, e := range entries {
		other := filepath.Join(filepath.Dir(runDir), e.Name())
		if other == runDir || !e.IsDir() || !strings.HasSuffix(e.Name(), "-"+id) {
			continue
		}
		if p := filepath.Join(other, base); statOf(p) != nil && statOf(p).Mode().IsRegular() {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
