package builtin

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Profiles are the frameworks whose own rules the preflight knows.
func Profiles() []Profile {
	return []Profile{
		{Name: "hydra", Matches: usesHydra, Rules: []Rule{
			{ID: "hydra-groups", Checks: "every config group override names an option the group has",
				Why: "Hydra refuses an unknown group option only when the run starts", Run: hydraGroupsRule},
		}},
	}
}

func usesHydra(t *Target) bool {
	for _, p := range t.Programs {
		if p.Hydra != nil {
			return true
		}
	}
	return false
}

// hydraGroup says whether key is a config group of a Hydra main: a
// directory under its config path.
func hydraGroup(p *Program, key string) (string, bool) {
	if p == nil || p.Hydra == nil {
		return "", false
	}
	dir := filepath.Join(p.Hydra.ConfigPath, filepath.FromSlash(strings.ReplaceAll(strings.TrimLeft(key, "+~"), ".", "/")))
	st, err := os.Stat(dir)
	return dir, err == nil && st.IsDir()
}

func hydraGroupsRule(t *Target) []Finding {
	var fs []Finding
	for _, e := range t.Entries {
		p := t.program(e)
		for _, a := range e.Args {
			k, v, has := strings.Cut(a, "=")
			if !has || strings.HasPrefix(a, "-") {
				continue
			}
			dir, group := hydraGroup(p, k)
			if !group {
				continue
			}
			var options []string
			entries, _ := os.ReadDir(dir)
			for _, en := range entries {
				if name, isYAML := strings.CutSuffix(en.Name(), ".yaml"); isYAML {
					options = append(options, name)
				}
			}
			if slices.Contains(options, v) {
				fs = append(fs, ok("config group %s has option %s", strings.TrimLeft(k, "+~"), v))
			} else {
				fs = append(fs, fatal("config group %s has no option %s (options: %s)", strings.TrimLeft(k, "+~"), v, strings.Join(options, ", ")))
			}
		}
	}
	return fs
}
