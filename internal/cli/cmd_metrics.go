package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/progress"
	"github.com/rlxp/rlxp/internal/score"
)

func newMetricsCmd() *Command {
	return &Command{
		UsageLine: "rlxp metrics <subcommand>",
		Short:     "show what metric files hold",
		Long: manual.Page("metrics") + metrics.FormatList() + `.
The format is detected from the name and content; --format overrides it.`,
		Commands: []Sub{{"inspect", newMetricsInspectCmd}, {"series", newMetricsSeriesCmd}},
	}
}

type metricsOptions struct {
	format, tag string
	json        bool
}

func addFormatFlag(fs *pflag.FlagSet, v *string) {
	fs.StringVar(v, "format", "", "read as `FORMAT` instead of detecting it ("+metrics.FormatList()+")")
}

func parseFormatFlag(s string) (f metrics.Format, err error) {
	if s != "" {
		if f, err = metrics.ParseFormat(s); err != nil {
			err = &UsageError{Err: err}
		}
	}
	return f, err
}

func newMetricsInspectCmd() *Command {
	var o metricsOptions
	fs := pflag.NewFlagSet("inspect", pflag.ContinueOnError)
	addFormatFlag(fs, &o.format)
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp metrics inspect FILE|DIR... [--format FORMAT] [--json]",
		Short:     "list each file's format and tags with counts, steps and last values",
		Long:      manual.Page("metrics inspect"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			if len(args) == 0 {
				return usagef("inspect takes one or more files")
			}
			format, err := parseFormatFlag(o.format)
			if err != nil {
				return err
			}
			targets, err := metrics.Targets(args, func(a string) string { return resolve(env, a) }, format)
			if err != nil {
				return err
			}
			var bar *progress.Bar // nil, counting nothing, for JSON or off a terminal
			if !o.json {
				bar = progress.Bytes(env.Stderr, metrics.TargetBytes(targets), "reading")
			}
			in := metrics.InspectTargets(targets, bar)
			bar.Finish()
			if o.json {
				if err := writeJSON(env.Stdout, in); err != nil {
					return err
				}
			} else {
				printTable(env, metrics.TableHeader(), in.Rows())
				for _, n := range in.Notes() {
					fmt.Fprintf(env.Stderr, "rlxp: note: %s\n", n)
				}
			}
			for _, e := range in.Failures() {
				fmt.Fprintf(env.Stderr, "rlxp: %s\n", oneLine(e))
			}
			return in.Err()
		},
	}
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
		Long:      manual.Page("metrics series"),
		Flags:     fs,
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
			s := &metrics.SeriesWriter{Tag: o.tag, JSON: o.json, Seen: score.NewCollector()}
			path := resolve(env, args[0])
			if !o.json && !env.StdoutTTY {
				// Points stream to a file or pipe: the terminal shows how
				// far the read has come.
				bar := progress.Bytes(env.Stderr, metrics.TargetBytes([]metrics.Target{{Path: path}}), "reading")
				defer bar.Finish()
				s.Progress = bar
			}
			return s.Write(env.Stdout, path, args[0], format)
		},
	}
}
