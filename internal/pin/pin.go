// Package pin computes what an experiment's approval pins: per seed the
// train command as it would run, the adapter fields that decide what runs
// and what is scored, the files the commands name, the files the run reads
// that git does not show (ignored configs and env files), and the code
// (git HEAD, every tracked change and every untracked, non-ignored file
// outside .rlxp/ and the run outputs, over the whole work tree when the
// root lies below it). Any difference after approval makes the approval
// stale, and Changes names it.
package pin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/adapterpin"
	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/launch"
	"github.com/rlxp/rlxp/internal/state"
)

// RunDir is the run-directory template the pinned commands are filled
// with: the one check and launch use unless told otherwise.
const RunDir = "runs/{experiment}/seed{seed}"

// Version is the pin format Compute writes. Format 1 (recorded without a
// version) did not pin Reads nor the code outside the root; format 2
// pinned in Reads only the files the code did not cover (ignored, outside
// the code's scope, or no git), so that where a file was pinned moved with
// its git state.
// Format 4 adds Stamps; format 5 adds Tree, compared in place of Head;
// format 6 adds Contents; format 7 pins .python-version files in Reads.
const Version = 7

// Material is what an approval pins.
type Material struct {
	Version  int               `json:"version,omitempty"`
	Commands map[string]string `json:"commands"` // "seed N" → train command
	// Adapter is the digest of adapter.yaml's fields that decide what runs
	// and what is scored (adapterpin.Digest); AdapterFields the digest of each,
	// so that a change can be named (absent from older approvals).
	Adapter       string            `json:"adapter"`
	AdapterFields map[string]string `json:"adapter_fields,omitempty"`
	// Files maps repo-relative paths to their sha256 ("" for a deleted
	// tracked file): the files the commands name, tracked changes and
	// untracked files.
	Files map[string]string `json:"files"`
	// Reads maps every file the run is found to read, whatever git says
	// of it, and the adapter's env files, to readSum: configs named by
	// the commands and by configs in turn, env files, the Python code run
	// and what it reads.
	Reads map[string]string `json:"reads,omitempty"`
	Head  string            `json:"head"` // git HEAD; "" outside git
	// Tree (format 5) digests the code committed at HEAD (codeTree): a
	// commit that changes no code in the scope, such as one of .rlxp/ or
	// an amended message, leaves it as it was.
	Tree string `json:"tree,omitempty"`
	// Env maps the environment variables the commands expand, and those
	// that change what the interpreter runs, to the digest of their value
	// ("" unset); Installed the Python environments' installed
	// distributions and start-up files (pinInstalled). Both are absent
	// from approvals recorded before they were pinned, and then not
	// compared.
	Env       map[string]string `json:"env,omitempty"`
	Installed map[string]string `json:"installed,omitempty"`
	// Stamps (format 4) maps each top-level entry of the Python
	// environments' site-packages and of the user site, and each
	// directory they import from outside the repository, to a digest of
	// the stat of its files (pinInstalled).
	Stamps map[string]string `json:"stamps,omitempty"`
	// Contents (format 6) maps each entry of Stamps to the digest of the
	// content of its files (pinContents), recorded at approval: an entry
	// whose stamps moved (a re-link, touch, a restore) with its content as
	// approved is not a change.
	Contents map[string]string `json:"contents,omitempty"`

	// stampJobs are the entries stamped, to digest their content.
	stampJobs []stampJob
	// hidden are the Reads the code does not cover (ignored, outside the
	// code's scope, or no git): what git does not show.
	hidden map[string]bool
}

