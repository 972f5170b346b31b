package audit

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/schema/validate"
)

// Observation statuses.
const (
	ObsConfirmed = "confirmed" // the declared file holds every declared tag
	ObsCorrected = "corrected" // the file or its tags differ from the declaration
	ObsMissing   = "missing"   // the run wrote no such file (yet)
	ObsNew       = "new"       // a metric file the run wrote that no source declares
)

// An ObservedTag is a tag a run wrote, with its number of points.
type ObservedTag struct {
	Tag    string `json:"tag"`
	Points int64  `json:"points"`
}

// An Observation compares one metric source of adapter.yaml with what a
// run wrote.
type Observation struct {
	Source    string        `json:"source"`
	Declared  string        `json:"declared,omitempty"` // the declared path template
	Path      string        `json:"path,omitempty"`     // the template after observing
	File      string        `json:"file,omitempty"`     // the file read
	Format    string        `json:"format,omitempty"`
	Status    string        `json:"status"`
	Tags      []ObservedTag `json:"tags,omitempty"`
	Confirmed []string      `json:"confirmed,omitempty"` // declared tags the run wrote
	Missing   []string      `json:"missing,omitempty"`   // declared tags it did not write
	Added     []string      `json:"added,omitempty"`     // tags it wrote that were not declared
	Error     string        `json:"error,omitempty"`
}

// Observe reads what a run in runDir wrote where the sources say and
// compares it with their declared files and tags. A declared file the
// run did not write is corrected to the one metric file of its name and
// format the run wrote elsewhere that no other source claims; metric files no source
// declares come back as new.
func Observe(runDir string, sources map[string]adapter.Source) ([]Observation, error) {
	found, err := metrics.FindSources(runDir)
	if err != nil {
		return nil, fmt.Errorf("observe %s: %w", runDir, err)
	}
	claimed := map[string]bool{}
	names := make([]string, 0, len(sources))
	for n := range sources {
		names = append(names, n)
	}
	sort.Strings(names)
	files := map[string]string{}
	for _, n := range names {
		if f := declaredFile(runDir, sources[n].Path); f != "" {
			files[n] = f
			claimed[f] = true
		}
	}
	var out []Observation
	for _, n := range names {
		s := sources[n]
		o := Observation{Source: n, Declared: s.Path, Path: s.Path, Format: s.Format}
		file := files[n]
		if file == "" {
			// The run wrote it elsewhere: the one unclaimed file of the
			// name and format.
			var cands []string
			for _, f := range found {
				if f.Err == nil && !claimed[f.Path] && filepath.Base(f.Path) == path.Base(s.Path) &&
					(s.Format == "" || string(f.Format) == s.Format) {
					cands = append(cands, f.Path)
				}
			}
			if len(cands) != 1 {
				o.Status = ObsMissing
				out = append(out, o)
				continue
			}
			file = cands[0]
			claimed[file] = true
			o.Path = runTemplate(runDir, file)
		}
		o.File = file
		read(&o, file, s.Format)
		o.Status = ObsConfirmed
		if o.Path != o.Declared || o.Error != "" {
			o.Status = ObsCorrected
		}
		seen := map[string]bool{}
		for _, t := range o.Tags {
			seen[t.Tag] = true
		}
		declared := map[string]bool{}
		for _, t := range s.Tags {
			declared[t] = true
			if seen[t] {
				o.Confirmed = append(o.Confirmed, t)
			} else {
				o.Missing = append(o.Missing, t)
			}
		}
		for _, t := range o.Tags {
			if !declared[t.Tag] && len(s.Tags) > 0 {
				o.Added = append(o.Added, t.Tag)
			}
		}
		if len(o.Missing) > 0 || len(o.Added) > 0 {
			o.Status = ObsCorrected
		}
		out = append(out, o)
	}
	for _, f := range found {
		if claimed[f.Path] || f.Err != nil {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(f.Path), filepath.Ext(f.Path))
		if tmpl := runTemplate(runDir, f.Path); strings.Contains(path.Base(tmpl), "*") {
			// A name the logger gives each run names no source: its format does.
			name = string(f.Format)
		}
		name = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
				return r
			}
			return '_'
		}, name)
		if _, taken := sources[name]; taken || name == "" {
			name = "observed_" + name
		}
		o := Observation{Source: name, Path: runTemplate(runDir, f.Path), File: f.Path, Format: string(f.Format), Status: ObsNew}
		read(&o, f.Path, string(f.Format))
		for _, t := range o.Tags {
			o.Added = append(o.Added, t.Tag)
		}
		out = append(out, o)
	}
	return out, nil
}

