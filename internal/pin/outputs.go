package pin

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/rlxp/rlxp/internal/adapter"
)

// Outputs are the directories, relative to the repository and ending in
// "/", whose untracked files runs write and are therefore not code: the
// run directory template's top directory, the directories of metric
// sources outside the run directory, and the adapter's outputs. Only a
// fixed prefix counts (what comes before the first placeholder or glob),
// never the repository's top. A directory that holds, or lies inside, a
// path the commands name (their entry point, a config, a module run with
// -m: see commandPaths) or the default config is code after all and is
// not one: a file written there could change what runs.
func Outputs(ad *adapter.Adapter, named []string) []string {
	candidates := []string{fixedDir(RunDir)}
	for _, name := range ad.SourceNames() {
		if p := ad.Metrics.Sources[name].Path; !strings.HasPrefix(p, "{run_dir}") {
			candidates = append(candidates, fixedDir(p))
		}
	}
	for _, o := range ad.Outputs {
		candidates = append(candidates, fixedDir(strings.TrimSuffix(o, "/")+"/"))
	}
	if ad.Config.Default != "" {
		named = append(named, path.Clean(ad.Config.Default))
	}
	var out []string
	seen := map[string]bool{}
	for _, d := range candidates {
		if d == "" || seen[d] || holdsCode(d, named) {
			continue
		}
		seen[d] = true
		out = append(out, d)
	}
	return out
}

// fixedDir is the directory part of a path template before its first
// placeholder or glob character, cleaned and ending in "/"; "" when there
// is none, or when it is absolute, leaves the repository, or is rlxp's or
// git's own.
func fixedDir(template string) string {
	fixed := template
	if i := strings.IndexAny(fixed, "{*?["); i >= 0 {
		fixed = fixed[:i]
	}
	i := strings.LastIndexByte(fixed, '/')
	if i <= 0 {
		return ""
	}
	d := path.Clean(fixed[:i])
	if path.IsAbs(d) || d == "." || d == ".." || strings.HasPrefix(d, "../") ||
		d == ".git" || strings.HasPrefix(d, ".git/") || d == ".rlxp" || strings.HasPrefix(d, ".rlxp/") {
		return ""
	}
	return d + "/"
}

// holdsCode says whether directory d (ending in "/") holds or lies inside
// one of the named paths. A name that is the directory itself (--logger
// wandb, wandb/ an output) names the output, not code in it.
func holdsCode(d string, named []string) bool {
	for _, n := range named {
		if n+"/" == d {
			continue
		}
		if strings.HasPrefix(n+"/", d) || strings.HasPrefix(d, n+"/") {
			return true
		}
	}
	return false
}

// commandPaths are the words of a command, and the values after "=" in
// them, that name a file or directory in the repository, except the run
// directory and what lies in it; and each module run with -m, as a path
// (pkg.train: pkg/train), whether or not it exists.
func commandPaths(root, cmd, runDir string) []string {
	var out []string
	words := strings.Fields(cmd)
	runDir = path.Clean(runDir)
	for i, w := range words {
		w = strings.Trim(w, `'"`)
		if i > 0 && strings.Trim(words[i-1], `'"`) == "-m" {
			out = append(out, strings.ReplaceAll(w, ".", "/"))
			continue
		}
		if _, v, ok := strings.Cut(w, "="); ok && !strings.HasPrefix(w, "=") {
			w = v
		}
		rel, ok := inside(root, w)
		if !ok || rel == runDir || strings.HasPrefix(rel, runDir+"/") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, rel)); err == nil {
			out = append(out, rel)
		}
	}
	return out
}

// inside returns w as a clean path relative to root when it names a path
// inside it (the top itself excluded).
func inside(root, w string) (string, bool) {
	if w == "" || strings.HasPrefix(w, "-") {
		return "", false
	}
	p := w
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
