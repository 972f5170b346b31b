package metrics

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// What `rlxp metrics` shows: the files an inspection reads, each file's
// report, and one tag's points as text or JSON.

// A Target is one file (or MLflow run) to inspect, named as the user
// knows it.
type Target struct {
	Path, Shown string
	Format      Format
	Err         error // found, but refused before reading
}

// Targets turns arguments into targets: a directory that is not an
// MLflow run stands for the metric files in it (unless a format is
// given). abs maps an argument to its path.
func Targets(args []string, abs func(string) string, format Format) ([]Target, error) {
	var out []Target
	for _, a := range args {
		path := abs(a)
		if format != "" || !IsDir(path) {
			out = append(out, Target{Path: path, Shown: a, Format: format})
			continue
		}
		found, err := FindSources(path)
		if err != nil {
			return nil, fmt.Errorf("search %s: %w", a, err)
		}
		if len(found) == 0 {
			out = append(out, Target{Path: path, Shown: a, Err: fmt.Errorf("%s: a directory with no metric files", a)})
		}
		for _, s := range found {
			rel, err := filepath.Rel(path, s.Path)
			if err != nil {
				rel = s.Path
			}
			out = append(out, Target{Path: s.Path, Shown: filepath.Join(a, rel), Format: s.Format, Err: s.Err})
		}
	}
	return out, nil
}

// TargetBytes is the size of what reading the targets reads, for a
// progress bar; directories count what their files hold.
func TargetBytes(ts []Target) int64 {
	var n int64
	for _, t := range ts {
		st, err := os.Stat(t.Path)
		if err != nil {
			continue
		}
		if !st.IsDir() {
			n += st.Size()
			continue
		}
		filepath.WalkDir(t.Path, func(p string, d iofs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if info, err := d.Info(); err == nil {
					n += info.Size()
				}
			}
			return nil
		})
	}
	return n
}

// A TagReport is one tag of a FileReport.
type TagReport struct {
	Tag       string   `json:"tag"`
	Points    int64    `json:"points"`
	FirstStep int64    `json:"first_step"`
	LastStep  int64    `json:"last_step"`
	Last      *float64 `json:"last"` // null when not finite; see last_text
	LastText  string   `json:"last_text"`
	NonFinite int64    `json:"non_finite"`
}

// A FileReport is what an inspection shows of one target.
type FileReport struct {
	Path   string      `json:"path"`
	Format Format      `json:"format,omitempty"`
	Points int64       `json:"points"`
	Notes  []string    `json:"notes,omitempty"`
	Tags   []TagReport `json:"tags"`
	Error  string      `json:"error,omitempty"`
}

// An Inspection is the reports of the targets of one inspection.
type Inspection struct {
	Schema string       `json:"schema"`
	Files  []FileReport `json:"files"`
}

// InspectTargets reads every target; counter, when not nil, is told of
// the bytes read.
func InspectTargets(ts []Target, counter ByteCounter) Inspection {
	in := Inspection{Schema: "rlxp.metrics-inspect/v1", Files: make([]FileReport, 0, len(ts))}
	for _, t := range ts {
		in.Files = append(in.Files, InspectTarget(t, counter))
	}
	return in
}

// TableHeader names the columns of Rows.
func TableHeader() []string { return []string{"FILE", "FORMAT", "TAG", "POINTS", "STEPS", "LAST"} }

// Rows are one table row per tag of every file.
func (in Inspection) Rows() [][]string {
	var rows [][]string
	for _, f := range in.Files {
		for _, t := range f.Tags {
			rows = append(rows, []string{f.Path, string(f.Format), t.Tag, strconv.FormatInt(t.Points, 10),
				strconv.FormatInt(t.FirstStep, 10) + ".." + strconv.FormatInt(t.LastStep, 10), t.LastText})
		}
	}
	return rows
}

// Notes are every file's notes, each as "path: note".
func (in Inspection) Notes() []string {
	var out []string
	for _, f := range in.Files {
		for _, n := range f.Notes {
			out = append(out, f.Path+": "+n)
		}
	}
	return out
}

// Failures are the errors of the files that could not be read, to show
// beside Err when more than one file was inspected; nil otherwise.
func (in Inspection) Failures() []string {
	var out []string
	for _, f := range in.Files {
		if f.Error != "" && len(in.Files) > 1 {
			out = append(out, f.Error)
		}
	}
	return out
}

// Err is nil when every file was read: else the one file's error, or how
// many of the files could not be read.
func (in Inspection) Err() error {
	failed := 0
	for _, f := range in.Files {
		if f.Error != "" {
			failed++
			if len(in.Files) == 1 {
				return errors.New(f.Error)
			}
		}
	}
	if failed == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d metric files could not be read", failed, len(in.Files))
}