// Compute reads the material of experiment e in the repository at root.
func Compute(ctx context.Context, root string, ad *adapter.Adapter, adapterFile string, e *experiment.Experiment) (Material, error) {
	m := Material{Version: Version, Commands: map[string]string{}, Files: map[string]string{}, Reads: map[string]string{}}
	var cmds []string
	named, err := commands(root, ad, adapterFile, e, func(seed int, runDir, cmd string) {
		m.Commands["seed "+strconv.Itoa(seed)] = cmd
		cmds = append(cmds, cmd)
		own := path.Clean(runDir) + "/"
		for _, w := range strings.Fields(cmd) {
			// What the run writes in its own new directory is not code.
			if rel, ok := within(root, strings.Trim(w, `'"`)); ok && !strings.HasPrefix(rel+"/", own) {
				if sum, err := fileSum(filepath.Join(root, rel)); err == nil {
					m.Files[rel] = sum
				}
			}
		}
	})
	if err != nil {
		return Material{}, err
	}
	m.Adapter, m.AdapterFields = adapterpin.Digest(ad), adapterpin.Fields(ad)
	g, err := gitState(ctx, root, ad)
	if err != nil {
		return Material{}, err
	}
	m.Head, m.Tree = g.head, g.tree
	outputs := Outputs(ad, named)
	for _, c := range g.changed {
		if notCode(c, outputs) {
			continue
		}
		sum, err := fileSum(filepath.Join(root, c.path))
		if err != nil {
			sum = "" // deleted
		}
		m.Files[c.path] = sum
	}
	if err := m.pinReads(ctx, root, ad, g, cmds, outputs); err != nil {
		return Material{}, err
	}
	// The run inherits the launching process's environment (launch).
	m.pinEnv(cmds, os.LookupEnv)
	if err := m.pinInstalled(root, g.top, ad, os.LookupEnv); err != nil {
		return Material{}, err
	}
	return m, nil
}

// pinReads pins every file the run reads (readFiles) by content, and
// notes those the code does not cover: in git, those git ignores or that
// lie outside the code's scope; outside git, all of them. The adapter's
// env files are pinned whatever git says, and as absent ("") when missing.
func (m *Material) pinReads(ctx context.Context, root string, ad *adapter.Adapter, g gitView, cmds, outputs []string) error {
	var loaders, code []string
	if g.in {
		var err error
		if loaders, err = gitLoaders(ctx, root, g.scope); err != nil {
			return err
		}
		if code, err = ignoredPython(ctx, root, g.scope); err != nil {
			return err
		}
	}
	reads, err := readFiles(root, g.top, ad, cmds, outputs, loaders, code)
	if err != nil {
		return err
	}
	reads = append(reads, uncheckedPycs(root, reads)...)
	reads = append(reads, pythonVersions(root, g.top, reads)...)
	var ign map[string]bool
	if g.in {
		if ign, err = ignored(ctx, root, reads); err != nil {
			return err
		}
	}
	m.hidden = map[string]bool{}
	for _, p := range reads {
		if sum, err := readSum(filepath.Join(root, p)); err == nil {
			m.Reads[p], m.hidden[p] = sum, !g.in || ign[p] || !g.scope.covers(p)
		}
	}
	for _, f := range ad.EnvFiles {
		p := path.Clean(filepath.ToSlash(f))
		sum, err := readSum(filepath.Join(root, p))
		if err != nil {
			sum = ""
		}
		m.Reads[p], m.hidden[p] = sum, true
	}
	return nil
}

// adapterPin is the adapter material m pins.
func (m Material) adapterPin() adapterpin.Pin {
	return adapterpin.Pin{Adapter: m.Adapter, AdapterFields: m.AdapterFields}
}

// commands calls each with every seed's train command, and returns the
// paths they name (commandPaths). Without a train command nothing can
// launch (check says so); adding one later is a change like any other.
func commands(root string, ad *adapter.Adapter, adapterFile string, e *experiment.Experiment, each func(seed int, runDir, cmd string)) ([]string, error) {
	if ad.Commands["train"] == "" {
		return nil, nil
	}
	src := launch.Source{Adapter: ad, AdapterFile: adapterFile, Experiment: e, RunDir: RunDir}
	var named []string
	for _, seed := range e.Seeds {
		runDir, cmd, err := src.Command("train", seed)
		if err != nil {
			return nil, err
		}
		each(seed, runDir, cmd)
		named = append(named, commandPaths(root, cmd, runDir)...)
	}
	return named, nil
}