// read fills in the tags the file holds.
func read(o *Observation, file, format string) {
	var f metrics.Format
	var err error
	if format != "" {
		f, err = metrics.ParseFormat(format)
	} else {
		f, err = metrics.Detect(file)
	}
	if err == nil {
		var sum metrics.Summary
		if sum, err = metrics.Inspect(file, f, nil); err == nil {
			o.Format = string(f)
			for _, t := range sum.Tags {
				o.Tags = append(o.Tags, ObservedTag{Tag: t.Tag, Points: t.Points})
			}
		}
	}
	if err != nil {
		o.Error = err.Error()
	}
}

// declaredFile is the file a source's template names in the run
// directory, {seed} and {experiment} matching any one path element;
// "" when none or several exist.
func declaredFile(runDir, tmpl string) string {
	p, err := adapter.Expand(tmpl, map[string]string{"run_dir": filepath.ToSlash(runDir), "seed": "*", "experiment": "*"})
	if err != nil {
		return ""
	}
	m, _ := filepath.Glob(filepath.FromSlash(p))
	if len(m) != 1 {
		return ""
	}
	return m[0]
}

// runTemplate is a file of the run directory as a source path template.
// The names a logger gives each run (a TensorBoard event file's time,
// host and pid; a W&B run's date and id) become patterns, so that the
// next run's file matches too.
func runTemplate(runDir, file string) string {
	rel, err := filepath.Rel(runDir, file)
	if err != nil || strings.HasPrefix(rel, "..") {
		return file
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for i, p := range parts {
		last := i == len(parts)-1
		switch {
		case last && strings.HasPrefix(p, "events.out.tfevents."):
			p = "events.out.tfevents.*"
		case last && strings.HasPrefix(p, "run-") && strings.HasSuffix(p, ".wandb"):
			p = "run-*.wandb"
		case !last && i > 0 && parts[i-1] == "wandb" && (strings.HasPrefix(p, "run-") || strings.HasPrefix(p, "offline-run-")):
			p = "*run-*"
		default:
			p = adapter.QuoteMeta(p)
		}
		parts[i] = p
	}
	return "{run_dir}/" + strings.Join(parts, "/")
}

// Observed rewrites the metric sources of adapter.yaml's text after a
// run was observed: a confirmed or corrected source takes the file and
// the tags the run wrote, with what it saw (no longer guessed); a new
// one is added; a missing one stays as it was. Everything else in the
// file is left as a person wrote it.
func Observed(path string, data []byte, obs []Observation) ([]byte, []string, error) {
	if _, err := adapter.Parse(validate.Schemas{}, path, data); err != nil {
		return nil, nil, err
	}
	m, err := newMerger(path, data)
	if err != nil {
		return nil, nil, err
	}
	var have []*ast.MappingValueNode
	if mt := find(m.top, "metrics"); mt != nil {
		if src := find(entries(mt.Value), "sources"); src != nil {
			have = entries(src.Value)
		}
	}
	added := map[string]Source{}
	for _, o := range obs {
		if o.Status == ObsMissing || o.Error != "" {
			continue
		}
		s := Source{Path: o.Path, Format: o.Format, Observed: observedSummary(o)}
		for _, t := range o.Tags {
			s.Tags = append(s.Tags, t.Tag)
		}
		e := find(have, o.Source)
		if e == nil {
			added[o.Source] = s
			continue
		}
		i, col := keyLine(e)
		end := i
		if !isNull(e.Value) {
			end = max(i, lastLine(e.Value)) // comments below it stay
		}
		line := strings.Repeat(" ", col) + o.Source + ": " + sourceValue(s) + "\n"
		m.lines[i] = line
		for j := i + 1; j <= end; j++ {
			m.lines[j] = ""
		}
		m.filled = append(m.filled, "metrics.sources."+o.Source)
	}
	m.sources(added)
	out := m.render()
	if _, err := adapter.Parse(validate.Schemas{}, path, []byte(out)); err != nil {
		return nil, nil, fmt.Errorf("refusing to write %s: the observed file does not read back: %w", path, err)
	}
	return []byte(out), m.filled, nil
}

// observedSummary says what a run wrote to a source, for adapter.yaml.
func observedSummary(o Observation) string {
	var points int64
	for _, t := range o.Tags {
		points += t.Points
	}
	return fmt.Sprintf("%s: %d tags, %d points", filepath.ToSlash(o.File), len(o.Tags), points)
}
