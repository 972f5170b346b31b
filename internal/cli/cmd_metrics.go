package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/metrics"
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
		UsageLine: "rlxp metrics inspect FILE... [--format FORMAT] [--json]",
		Short:     "list each file's format and tags with counts, steps and last values",
		Long: `Inspect reads each file (or MLflow run directory) and lists its detected
format and every tag: how many points, the first and last step, and the
last value. Notes say what a reader skipped or assumed.

EXIT STATUS
  0  every file was read
  1  a file is missing, corrupt or in no known format (the error names the
     file and the line or byte offset)
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
			var files []inspectedFile
			for _, path := range args {
				f, err := inspectFile(env, path, format)
				if err != nil {
					return err
				}
				files = append(files, f)
			}
			if o.json {
				return writeJSON(env.Stdout, struct {
					Schema string          `json:"schema"`
					Files  []inspectedFile `json:"files"`
				}{"rlxp.metrics-inspect/v1", files})
			}
			var rows [][]string
			for _, f := range files {
				for _, t := range f.Tags {
					rows = append(rows, []string{f.Path, string(f.Format), t.Tag, strconv.FormatInt(t.Points, 10),
						fmt.Sprintf("%d..%d", t.FirstStep, t.LastStep), t.LastText})
				}
			}
			printTable(env, []string{"FILE", "FORMAT", "TAG", "POINTS", "STEPS", "LAST"}, rows)
			for _, f := range files {
				for _, n := range f.Notes {
					fmt.Fprintf(env.Stderr, "rlxp: note: %s: %s\n", f.Path, n)
				}
			}
			return nil
		},
	}
}

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
	Format metrics.Format `json:"format"`
	Points int64          `json:"points"`
	Notes  []string       `json:"notes,omitempty"`
	Tags   []inspectedTag `json:"tags"`
}

// tagStats is a sink keeping, per tag, only what inspect shows.
type tagStats struct {
	order []string
	tags  map[string]*inspectedTag
}

func (s *tagStats) Want(tag string) bool { return true }

func (s *tagStats) Point(tag string, p metrics.Point) error {
	t := s.tags[tag]
	if t == nil {
		t = &inspectedTag{Tag: tag, FirstStep: p.Step}
		s.tags[tag] = t
		s.order = append(s.order, tag)
	}
	t.Points++
	t.LastStep = p.Step
	t.LastText = strconv.FormatFloat(p.Value, 'g', -1, 64)
	if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
		t.NonFinite++
		t.Last = nil
	} else {
		v := p.Value
		t.Last = &v
	}
	return nil
}

// readMetrics reads the file at path, with errors that name it as shown,
// the way the user knows it.
func readMetrics(path, shown string, format metrics.Format, sink metrics.Sink) (metrics.Info, error) {
	info, err := metrics.Read(path, format, sink)
	var me *metrics.Error
	if errors.As(err, &me) {
		me.Path = shown
	}
	return info, err
}

func inspectFile(env *Env, shown string, format metrics.Format) (inspectedFile, error) {
	s := &tagStats{tags: map[string]*inspectedTag{}}
	info, err := readMetrics(resolve(env, shown), shown, format, s)
	if err != nil {
		return inspectedFile{}, err
	}
	f := inspectedFile{Path: shown, Format: info.Format, Points: info.Points, Notes: info.Notes, Tags: []inspectedTag{}}
	sort.Strings(s.order)
	for _, tag := range s.order {
		f.Tags = append(f.Tags, *s.tags[tag])
	}
	return f, nil
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
}

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
