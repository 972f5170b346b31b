package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
)

// MLflow file store (mlruns/<experiment>/<run>/metrics/<key>).
//
// Conventions:
//   - The path may be a run directory (it has metrics/), its metrics/
//     directory, a directory holding exactly one run (an experiment or an
//     mlruns tree), or one metric file.
//   - The tag is the metric file's path under metrics/, joined with "/":
//     MLflow stores key "a/b" as metrics/a/b. A metric file outside a
//     metrics/ directory is tagged with its file name.
//   - Each line is "<timestamp_ms> <value> <step>"; the legacy two-field
//     form "<timestamp_ms> <value>" has step 0. The wall time is the
//     timestamp in seconds. Values may be nan, inf or -inf.
//   - Files are read in name order, each in line order. Hidden files are
//     skipped, and so are empty metric files (with a note).
//   - The run's meta.yaml says how it ended: a status other than FINISHED
//     (RUNNING, SCHEDULED, FAILED, KILLED) or a deleted run is
//     Info.Unfinished, as a W&B log without a clean exit record is. A
//     metrics file or directory with no meta.yaml beside it says nothing.

func readMLflow(path string, sink Sink) (Info, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Info{}, err
	}
	var info Info
	if !st.IsDir() {
		tag := mlflowKey(path)
		if err := readMLflowFile(path, tag, sink, &info); err != nil {
			return info, err
		}
		info.Unfinished, err = mlflowRunState(path, tag)
		return info, err
	}
	mdir, note, err := mlflowMetricsDir(path)
	if err != nil {
		return info, err
	}
	if note != "" {
		info.Notes = append(info.Notes, note)
	}
	if info.Unfinished, err = mlflowRunState(filepath.Join(mdir, "x"), "x"); err != nil {
		return info, err
	}
	var files []string
	err = filepath.WalkDir(mdir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != mdir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return info, err
	}
	empty := 0
	for _, p := range files {
		if st, err := os.Stat(p); err == nil && st.Size() == 0 {
			empty++
			continue
		}
		rel, _ := filepath.Rel(mdir, p)
		if err := readMLflowFile(p, filepath.ToSlash(rel), sink, &info); err != nil {
			return info, err
		}
	}
	info.Notes = append(info.Notes, fmt.Sprintf("Read %s under %s; tags are their paths there.", plural(int64(len(files)-empty), "metric file", "metric files"), mdir))
	if empty > 0 {
		info.Notes = append(info.Notes, fmt.Sprintf("Skipped %s.", plural(int64(empty), "empty metric file", "empty metric files")))
	}
	return info, nil
}

// MLflow's RunStatus values, as the file store writes them in meta.yaml.
func mlflowStatus(n int) string {
	switch n {
	case 1:
		return "RUNNING"
	case 2:
		return "SCHEDULED"
	case 3:
		return "FINISHED"
	case 4:
		return "FAILED"
	case 5:
		return "KILLED"
	}
	return "unknown"
}

// mlflowRunState reads the meta.yaml of the run that holds the metric
// file at path (tagged tag, its path under metrics/) and says, in one
// sentence, why the run did not end well; "" when it finished, or when
// there is no meta.yaml to say.
func mlflowRunState(path, tag string) (string, error) {
	mdir := path
	for range strings.Split(tag, "/") {
		mdir = filepath.Dir(mdir)
	}
	if filepath.Base(mdir) != "metrics" {
		return "", nil
	}
	meta := filepath.Join(filepath.Dir(mdir), "meta.yaml")
	data, err := os.ReadFile(meta)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", &Error{Path: meta, Offset: -1, Msg: osMsg(err)}
	}
	var m struct {
		Status         *int   `yaml:"status"`
		LifecycleStage string `yaml:"lifecycle_stage"`
	}
	if err := yaml.Unmarshal(data, &m); err != nil {
		return "", &Error{Path: meta, Offset: -1, Msg: "the run's meta.yaml does not parse: " + strings.Join(strings.Fields(err.Error()), " ")}
	}
	switch {
	case m.LifecycleStage == "deleted":
		return "the run's meta.yaml says it was deleted (lifecycle_stage: deleted)", nil
	case m.Status == nil:
		return "the run's meta.yaml has no status: whether the run ended cannot be told", nil
	case *m.Status == 3:
		return "", nil
	}
	name := mlflowStatus(*m.Status)
	return fmt.Sprintf("the run's meta.yaml says status %d (%s): the run did not finish", *m.Status, name), nil
}

