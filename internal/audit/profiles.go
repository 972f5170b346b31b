package audit

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
)

//go:embed profiles.yaml
var profilesYAML []byte

// A Profile is what the audit knows about one framework: how to recognise
// it, what it logs, and how it is usually run.
type Profile struct {
	ID      string `yaml:"id"`
	Name    string `yaml:"name"`
	Generic bool   `yaml:"generic"`
	Detect  struct {
		Imports []string `yaml:"imports"`
		// Helpers are modules of the library a repository can use
		// without training with it (environment wrappers, vectorised
		// environments, running statistics): a hint, never use.
		Helpers  []string     `yaml:"helpers"`
		Packages []string     `yaml:"packages"`
		Modules  []string     `yaml:"modules"`
		Code     []codeSignal `yaml:"code"`
		Paths    []string     `yaml:"paths"`
	} `yaml:"detect"`
	Vendor []string `yaml:"vendor"`
	// Backends the framework writes to by itself, whatever the code.
	Backends []string `yaml:"backends"`
	Config   string   `yaml:"config"`
	Override string   `yaml:"override"`
	Tags     struct {
		Eval  []string `yaml:"eval"`
		Train []string `yaml:"train"`
	} `yaml:"tags"`
	// EpisodeKeys is the prefix the framework logs the keys of an
	// environment's extras["episode"] dict under (rsl_rl: Episode/).
	EpisodeKeys string `yaml:"episode_keys"`
	Guardrails  []struct {
		Tag  string `yaml:"tag"`
		Kind string `yaml:"kind"`
	} `yaml:"guardrails"`
	Commands map[string]string `yaml:"commands"`
	Outputs  []string          `yaml:"outputs"`
	Notes    string            `yaml:"notes"`
}

type codeSignal struct {
	Literal    string     `yaml:"literal"`
	Confidence Confidence `yaml:"confidence"`
}

// Profiles returns the built-in framework profiles, in the order the audit
// reports ties.
func Profiles() ([]Profile, error) {
	var doc struct {
		Profiles []Profile `yaml:"profiles"`
	}
	if err := yaml.UnmarshalWithOptions(profilesYAML, &doc, yaml.Strict()); err != nil {
		return nil, fmt.Errorf("built-in profiles: %w", err)
	}
	seen := map[string]bool{}
	for _, p := range doc.Profiles {
		if p.ID == "" || seen[p.ID] {
			return nil, fmt.Errorf("built-in profiles: missing or repeated id %q", p.ID)
		}
		seen[p.ID] = true
		for _, s := range p.Detect.Code {
			if s.Literal == "" || rank(s.Confidence) == 0 {
				return nil, fmt.Errorf("built-in profiles: %s: code signal %q needs a literal and a confidence", p.ID, s.Literal)
			}
		}
	}
	return doc.Profiles, nil
}

// tagMatch matches a metric tag against a profile's tag pattern, in which
// "*" stands for any text, "/" included.
func tagMatch(pattern, tag string) bool {
	if !strings.Contains(pattern, "*") {
		return pattern == tag
	}
	// path.Match stops "*" at "/"; let it cross by trying every split.
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(tag, parts[0]) {
		return false
	}
	rest := tag[len(parts[0]):]
	for i, p := range parts[1:] {
		last := i == len(parts)-2
		if last {
			return strings.HasSuffix(rest, p) && len(rest) >= len(p)
		}
		j := strings.Index(rest, p)
		if j < 0 {
			return false
		}
		rest = rest[j+len(p):]
	}
	return true
}