// FormatList names the formats, for help texts.
func FormatList() string {
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// NamedAs names the metric file in err the way the user knows it.
func NamedAs(err error, shown string) error {
	var me *Error
	if errors.As(err, &me) {
		me.Path = shown
	}
	return err
}

// InspectTarget reads one target into its report; counter, when not nil,
// is told of the bytes read. A file that cannot be read has Error set.
func InspectTarget(t Target, counter ByteCounter) FileReport {
	f := FileReport{Path: t.Shown, Format: t.Format, Tags: []TagReport{}}
	if t.Err != nil {
		f.Error = NamedAs(t.Err, t.Shown).Error()
		return f
	}
	s, err := Inspect(t.Path, t.Format, counter)
	if err != nil {
		f.Error = NamedAs(err, t.Shown).Error()
		return f
	}
	f.Format, f.Points, f.Notes = s.Format, s.Points, s.Notes
	for _, tag := range s.Tags {
		it := TagReport{Tag: tag.Tag, Points: tag.Points, FirstStep: tag.FirstStep, LastStep: tag.LastStep,
			LastText: strconv.FormatFloat(tag.Last, 'g', -1, 64), NonFinite: tag.NonFinite}
		if !math.IsNaN(tag.Last) && !math.IsInf(tag.Last, 0) {
			v := tag.Last
			it.Last = &v
		}
		f.Tags = append(f.Tags, it)
	}
	return f
}

// A SeriesWriter writes one tag's points as they are read, holding no
// more than one in memory: "step<TAB>wall time<TAB>value" lines, or a
// JSON document (rlxp.metrics-series/v1). Every tag the file holds is
// passed to Seen's Want; its Closest suggests tags when the one asked
// for is missing.
type SeriesWriter struct {
	Tag  string
	JSON bool
	Seen interface {
		Want(tag string) bool
		Closest(tag string) []string
	}
	// Progress, when set, is told of the bytes read.
	Progress ByteCounter
	w        *bufio.Writer
	n        int64
}

// Write reads the file at path (shown as the user named it) as format
// ("" to detect it) and writes the tag's points to w. When the file has
// no such tag, nothing is written and the error suggests the closest.
func (s *SeriesWriter) Write(w io.Writer, path, shown string, format Format) error {
	s.w = bufio.NewWriterSize(w, 64<<10)
	defer s.w.Flush()
	if s.JSON {
		fmt.Fprintf(s.w, "{\n  \"schema\": \"rlxp.metrics-series/v1\",\n  \"path\": %s,\n  \"tag\": %s,\n  \"points\": [", jsonString(shown), jsonString(s.Tag))
	}
	info, err := Read(path, format, s)
	if err != nil {
		if s.n == 0 {
			s.w.Reset(w) // no JSON head without its points
		}
		return NamedAs(err, shown)
	}
	if s.n == 0 {
		s.w.Reset(w) // drop the partial JSON
		if closest := s.Seen.Closest(s.Tag); len(closest) > 0 {
			return fmt.Errorf("%s: no tag %q (closest: %s)", shown, s.Tag, strings.Join(closest, ", "))
		}
		return fmt.Errorf("%s: no tag %q (the file has no tags)", shown, s.Tag)
	}
	if s.JSON {
		fmt.Fprintf(s.w, "\n  ],\n  \"format\": %s\n}\n", jsonString(string(info.Format)))
	}
	return nil
}

func (s *SeriesWriter) BytesRead(n int64) {
	if s.Progress != nil {
		s.Progress.BytesRead(n)
	}
}

func (s *SeriesWriter) Want(tag string) bool {
	s.Seen.Want(tag)
	return tag == s.Tag
}

func (s *SeriesWriter) Point(tag string, p Point) error {
	s.n++
	v := strconv.FormatFloat(p.Value, 'g', -1, 64)
	wall := strconv.FormatFloat(p.WallTime, 'f', -1, 64)
	if !s.JSON {
		_, err := fmt.Fprintf(s.w, "%d\t%s\t%s\n", p.Step, wall, v)
		return err
	}
	if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
		v = jsonString(v) // JSON has no NaN: keep it visible as a string
	}
	sep := ","
	if s.n == 1 {
		sep = ""
	}
	_, err := fmt.Fprintf(s.w, "%s\n    {\"step\": %d, \"wall_time\": %s, \"value\": %s}", sep, p.Step, wall, v)
	return err
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