// mlflowKey names a single metric file by its path under the nearest
// enclosing metrics/ directory.
func mlflowKey(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	parts := strings.Split(filepath.ToSlash(abs), "/")
	for i := len(parts) - 2; i >= 0; i-- {
		if parts[i] == "metrics" {
			return strings.Join(parts[i+1:], "/")
		}
	}
	return filepath.Base(path)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// mlflowMetricsDir finds the metrics directory a directory argument means.
func mlflowMetricsDir(dir string) (string, string, error) {
	if filepath.Base(filepath.Clean(dir)) == "metrics" {
		return dir, "", nil
	}
	if m := filepath.Join(dir, "metrics"); isDir(m) {
		return m, "", nil
	}
	runs := mlflowRuns(dir)
	switch len(runs) {
	case 0:
		return "", "", &Error{Path: dir, Offset: -1, Msg: "not an MLflow run: no metrics/ directory in it or in a run below it"}
	case 1:
		return filepath.Join(runs[0], "metrics"), fmt.Sprintf("Read the only MLflow run below the directory, %s.", runs[0]), nil
	}
	show := runs
	if len(show) > 3 {
		show = append(show[:3:3], "…")
	}
	return "", "", &Error{Path: dir, Offset: -1, Msg: fmt.Sprintf("holds %d MLflow runs (%s); pass one run directory", len(runs), strings.Join(show, ", "))}
}

// mlflowRuns lists the run directories (a meta.yaml and a metrics/
// directory) up to two levels below dir: dir may be an experiment or an
// mlruns tree. Deleted experiments in .trash are left out.
func mlflowRuns(dir string) []string {
	var runs []string
	level := []string{dir}
	for depth := 0; depth < 2; depth++ {
		var next []string
		for _, d := range level {
			entries, err := os.ReadDir(d)
			if err != nil {
				continue
			}
			for _, e := range entries {
				if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
					continue
				}
				p := filepath.Join(d, e.Name())
				if isDir(filepath.Join(p, "metrics")) && isFile(filepath.Join(p, "meta.yaml")) {
					runs = append(runs, p)
				} else {
					next = append(next, p)
				}
			}
		}
		level = next
	}
	sort.Strings(runs)
	return runs
}

// looksLikeMLflowDir reports whether a directory is a run, a metrics
// directory, an experiment or an mlruns tree.
func looksLikeMLflowDir(dir string) bool {
	if isDir(filepath.Join(dir, "metrics")) || filepath.Base(filepath.Clean(dir)) == "metrics" {
		return true
	}
	return len(mlflowRuns(dir)) > 0
}

func readMLflowFile(path, tag string, sink Sink, info *Info) error {
	f, err := openText(path, MLflow, true, sink)
	if err == errNoLine {
		info.Notes = append(info.Notes, fmt.Sprintf("%s: no complete line yet: its writer has not finished the first one.", filepath.Base(path)))
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	want := sink.Want(tag)
	lr := f.lines()
	for {
		l, err := lr.Next()
		if err == io.EOF {
			if f.end < f.size {
				info.TruncatedAt = f.end
				info.Notes = append(info.Notes, fmt.Sprintf("%s: skipped the last line (%s with no line ending): its writer has not finished it.",
					filepath.Base(path), plural(f.size-f.end, "byte", "bytes")))
			}
			return nil
		}
		if err != nil {
			return err
		}
		if isBlank(l) {
			continue
		}
		if i := binaryAt(l, false); i >= 0 {
			return binaryError(path, MLflow, lr.line, lr.off+int64(i))
		}
		p, e := parseMLflowLine(l)
		if e != nil {
			e.Path, e.Line = path, lr.line
			return e
		}
		if !want {
			continue
		}
		if err := sink.Point(tag, p); err != nil {
			return err
		}
		info.Points++
	}
}

// parseMLflowLine reads "<timestamp_ms> <value> [<step>]". The error has
// neither path nor line.
func parseMLflowLine(l []byte) (Point, *Error) {
	fields := bytes.Fields(l)
	if len(fields) != 2 && len(fields) != 3 {
		return Point{}, &Error{Offset: -1, Msg: fmt.Sprintf("%d fields; an MLflow metric line is \"<timestamp_ms> <value> <step>\"", len(fields))}
	}
	ts, err := strconv.ParseInt(string(fields[0]), 10, 64)
	if err != nil {
		return Point{}, &Error{Col: 1, Offset: -1, Msg: fmt.Sprintf("the timestamp %s is not an integer of milliseconds", quoteCell(fields[0]))}
	}
	v, ok := parseCell(fields[1])
	if !ok {
		return Point{}, &Error{Col: bytes.Index(l, fields[1]) + 1, Offset: -1, Msg: fmt.Sprintf("the value %s is not a number", quoteCell(fields[1]))}
	}
	p := Point{WallTime: float64(ts) / 1000, Value: v}
	if len(fields) == 3 {
		s, ok := parseStep(string(fields[2]))
		if !ok {
			return Point{}, &Error{Col: bytes.LastIndex(l, fields[2]) + 1, Offset: -1, Msg: fmt.Sprintf("the step %s is not an integer", quoteCell(fields[2]))}
		}
		p.Step = s
	}
	return p, nil
}
