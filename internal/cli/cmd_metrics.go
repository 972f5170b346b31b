package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/progress"
	"github.com/rlxp/rlxp/internal/score"
)

func newMetricsCmd() *Command {
	return &Command{
		UsageLine: "rlxp metrics <subcommand>",
		Short:     "show what metric files hold",
		Long: `Metrics reads metric files the way scoring does, so that metric names in
the contract come from evidence, not guesses. Formats: ` + formatList() + `.
The format is detected from the name and content; --format overrides it.`,
		Commands: []*Command{newMetricsInspectCmd(), newMetricsSeriesCmd()},
	}
}

func formatList() string {
	var names []string
	for _, f := range metrics.Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

type metricsOptions struct {
	format string
	tag    string
	json   bool
}

func addFormatFlag(fs *pflag.FlagSet, v *string) {
	fs.StringVar(v, "format", "", "read as `FORMAT` instead of detecting it ("+formatList()+")")
}

func parseFormatFlag(s string) (metrics.Format, error) {
	if s == "" {
		return "", nil
	}
	f, err := metrics.ParseFormat(s)
	if err != nil {
		return "", &UsageError{Err: err}
	}
	return f, nil
}

func newMetricsInspectCmd() *Command {
	var o metricsOptions
	fs := pflag.NewFlagSet("inspect", pflag.ContinueOnError)
	addFormatFlag(fs, &o.format)
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp metrics inspect FILE|DIR... [--format FORMAT] [--json]",
		Short:     "list each file's format and tags with counts, steps and last values",
		Long: `Inspect reads each file (or MLflow run directory) and lists its detected
format and every tag: how many points, the first and last step, and the
last value. Notes say what a reader skipped or assumed. A directory that
is not an MLflow run is searched for metric files (a TensorBoard logdir, a
W&B run directory, a run root): event files, .wandb logs and summaries,
JSONL, CSV, TensorBoard exports, verl logs and MLflow runs.

A file being written is read up to its last complete line or record; the
unfinished rest is skipped with a note. Every file that can be read is
listed; each one that cannot gets an error line. On a terminal, a read
that takes more than a second shows its progress on stderr.

EXIT STATUS
  0  every file was read
  1  a file is missing, corrupt, not a regular file or in no known format
     (the error names the file and the line or byte offset); the files
     that could be read are still listed
  2  usage error`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			if len(args) == 0 {
				return usagef("inspect takes one or more files")
			}
			format, err := parseFormatFlag(o.format)
			if err != nil {
				return err
			}
			targets, err := inspectTargets(env, args, format)
			if err != nil {
				return err
			}
			var bar *progress.Bar
			if !o.json {
				bar = progress.Bytes(env.Stderr, targetBytes(targets), "reading")
			}
			files := make([]inspectedFile, 0, len(targets))
			failed := 0
			for _, t := range targets {
				f := inspectFile(t, bar)
				if f.Error != "" {
					failed++
				}
				files = append(files, f)
			}
			bar.Finish()
			if o.json {
				if err := writeJSON(env.Stdout, struct {
					Schema string          `json:"schema"`
					Files  []inspectedFile `json:"files"`
				}{"rlxp.metrics-inspect/v1", files}); err != nil {
					return err
				}
			} else {
				var rows [][]string
				for _, f := range files {
					for _, t := range f.Tags {
						rows = append(rows, []string{f.Path, string(f.Format), t.Tag, strconv.FormatInt(t.Points, 10),
							strconv.FormatInt(t.FirstStep, 10) + ".." + strconv.FormatInt(t.LastStep, 10), t.LastText})
					}
				}
				printTable(env, []string{"FILE", "FORMAT", "TAG", "POINTS", "STEPS", "LAST"}, rows)
				for _, f := range files {
					for _, n := range f.Notes {
						fmt.Fprintf(env.Stderr, "rlxp: note: %s: %s\n", f.Path, n)
					}
				}
			}
			if failed == 0 {
				return nil
			}
			if len(files) == 1 {
				return errors.New(files[0].Error)
			}
			for _, f := range files {
				if f.Error != "" {
					fmt.Fprintf(env.Stderr, "rlxp: %s\n", oneLine(f.Error))
				}
			}
			return fmt.Errorf("%d of %d metric files could not be read", failed, len(files))
		},
	}
}