// A change is a path git reports changed, relative to the root.
type change struct {
	path      string
	untracked bool
}

// notCode says whether a changed path is rlxp's state or a file runs
// wrote: an untracked file under an output directory. A tracked file is
// code wherever it lies.
func notCode(c change, outputs []string) bool {
	if isState(c.path) {
		return true
	}
	for _, d := range outputs {
		if c.untracked && strings.HasPrefix(c.path, d) {
			return true
		}
	}
	return false
}

// within returns w as a path relative to root when it names a regular
// file inside it.
func within(root, w string) (string, bool) {
	rel, ok := inside(root, w)
	if !ok {
		return "", false
	}
	fi, err := os.Stat(filepath.Join(root, rel))
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return rel, true
}

func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not a regular file", path)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// git runs git in root and returns its output.
func git(ctx context.Context, root string, args ...string) ([]byte, error) {
	cmd := gitCommand(ctx, root, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// gitCommand is git run in root as the pin reads the work tree: never
// through replacement objects (git replace can make HEAD's commit read
// as another, so that status shows an edit as none), nor through a file
// system monitor (core.fsmonitor can tell status that nothing changed),
// nor pointed at another repository or index by the environment.
func gitCommand(ctx context.Context, root string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--no-replace-objects", "-c", "core.fsmonitor=false", "-C", root}, args...)...)
	for _, kv := range os.Environ() {
		if !gitRedirects(kv) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	return cmd
}

// gitRedirects says whether an environment entry points git at another
// repository, index or object store, or sets its configuration.
func gitRedirects(kv string) bool {
	k, _, _ := strings.Cut(kv, "=")
	switch k {
	case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
		"GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_REPLACE_REF_BASE", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT":
		return true
	}
	return strings.HasPrefix(k, "GIT_CONFIG_KEY_") || strings.HasPrefix(k, "GIT_CONFIG_VALUE_")
}

// A gitView is what git shows of the code.
type gitView struct {
	in      bool   // root is inside a git work tree
	top     string // the work tree's top-level (root outside git)
	head    string
	tree    string // codeTree of HEAD; "" without a commit
	scope   codeScope
	changed []change
}

// openGit finds the work tree root lies in, and the code's scope in it.
func openGit(ctx context.Context, root string, ad *adapter.Adapter) (gitView, error) {
	g := gitView{top: root, scope: codeScope{specs: []string{"."}}}
	out, err := git(ctx, root, "rev-parse", "--show-toplevel", "--show-prefix")
	if err != nil {
		return g, nil // not inside a git work tree
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 2 && len(lines) != 1 {
		return g, fmt.Errorf("git rev-parse: unexpected answer %q", out)
	}
	prefix := ""
	if len(lines) == 2 {
		prefix = lines[1]
	}
	g.in, g.scope = true, scopeOf(ad, prefix)
	// The top as reached from root, so that relative paths agree with it
	// also through a symbolic link.
	g.top = filepath.Clean(filepath.Join(root, strings.Repeat("../", strings.Count(prefix, "/"))))
	if out, err := git(ctx, root, "rev-parse", "--verify", "-q", "HEAD"); err == nil {
		g.head = strings.TrimSpace(string(out))
	}
	return g, nil
}

// gitState is HEAD and the paths in the code's scope with tracked changes
// or untracked, non-ignored files, relative to root (../lib/util.py for a
// file above it). Outside a git repository both are empty: then the files
// the commands name and the files the run reads are all that is pinned.
func gitState(ctx context.Context, root string, ad *adapter.Adapter) (gitView, error) {
	g, err := openGit(ctx, root, ad)
	if err != nil || !g.in {
		return g, err
	}
	if g.head != "" {
		if g.tree, err = codeTree(ctx, root, g.scope); err != nil {
			return g, err
		}
	}
	out, err := git(ctx, root, append([]string{"status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--"}, g.scope.specs...)...)
	if err != nil {
		return g, err
	}
	seen := map[string]bool{}
	for _, rec := range strings.Split(string(out), "\x00") {
		if len(rec) < 4 {
			continue
		}
		// Porcelain paths are relative to the top-level.
		g.changed = append(g.changed, change{path: g.scope.fromTop(rec[3:]), untracked: rec[:2] == "??"})
		seen[g.changed[len(g.changed)-1].path] = true
	}
	hidden, err := hiddenFromStatus(ctx, root, g.scope)
	if err != nil {
		return g, err
	}
	for _, p := range hidden {
		if !seen[p] {
			g.changed = append(g.changed, change{path: p})
		}
	}
	sort.Slice(g.changed, func(i, j int) bool { return g.changed[i].path < g.changed[j].path })
	return g, nil
}

// codeTree digests the code committed at HEAD: the mode, object and path
// of every file in the scope, leaving out rlxp's state, so that
// committing the approvals or the ledger changes nothing that runs.
func codeTree(ctx context.Context, root string, sc codeScope) (string, error) {
	out, err := git(ctx, root, "ls-tree", "-r", "-z", "--full-tree", "HEAD")
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, rec := range strings.Split(string(out), "\x00") {
		// "<mode> <type> <object>\t<path>", the path from the top-level.
		meta, p, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		if rel := sc.fromTop(p); sc.covers(rel) && !isState(rel) {
			fmt.Fprintf(h, "%s\t%s\x00", meta, rel)
		}
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// hiddenFromStatus lists the tracked files, relative to root, that git
// status does not compare with the index because they are marked
// assume-unchanged or skip-worktree (git update-index) and whose content
// differs from the index: changes status would not report.
func hiddenFromStatus(ctx context.Context, root string, sc codeScope) ([]string, error) {
	// ls-files names paths relative to root, ../ included.
	out, err := git(ctx, root, append([]string{"ls-files", "-v", "-s", "-z", "--"}, sc.specs...)...)
	if err != nil {
		return nil, err
	}
	var paths, blobs []string
	for _, rec := range strings.Split(string(out), "\x00") {
		// "<tag> <mode> <object> <stage>\t<path>"
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 || len(f[0]) != 1 {
			continue
		}
		// A lower-case tag is assume-unchanged, S is skip-worktree.
		if tag := f[0][0]; (tag < 'a' || tag > 'z') && tag != 'S' {
			continue
		}
		if st, err := os.Lstat(filepath.Join(root, path)); err == nil && st.Mode().IsRegular() {
			paths, blobs = append(paths, path), append(blobs, f[2])
		}
	}
	if len(paths) == 0 {
		return nil, nil
	}
	out, err = git(ctx, root, append([]string{"hash-object", "--"}, paths...)...)
	if err != nil {
		return nil, err
	}
	sums := strings.Fields(string(out))
	var hidden []string
	for i, p := range paths {
		if i >= len(sums) || sums[i] != blobs[i] {
			hidden = append(hidden, p)
		}
	}
	return hidden, nil
}

// Changes names every difference between the approved material and now:
// the command before and after, the file, the commit.
func Changes(approved, now Material) []string {
	var out []string
	for _, k := range keys(approved.Commands, now.Commands) {
		a, b := approved.Commands[k], now.Commands[k]
		if a != b {
			out = append(out, fmt.Sprintf("train command of %s: %s -> %s", k, orNone(a), orNone(b)))
		}
	}
	if what := adapterpin.Changed(approved.adapterPin(), now.adapterPin()); what != "" {
		out = append(out, ".rlxp/adapter.yaml: "+what+" changed")
	}
	// A repository that had no commit at approval (or was not one) is judged
	// by its files alone.
	switch {
	case approved.Tree != "":
		if approved.Tree != now.Tree {
			out = append(out, fmt.Sprintf("git HEAD %s -> %s: the code committed differs", short(approved.Head), short(now.Head)))
		}
	case approved.Head != "" && approved.Head != now.Head:
		out = append(out, fmt.Sprintf("git HEAD %s -> %s", short(approved.Head), short(now.Head)))
	}
	out = append(out, mapChanges(approved.Files, now.Files, nil, changeWords{
		added: "changed or added", removed: "changed back or committed", emptied: "deleted"})...)
	if approved.Env != nil {
		for _, k := range keys(approved.Env, now.Env) {
			if a, b := approved.Env[k], now.Env[k]; a != b {
				out = append(out, fmt.Sprintf("environment variable %s: %s since approval", k, envChange(a, b)))
			}
		}
		out = append(out, mapChanges(approved.Installed, now.Installed, nil, changeWords{added: "installed", removed: "removed"})...)
	}
	if approved.Version >= 4 {
		out = append(out, stampChanges(approved, now)...)
	}
	// A read that is also code is named once, as code.
	out = append(out, mapChanges(approved.Reads, now.Reads, differs(approved.Files, now.Files), changeWords{
		added: "added", addedWhy: " (the run reads it)", removed: "deleted", emptied: "deleted"})...)
	return out
}

// contentsMoved digests the content of the entries whose stamps moved
// since an approval that recorded their content (format 6), for
// stampChanges to compare. Only those are read; one that cannot be is
// left without a digest, and so named as edited.
func (m *Material) contentsMoved(approved Material) {
	if len(approved.Contents) == 0 {
		return
	}
	_ = m.pinContents(func(k string) bool {
		a, ok := approved.Stamps[k]
		return ok && a != m.Stamps[k] && approved.Contents[k] != ""
	})
}

// stampChanges names the entries of the Python environments whose
// stamps differ, except those Installed names already and those whose
// content is the one approved (format 6).
func stampChanges(approved, now Material) []string {
	installed := differs(approved.Installed, now.Installed)
	return mapChanges(approved.Stamps, now.Stamps, func(k string) bool {
		if c := approved.Contents[k]; c != "" && c == now.Contents[k] {
			return true
		}
		return installed(k)
	}, changeWords{added: "installed", removed: "removed"})
}

// changeWords name how an entry of a pinned map changed: added, removed,
// or given the value "" (a file deleted; "" names it edited).
type changeWords struct{ added, addedWhy, removed, emptied string }

// mapChanges names the entries that differ between approved and now, in
// key order, leaving out those skip says are named elsewhere.
func mapChanges(approved, now map[string]string, skip func(string) bool, w changeWords) []string {
	var out []string
	for _, k := range keys(approved, now) {
		a, inA := approved[k]
		b, inB := now[k]
		switch {
		case a == b && inA == inB, skip != nil && skip(k):
		case !inA:
			out = append(out, k+": "+w.added+" since approval"+w.addedWhy)
		case !inB:
			out = append(out, k+": "+w.removed+" since approval")
		case b == "" && w.emptied != "":
			out = append(out, k+": "+w.emptied+" since approval")
		default:
			out = append(out, k+": edited since approval")
		}
	}
	return out
}

// differs says of a key whether its entry differs between two maps.
func differs(approved, now map[string]string) func(string) bool {
	return func(k string) bool {
		a, inA := approved[k]
		b, inB := now[k]
		return a != b || inA != inB
	}
}

// migrate compares an approval recorded in pin format 1 with now as that
// format saw it, so that an approval of a repository where nothing changed
// keeps verifying; what format 2 pins beyond it (files the run reads that
// git does not show, code above the root) is named, since the old approval
// never covered it.
func migrate(approved, now Material) []string {
	old := now
	old.Reads, old.Files = nil, map[string]string{}
	var beyond []string
	for k, v := range now.Files {
		if strings.HasPrefix(k, "../") {
			beyond = append(beyond, k)
			continue
		}
		old.Files[k] = v
	}
	for k := range now.Reads {
		if now.format2(k) {
			beyond = append(beyond, k)
		}
	}
	out := Changes(approved, old)
	if len(beyond) > 0 {
		sort.Strings(beyond)
		out = append(out, fmt.Sprintf("approved in pin format 1, which did not pin the files the run reads that git does not show nor the code above the rlxp root; now pinned: %s", strings.Join(beyond, ", ")))
	}
	return out
}

func keys(a, b map[string]string) []string {
	seen := map[string]bool{}
	var ks []string
	for _, m := range []map[string]string{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				ks = append(ks, k)
			}
		}
	}
	sort.Strings(ks)
	return ks
}

// envChange says how a variable's pinned value changed.
func envChange(a, b string) string {
	switch {
	case a == "":
		return "set"
	case b == "":
		return "unset"
	}
	return "changed"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func short(h string) string {
	if h == "" {
		return "(none)"
	}
	return h[:min(len(h), 12)]
}

// stale compares what e would run now (now, or the error computing it)
// with what its latest approval in the approvals book pinned, and names
// every difference. An experiment without an approval, or a log that does
// not verify, has nothing to compare: the gate says so on its own.
func stale(r *state.Repo, b approval.Book, e *experiment.Experiment, now Material, nowErr error) []string {
	if b.Problem != nil {
		return nil
	}
	rec, ok := b.Latest(approval.Experiment)[e.ID]
	if !ok || rec.Digest != e.Digest() {
		return nil
	}
	if len(rec.Plan) == 0 {
		return []string{"the approval does not pin what runs (recorded before rlxp pinned commands, configs and code)"}
	}
	var approved Material
	if err := json.Unmarshal(rec.Plan, &approved); err != nil {
		return []string{fmt.Sprintf("%s:%d: the pinned plan cannot be read: %v", r.Show(state.Approvals), rec.Line, err)}
	}
	if nowErr != nil {
		return []string{fmt.Sprintf("cannot tell what would run now: %v", nowErr)}
	}
	now.contentsMoved(approved)
	if approved.Version < 7 {
		now = asFormat6(approved, now)
	}
	switch approved.Version {
	case 0, 1:
		return migrate(approved, now)
	case 2:
		return Changes(approved, asFormat2(approved, now))
	}
	return Changes(approved, now)
}

// pythonVersions lists, relative to root, the .python-version files in
// root and each directory above it up to top, those not in reads already:
// pyenv's shims and uv pick the interpreter that runs "python" by the
// nearest one, so one written after approval (pyenv local, uv python
// pin), even where git ignores it, runs the code under another Python
// and its site-packages.
func pythonVersions(root, top string, reads []string) []string {
	var out []string
	for dir, rel := root, ".python-version"; ; dir, rel = filepath.Dir(dir), "../"+rel {
		if _, err := os.Stat(filepath.Join(dir, ".python-version")); err == nil && !slices.Contains(reads, rel) {
			out = append(out, rel)
		}
		if dir == top || !inDir(dir, top) || filepath.Dir(dir) == dir {
			return out
		}
	}
}

// asFormat6 is now as an approval in pin format 6 or before is compared
// with it: without the .python-version files format 7 pins that it did not.
func asFormat6(approved, now Material) Material {
	old := now
	old.Reads = map[string]string{}
	for k, v := range now.Reads {
		if _, pinned := approved.Reads[k]; pinned || path.Base(k) != ".python-version" {
			old.Reads[k] = v
		}
	}
	return old
}

// asFormat2 is now as an approval in pin format 2 is compared with it:
// format 2 pinned only the reads the code did not cover, so a read the
// code covers counts only where the approval pinned it (the file was
// ignored then, or the repository not yet under git). Nothing format 3
// pins goes beyond what format 2 and the code digest covered, so an
// approval in format 2 keeps verifying while nothing changes.
func asFormat2(approved, now Material) Material {
	old := now
	old.Reads = map[string]string{}
	for k, v := range now.Reads {
		if _, pinned := approved.Reads[k]; pinned || now.format2(k) {
			old.Reads[k] = v
		}
	}
	return old
}

// format2 says whether pin format 2 pinned a read in Reads: one the code
// does not cover and the commands do not name.
func (m Material) format2(k string) bool {
	_, named := m.Files[k]
	return m.hidden[k] && !named
}
