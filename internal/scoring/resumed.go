package scoring

import (
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

// resumed finds the sources that have such a second log.
func resumed(root string, files []SourceFile) []string {
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
