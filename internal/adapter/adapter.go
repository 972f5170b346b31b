// Package adapter reads adapter.yaml: how a target repository trains,
// evaluates and logs, as far as rlxp needs to know.
package adapter

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rlxp/rlxp/internal/document"
	metricformat "github.com/rlxp/rlxp/internal/metrics/format"
	"github.com/rlxp/rlxp/internal/schema"
)

// A Source is where a named metric source is written. Path may hold the
// placeholders {run_dir}, {seed} and {experiment}.
type Source struct {
	Path   string `json:"path"`
	Format string `json:"format,omitempty"`
	// Tags written there; Guessed while they are the audit's inference,
	// Observed once a run showed them (audit --observe).
	Tags     []string `json:"tags,omitempty"`
	Guessed  bool     `json:"guessed,omitempty"`
	Observed string   `json:"observed,omitempty"`
}

// Adapter is the typed form of adapter.yaml.
type Adapter struct {
	Commands map[string]string `json:"commands"`
	Config   struct {
		Default  string `json:"default"`
		Override string `json:"override"` // how one parameter is passed, with {name} and {value}
		// List, when set, passes parameters as items of one option that
		// takes several values (--hyperparams a:1 b:2).
		List *List `json:"list"`
	} `json:"config"`
	Metrics struct {
		Sources map[string]Source `json:"sources"`
	} `json:"metrics"`
	Runtime struct {
		Python  string   `json:"python"`
		Imports []string `json:"imports"`
		Ports   []int    `json:"ports"`
	} `json:"runtime"`
	// Outputs are directories runs write besides their run directory
	// (wandb/, outputs/, checkpoints/): not code, so not pinned.
	Outputs []string `json:"outputs"`
	// EnvFiles are env files the runs read (python-dotenv, a script's
	// source): pinned by their content, also when git ignores them.
	EnvFiles []string `json:"env_files"`
	// Code lists the directories, relative to the repository's root and
	// possibly above it (../lib), whose files are code; when absent, the
	// whole git work tree is.
	Code []string `json:"code"`
	// Guard.Allow lists scripts the guard must not take for trainers by
	// their names (tools/split_train_val.py).
	Guard struct {
		Allow []string `json:"allow"`
	} `json:"guard"`
}

// Parse reads adapter.yaml; a schema violation is an error naming the file,
// line and field (c checks the schema).
func Parse(c schema.Checker, path string, data []byte) (*Adapter, error) {
	f, err := document.Parse(path, data)
	if err != nil {
		return nil, err
	}
	a, errs, err := check(c, f)
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return a, nil
}

// Check lists every problem of a parsed adapter.yaml: schema violations,
// and metric sources in a format rlxp cannot read (found here rather than
// at scoring time); c checks the schema.
func Check(c schema.Checker, f *document.File) ([]*document.Error, error) {
	_, errs, err := check(c, f)
	return errs, err
}

// check is Check, with the typed adapter it decoded on the way (nil when
// the schema fails).
func check(c schema.Checker, f *document.File) (*Adapter, []*document.Error, error) {
	errs, err := c.Check(f, schema.Adapter)
	if err != nil || len(errs) > 0 {
		return nil, errs, err
	}
	var a Adapter
	if err := f.Decode(&a); err != nil {
		return nil, nil, err
	}
	for _, name := range a.SourceNames() {
		format := a.Metrics.Sources[name].Format
		if format == "" {
			continue // detected from the file
		}
		if _, err := metricformat.Parse(format); err != nil {
			field := []string{"metrics", "sources", name, "format"}
			l, c := f.Pos(field)
			errs = append(errs, &document.Error{Path: f.Path, Line: l, Col: c, Field: strings.Join(field, "."), Msg: err.Error()})
		}
	}
	errs = append(errs, checkList(f, &a)...)
	return &a, errs, nil
}

// MetricFormat is the source's declared format, "" to detect it from the
// file. Parse has already refused a name rlxp cannot read.
func (s Source) MetricFormat() metricformat.Format { return metricformat.Format(s.Format) }

// SourceNames lists the declared sources, sorted.
func (a *Adapter) SourceNames() []string {
	var names []string
	for n := range a.Metrics.Sources {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Expand fills the placeholders of a path or command template.
func Expand(template string, vars map[string]string) (string, error) {
	out := template
	for k, v := range vars {
		if v == "" {
			// An empty value between words leaves one space, not two.
			out = strings.ReplaceAll(out, " {"+k+"} ", " ")
			out = strings.TrimSuffix(out, " {"+k+"}")
		}
		out = strings.ReplaceAll(out, "{"+k+"}", v)
	}
	if unfilled(out) {
		known := make([]string, 0, len(vars))
		for k := range vars {
			known = append(known, "{"+k+"}")
		}
		sort.Strings(known)
		return "", fmt.Errorf("%q: unknown placeholder in %q (known: %s)", template, out, strings.Join(known, ", "))
	}
	return out, nil
}

// unfilled says whether a filled template still holds a {name}; a shell
// parameter expansion (${DATA}) is the shell's, not a placeholder.
func unfilled(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '{' && (i == 0 || s[i-1] != '$') && strings.IndexByte(s[i:], '}') > 0 {
			return true
		}
	}
	return false
}

// Params renders parameters for a command line with the override
// template, e.g. "--set {name}={value}", each value shell-quoted. The
// parameters config.list takes are items of its one option instead, in
// one group where the first of them stands: an option of several values
// (argparse nargs="+") given twice keeps only its last list.
func (a *Adapter) Params(names []string, values map[string]string) (string, error) {
	var parts, items []string
	group := -1
	for _, n := range names {
		vars := map[string]string{"name": ShellQuote(n), "value": ShellQuote(values[n])}
		if l := a.Config.List; l.Takes(n) {
			p, err := Expand(l.Item, vars)
			if err != nil {
				return "", fmt.Errorf("config.list.item: %w", err)
			}
			if group < 0 {
				group = len(parts)
				parts = append(parts, "")
			}
			items = append(items, p)
			continue
		}
		if a.Config.Override == "" {
			return "", fmt.Errorf("config.override is empty: adapter.yaml does not say how to pass parameter %s", n)
		}
		p, err := Expand(a.Config.Override, vars)
		if err != nil {
			return "", fmt.Errorf("config.override: %w", err)
		}
		parts = append(parts, p)
	}
	if group >= 0 {
		parts[group] = a.Config.List.Flag + " " + strings.Join(items, " ")
	}
	return strings.Join(parts, " "), nil
}

// ShellQuote quotes s for bash when it holds anything but safe characters.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
