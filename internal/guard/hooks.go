package guard

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// gitHooks lists the hooks a git subcommand may run: git commit runs
// pre-commit and post-commit, git checkout post-checkout, and so on
// (githooks(5)). --no-verify skips the hooks that can stop a commit,
// push or merge.
func gitHooks(sub string, args []string) []string {
	var hooks []string
	switch sub {
	case "commit":
		hooks = []string{"pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "reference-transaction", "post-index-change"}
	case "merge":
		hooks = []string{"pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-merge", "reference-transaction"}
	case "pull":
		hooks = []string{"pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-merge", "post-checkout", "pre-rebase", "post-rewrite", "reference-transaction"}
	case "checkout", "switch", "clone", "worktree":
		hooks = []string{"post-checkout", "reference-transaction", "post-index-change"}
	case "rebase":
		hooks = []string{"pre-rebase", "post-rewrite", "post-checkout", "prepare-commit-msg", "commit-msg", "post-commit", "reference-transaction"}
	case "am":
		hooks = []string{"applypatch-msg", "pre-applypatch", "post-applypatch", "post-rewrite", "reference-transaction"}
	case "cherry-pick", "revert":
		hooks = []string{"prepare-commit-msg", "commit-msg", "post-commit", "reference-transaction"}
	case "push":
		hooks = []string{"pre-push", "reference-transaction", "push-to-checkout"}
	case "add", "rm", "mv", "reset", "restore", "stash", "update-index":
		hooks = []string{"post-index-change", "reference-transaction"}
	case "branch", "tag", "update-ref", "fetch":
		hooks = []string{"reference-transaction"}
	case "gc":
		hooks = []string{"pre-auto-gc"}
	}
	for _, a := range args {
		if a == "--no-verify" || a == "-n" && (sub == "commit" || sub == "merge") {
			return remove(hooks, "pre-commit", "commit-msg", "pre-push", "pre-merge-commit", "applypatch-msg", "pre-applypatch")
		}
	}
	return hooks
}

func remove(list []string, drop ...string) []string {
	var out []string
	for _, x := range list {
		keep := true
		for _, d := range drop {
			keep = keep && x != d
		}
		if keep {
			out = append(out, x)
		}
	}
	return out
}

// followHooks follows the hooks a git command runs: each one the command
// line wrote before it, or that is on disk, runs as a script run from the
// top of the work tree. hooksPath is core.hooksPath when the command line
// sets it.
func (a *analyzer) followHooks(sub string, args []string, hooksPath, text string, sc *scope, depth int) {
	hooks := gitHooks(sub, args)
	if len(hooks) == 0 || a.noDisk {
		return
	}
	// Outside every repository nothing is read: the fast path stays fast.
	if a.settled != nil && a.settled(call{argv: []string{"git"}, exact: []bool{true}, dirs: sc.dirs}) {
		return
	}
	for _, d := range sc.dirs {
		if d == "" {
			continue
		}
		top, dir := hooksDir(d, hooksPath)
		if dir == "" {
			continue
		}
		for _, h := range hooks {
			p := filepath.Join(dir, h)
			c := call{argv: []string{p}, exact: []bool{true}, text: text, dirs: []string{top}, script: true, via: sc.via}
			if a.followWritten(c, p, false, "", sc, depth) {
				continue
			}
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				a.followDisk(c, p, "", sc, depth)
			}
		}
	}
}

// hooksDir is the top of the work tree dir is in and the directory its
// hooks are in: core.hooksPath (given, or in the repository's config),
// or the hooks directory of the git directory (shared by worktrees).
func hooksDir(dir, hooksPath string) (top, hooks string) {
	for d := dir; ; d = filepath.Dir(d) {
		gitDir := filepath.Join(d, ".git")
		fi, err := os.Stat(gitDir)
		if err == nil {
			top = d
			if !fi.IsDir() {
				b, err := os.ReadFile(gitDir)
				if err != nil {
					return "", ""
				}
				g, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
				if !ok {
					return "", ""
				}
				gitDir = resolve(strings.TrimSpace(g), d)
				if c, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
					gitDir = resolve(strings.TrimSpace(string(c)), gitDir)
				}
			}
			if hooksPath == "" {
				hooksPath = configHooksPath(filepath.Join(gitDir, "config"))
			}
			if hooksPath != "" {
				return top, resolve(hooksPath, top)
			}
			return top, filepath.Join(gitDir, "hooks")
		}
		if filepath.Dir(d) == d {
			return "", ""
		}
	}
}

// configHooksPath reads core.hooksPath from a git config file, or "".
func configHooksPath(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || !strings.Contains(strings.ToLower(string(b)), "hookspath") {
		return ""
	}
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = strings.ToLower(strings.Trim(line, "[] "))
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && section == "core" && strings.EqualFold(strings.TrimSpace(k), "hookspath") {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}

// hookFile reports a path in a hooks directory: .git/hooks/NAME (also a
// submodule's or a worktree's), or .husky/NAME.
func hookFile(p string) bool {
	dir := filepath.Dir(p)
	switch filepath.Base(dir) {
	case "hooks":
		return strings.Contains(filepath.ToSlash(dir), "/.git/")
	case ".husky", "_":
		return strings.Contains(filepath.ToSlash(dir), "/.husky")
	}
	return false
}

// followWrittenHooks follows the hooks the command line writes: a hook
// runs later, when git runs it, with nobody asking, so writing one is
// judged as running it.
func (a *analyzer) followWrittenHooks(text string, sc *scope) {
	var hooks []string
	for p := range a.files {
		if hookFile(p) {
			hooks = append(hooks, p)
		}
	}
	sort.Strings(hooks)
	for _, p := range hooks {
		top := filepath.Dir(filepath.Dir(p))
		if i := strings.Index(filepath.ToSlash(p), "/.git/"); i >= 0 {
			top = p[:i]
		} else if i := strings.Index(filepath.ToSlash(p), "/.husky/"); i >= 0 {
			top = p[:i]
		}
		c := call{argv: []string{p}, exact: []bool{true}, text: text, dirs: []string{top}, script: true}
		a.followWritten(c, p, false, quote(text)+" writes the git hook "+shownPath(p, sc.dirs)+", which git runs later", sc.with([]string{top}), 0)
	}
}