// An inspectTarget is one file to read, named as the user knows it.
type inspectTarget struct {
	path, shown string
	format      metrics.Format
	err         error // found, but refused before reading
}

// inspectTargets expands directories that are not MLflow runs into the
// metric files in them.
func inspectTargets(env *Env, args []string, format metrics.Format) ([]inspectTarget, error) {
	var out []inspectTarget
	for _, a := range args {
		path := resolve(env, a)
		if format == "" && metrics.IsDir(path) {
			found, err := metrics.FindSources(path)
			if err != nil {
				return nil, fmt.Errorf("search %s: %w", a, err)
			}
			if len(found) == 0 {
				out = append(out, inspectTarget{path: path, shown: a, err: fmt.Errorf("%s: a directory with no metric files", a)})
			}
			for _, s := range found {
				rel, err := filepath.Rel(path, s.Path)
				if err != nil {
					rel = s.Path
				}
				out = append(out, inspectTarget{path: s.Path, shown: filepath.Join(a, rel), format: s.Format, err: s.Err})
			}
			continue
		}
		out = append(out, inspectTarget{path: path, shown: a, format: format})
	}
	return out, nil
}

// targetBytes is the size of what inspect will read, for its progress
// bar; directories count what their files hold.
func targetBytes(ts []inspectTarget) int64 {
	var n int64
	for _, t := range ts {
		st, err := os.Stat(t.path)
		if err != nil {
			continue
		}
		if !st.IsDir() {
			n += st.Size()
			continue
		}
		filepath.WalkDir(t.path, func(p string, d iofs.DirEntry, err error) error {
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

// barCounter counts the bytes a read reports on a progress bar.
type barCounter struct{ *progress.Bar }

func (b barCounter) BytesRead(n int64) { b.Add(n) }

type inspectedTag struct {
	Tag       string   `json:"tag"`
	Points    int64    `json:"points"`
	FirstStep int64    `json:"first_step"`
	LastStep  int64    `json:"last_step"`
	Last      *float64 `json:"last"` // null when not finite; see last_text
	LastText  string   `json:"last_text"`
	NonFinite int64    `json:"non_finite"`
}

type inspectedFile struct {
	Path   string         `json:"path"`
	Format metrics.Format `json:"format,omitempty"`
	Points int64          `json:"points"`
	Notes  []string       `json:"notes,omitempty"`
	Tags   []inspectedTag `json:"tags"`
	Error  string         `json:"error,omitempty"`
}

// readMetrics reads the file at path, with errors that name it as shown,
// the way the user knows it.
func readMetrics(path, shown string, format metrics.Format, sink metrics.Sink) (metrics.Info, error) {
	info, err := metrics.Read(path, format, sink)
	return info, namedAs(err, shown)
}

// namedAs names a metric file in err the way the user knows it.
func namedAs(err error, shown string) error {
	var me *metrics.Error
	if errors.As(err, &me) {
		me.Path = shown
	}
	return err
}

func inspectFile(t inspectTarget, bar *progress.Bar) inspectedFile {
	f := inspectedFile{Path: t.shown, Format: t.format, Tags: []inspectedTag{}}
	if t.err != nil {
		f.Error = namedAs(t.err, t.shown).Error()
		return f
	}
	var counter metrics.ByteCounter
	if bar != nil {
		counter = barCounter{bar}
	}
	s, err := metrics.Inspect(t.path, t.format, counter)
	if err != nil {
		f.Error = namedAs(err, t.shown).Error()
		return f
	}
	f.Format, f.Points, f.Notes = s.Format, s.Points, s.Notes
	for _, tag := range s.Tags {
		it := inspectedTag{Tag: tag.Tag, Points: tag.Points, FirstStep: tag.FirstStep, LastStep: tag.LastStep,
			LastText: strconv.FormatFloat(tag.Last, 'g', -1, 64), NonFinite: tag.NonFinite}
		if !math.IsNaN(tag.Last) && !math.IsInf(tag.Last, 0) {
			v := tag.Last
			it.Last = &v
		}
		f.Tags = append(f.Tags, it)
	}
	return f
}

func newMetricsSeriesCmd() *Command {
	var o metricsOptions
	fs := pflag.NewFlagSet("series", pflag.ContinueOnError)
	fs.StringVar(&o.tag, "tag", "", "the `TAG` to print (required)")
	addFormatFlag(fs, &o.format)
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp metrics series FILE --tag TAG [--format FORMAT] [--json]",
		Short:     "print one tag's points: step, wall time, value",
		Long: `Series prints every point of one tag, in file order, streaming: it holds
no more than one point in memory, whatever the file's size.

EXIT STATUS
  0  printed
  1  the file cannot be read, or it has no such tag (the closest tags are
     suggested)
  2  usage error`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			if len(args) != 1 {
				return usagef("series takes one file")
			}
			if o.tag == "" {
				return usagef("--tag is required")
			}
			format, err := parseFormatFlag(o.format)
			if err != nil {
				return err
			}
			w := bufio.NewWriterSize(env.Stdout, 64<<10)
			defer w.Flush()
			s := &seriesSink{tag: o.tag, json: o.json, w: w, seen: score.NewCollector()}
			if !o.json && !env.StdoutTTY {
				// Points stream to a file or pipe: the terminal shows how
				// far the read has come.
				s.bar = progress.Bytes(env.Stderr, targetBytes([]inspectTarget{{path: resolve(env, args[0])}}), "reading")
				defer s.bar.Finish()
			}
			if o.json {
				fmt.Fprintf(w, "{\n  \"schema\": \"rlxp.metrics-series/v1\",\n  \"path\": %s,\n  \"tag\": %s,\n  \"points\": [", jsonString(args[0]), jsonString(o.tag))
			}
			info, err := readMetrics(resolve(env, args[0]), args[0], format, s)
			if err != nil {
				return err
			}
			if s.n == 0 {
				w.Reset(env.Stdout) // drop the partial JSON
				if closest := s.seen.Closest(o.tag); len(closest) > 0 {
					return fmt.Errorf("%s: no tag %q (closest: %s)", args[0], o.tag, strings.Join(closest, ", "))
				}
				return fmt.Errorf("%s: no tag %q (the file has no tags)", args[0], o.tag)
			}
			if o.json {
				fmt.Fprintf(w, "\n  ],\n  \"format\": %s\n}\n", jsonString(string(info.Format)))
			}
			return nil
		},
	}
}

// seriesSink writes the wanted tag's points as they arrive.
type seriesSink struct {
	tag  string
	json bool
	w    *bufio.Writer
	n    int64
	seen *score.Collector
	bar  *progress.Bar
}

func (s *seriesSink) BytesRead(n int64) { s.bar.Add(n) }

func (s *seriesSink) Want(tag string) bool {
	s.seen.Want(tag)
	return tag == s.tag
}

func (s *seriesSink) Point(tag string, p metrics.Point) error {
	s.n++
	v := strconv.FormatFloat(p.Value, 'g', -1, 64)
	if !s.json {
		_, err := fmt.Fprintf(s.w, "%d\t%s\t%s\n", p.Step, strconv.FormatFloat(p.WallTime, 'f', -1, 64), v)
		return err
	}
	if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
		v = jsonString(v) // JSON has no NaN: keep it visible as a string
	}
	sep := ","
	if s.n == 1 {
		sep = ""
	}
	_, err := fmt.Fprintf(s.w, "%s\n    {\"step\": %d, \"wall_time\": %s, \"value\": %s}", sep, p.Step, strconv.FormatFloat(p.WallTime, 'f', -1, 64), v)
	return err
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
