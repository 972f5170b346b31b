package audit

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// A Param is a tunable value the repository sets: a key of its main
// config or an option of its training entry point, with its default. The
// range to search is for a person to decide.
type Param struct {
	Name     string     `json:"name"`
	Value    string     `json:"value"`
	From     string     `json:"from"` // config | option
	Evidence []Evidence `json:"evidence"`
}

// hyperWords mark names that are usually tuned; they are listed first.
var hyperWords = []string{"lr", "learning_rate", "gamma", "lambda", "lam", "clip", "ent", "entropy", "kl", "batch", "epoch",
	"episodes", "steps", "hidden", "layers", "units", "tau", "alpha", "beta", "temperature", "coef", "weight", "decay",
	"momentum", "eps", "noise", "horizon", "rollout", "minibatch", "updates", "timesteps", "reward", "dropout"}

// hyperScore orders parameters: usually tuned names first, then other
// numbers, then switches.
func hyperScore(p Param) int {
	switch p.Value {
	case "true", "false", "True", "False":
		return 2
	}
	lower := strings.ToLower(p.Name)
	words := strings.FieldsFunc(lower, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	for _, h := range hyperWords {
		if strings.Contains(h, "_") && strings.Contains(lower, h) {
			return 0
		}
		for _, w := range words {
			if w == h || strings.HasPrefix(w, h) {
				return 0
			}
		}
	}
	return 1
}

// plainValue reports a number or a boolean.
func plainValue(v string) bool {
	v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), ","))
	switch v {
	case "true", "false", "True", "False":
		return true
	}
	if v == "" {
		return false
	}
	return strings.Trim(strings.ReplaceAll(v, "_", ""), "0123456789.eE+-") == "" && strings.ContainsAny(v, "0123456789")
}

// scope lists the tuning-scope candidates: the main config's numeric and
// boolean keys, then the training entry point's options with such
// defaults.
func (a *assembler) scope() {
	seen := map[string]bool{}
	var out []Param
	if p := a.rep.Adapter.Config.Default; p != "" {
		out = append(out, configParams(a.rep.Root, p)...)
		for _, x := range out {
			seen[x.Name] = true
		}
	}
	if train := a.trainEntry(); train != nil {
		flags := append([]flagDef(nil), train.flags...)
		for _, r := range train.Runs {
			if parts := strings.Fields(r); len(parts) == 2 {
				for _, e := range a.rep.EntryPoints {
					if e.Target == parts[1] {
						flags = append(flags, e.flags...)
					}
				}
			}
		}
		for _, fd := range flags {
			name := strings.TrimLeft(fd.name, "-")
			if name == "" || seen[name] || !plainValue(fd.dflt) || seedFlag(fd.name) || outFlag(fd.name) || configFlag(fd.name) {
				continue
			}
			seen[name] = true
			file := train.Target
			for _, e := range train.Evidence {
				if e.Line == fd.line {
					file = e.File
				}
			}
			out = append(out, Param{Name: name, Value: strings.TrimSuffix(strings.TrimSpace(fd.dflt), ","), From: "option",
				Evidence: []Evidence{{File: a.flagFile(fd, file), Line: fd.line}}})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return hyperScore(out[i]) < hyperScore(out[j]) })
	if len(out) > 40 {
		out = out[:40]
	}
	a.rep.Scope = out
}

// trainEntry is the entry point the draft trains with.
func (a *assembler) trainEntry() *EntryPoint {
	for i := range a.rep.EntryPoints {
		if e := &a.rep.EntryPoints[i]; e.Kind == "train" && e.Via != "console_script" {
			return e
		}
	}
	return nil
}

// flagFile finds the file that defines an option at its line.
func (a *assembler) flagFile(fd flagDef, fallback string) string {
	for _, f := range a.files {
		for _, g := range f.flags {
			if g == fd {
				return f.path
			}
		}
	}
	return fallback
}

// configParams reads the numeric and boolean keys of a JSON or YAML config
// file, line by line: nested YAML keys get their parents' names, dotted.
func configParams(root, rel string) []Param {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil || len(data) > 1<<20 {
		return nil
	}
	jsonKey := regexp.MustCompile(`^\s*"([\w.-]+)"\s*:\s*([^,{}\[\]]+?)\s*,?\s*$`)
	yamlKey := regexp.MustCompile(`^(\s*)([A-Za-z_][\w.-]*)\s*:\s*([^#]*?)\s*(?:#.*)?$`)
	var out []Param
	type level struct {
		indent int
		name   string
	}
	var parents []level
	for i, line := range strings.Split(string(data), "\n") {
		if m := jsonKey.FindStringSubmatch(line); m != nil && strings.HasSuffix(rel, ".json") {
			if plainValue(m[2]) {
				out = append(out, Param{Name: m[1], Value: m[2], From: "config", Evidence: []Evidence{{File: rel, Line: i + 1, Text: snippet(line)}}})
			}
			continue
		}
		m := yamlKey.FindStringSubmatch(line)
		if m == nil || strings.HasSuffix(rel, ".json") {
			continue
		}
		indent := len(m[1])
		for len(parents) > 0 && parents[len(parents)-1].indent >= indent {
			parents = parents[:len(parents)-1]
		}
		name := m[2]
		if len(parents) > 0 {
			name = parents[len(parents)-1].name + "." + name
		}
		if m[3] == "" {
			parents = append(parents, level{indent, name})
			continue
		}
		if plainValue(m[3]) {
			out = append(out, Param{Name: name, Value: m[3], From: "config", Evidence: []Evidence{{File: rel, Line: i + 1, Text: snippet(line)}}})
		}
	}
	return out
}
