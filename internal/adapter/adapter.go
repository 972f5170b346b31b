// Package adapter reads adapter.yaml: how a target repository trains,
// evaluates and logs, as far as rlxp needs to know.
package adapter

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/schema"
)

// A Source is where a named metric source is written. Path may hold the
// placeholders {run_dir}, {seed} and {experiment}.
type Source struct {
	Path   string `json:"path"`
	Format string `json:"format,omitempty"`
}

// Adapter is the typed form of adapter.yaml.
type Adapter struct {
	Commands map[string]string `json:"commands"`
	Metrics  struct {
		Sources map[string]Source `json:"sources"`
	} `json:"metrics"`
}

// Parse reads adapter.yaml; a schema violation is an error naming the file,
// line and field.
func Parse(path string, data []byte) (*Adapter, error) {
	f, err := document.Parse(path, data)
	if err != nil {
		return nil, err
	}
	errs, err := f.Check(schema.Adapter)
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	var a Adapter
	if err := f.Decode(&a); err != nil {
		return nil, err
	}
	return &a, nil
}

// SourceNames lists the declared sources, sorted.
func (a *Adapter) SourceNames() []string {
	var names []string
	for n := range a.Metrics.Sources {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Expand fills the placeholders of a path template.
func Expand(template string, vars map[string]string) (string, error) {
	out := template
	for k, v := range vars {
		out = strings.ReplaceAll(out, "{"+k+"}", v)
	}
	if i := strings.IndexByte(out, '{'); i >= 0 && strings.IndexByte(out[i:], '}') > 0 {
		return "", fmt.Errorf("%q: unknown placeholder in %q (known: {run_dir}, {seed}, {experiment})", template, out)
	}
	return out, nil
}
