package audit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// fileKind says how a file is read, or that it is not.
type fileKind int

const (
	kindNone fileKind = iota
	kindPython
	kindShell
	kindMake
	kindPyproject
	kindSetupCfg
	kindRequirements
	kindReadme
	kindEnv
	kindYAML
	kindConfig      // JSON and TOML settings: only the logging backends they choose are read
	kindMaybeScript // no extension under bin/ or scripts/: the shebang decides
)

// Reasons a file or directory is skipped, as the report counts them.
const (
	skipIgnored   = "gitignored"
	skipVendored  = "vendored"
	skipBinary    = "binary"
	skipLarge     = "large"
	skipSymlink   = "symlink"
	skipType      = "not read (file type)"
	skipUnread    = "unreadable"
	skipNestedGit = "nested repository"
	skipOutputs   = "run outputs"
	skipTooling   = "tool caches"
)

// isVendoredDir reports directory names that hold someone else's code.
func isVendoredDir(name string) bool {
	switch name {
	case "vendor", "vendors", "third_party", "third-party", "thirdparty", "3rdparty", "3rd_party",
		"external", "externals", "extern", "node_modules", "site-packages", "dist-packages", ".venv",
		"venv", "virtualenv", ".tox", ".nox", ".eggs", "bower_components":
		return true
	}
	return strings.HasSuffix(name, ".egg-info")
}

// isToolingDir reports caches and editor state: never anyone's code.
func isToolingDir(name string) bool {
	switch name {
	case ".git", ".hg", ".svn", ".rlxp", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
		".ipynb_checkpoints", ".idea", ".cache", ".hypothesis":
		return true
	}
	return false
}

// isOutputDir reports where runs write: results, not code.
func isOutputDir(name string) bool {
	switch name {
	case "wandb", "mlruns", "tensorboard_log", "lightning_logs":
		return true
	}
	return false
}

// isPackageDir reports a Python package (prime-rl's monitors/wandb/):
// source named after a tool, not the tool's run outputs.
func isPackageDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "__init__.py"))
	return err == nil && st.Mode().IsRegular()
}

// binaryExts lists extensions of files that are never text, each between
// spaces.
const binaryExts = " png jpg jpeg gif bmp ico tif tiff webp pdf zip tar gz tgz bz2 xz 7z whl so dll dylib a o exe bin pt pth ckpt onnx safetensors npz npy pkl pickle h5 hdf5 mp4 mov avi webm mp3 wav ogg flac ttf otf woff woff2 pyc pyo class jar parquet arrow tfrecord db sqlite stl dae usd usdc usdz glb mjb msgpack pb tflite engine plan ply dat wandb "

func isBinaryExt(ext string) bool {
	return ext != "" && strings.Contains(binaryExts, " "+ext+" ")
}

// classify picks how a file is read from its name and directory.
func classify(rel string) fileKind {
	name := path.Base(rel)
	lower := strings.ToLower(name)
	ext := ""
	if i := strings.LastIndexByte(lower, '.'); i > 0 {
		ext = lower[i+1:]
	}
	switch {
	case ext == "py":
		return kindPython
	case ext == "sh" || ext == "bash" || ext == "zsh" || ext == "slurm" || ext == "sbatch" || ext == "ksh":
		return kindShell
	case name == "Makefile" || name == "makefile" || name == "GNUmakefile" || ext == "mk" || lower == "justfile":
		return kindMake
	case lower == "pyproject.toml":
		return kindPyproject
	case lower == "setup.cfg":
		return kindSetupCfg
	case (strings.HasPrefix(lower, "requirements") || strings.HasSuffix(lower, "requirements.txt")) && (ext == "txt" || ext == "in"),
		lower == "environment.yml" || lower == "environment.yaml":
		return kindRequirements
	case strings.HasPrefix(lower, "readme") && (ext == "" || ext == "md" || ext == "rst" || ext == "txt" || ext == "markdown"),
		(ext == "md" || ext == "mdx" || ext == "rst" || ext == "markdown") && (!strings.Contains(rel, "/") || inDocs(rel)):
		return kindReadme
	case lower == ".env" || ext == "env" || strings.HasPrefix(lower, ".env.") || lower == ".envrc":
		return kindEnv
	case ext == "yaml" || ext == "yml":
		return kindYAML
	case ext == "json" || ext == "toml":
		return kindConfig
	case ext == "":
		dir := path.Base(path.Dir(rel))
		if dir == "bin" || dir == "scripts" || dir == "tools" {
			return kindMaybeScript
		}
	}
	return kindNone
}

// A listing is what the walk found: the files to read, every listed path,
// and what it skipped.
type listing struct {
	files   []string // relative slash paths to read
	kinds   []fileKind
	paths   map[string]bool // every file not skipped, read or not
	dirs    map[string]bool
	skipped map[string]int
	skipDir []SkippedDir
}

// walker lists a repository, honouring .gitignore files at every level
// and skipping vendored, tooling and output directories. Directories are
// read on several goroutines (the walk is mostly waiting on getdents);
// the listing is sorted afterwards, so it does not depend on timing.
type walker struct {
	ctx    context.Context
	root   string
	vendor map[string]bool // package names of libraries a copy of which is vendored code
	sem    chan struct{}   // bounds the goroutines reading directories
	wg     sync.WaitGroup
	mu     sync.Mutex
	out    *listing
	// rootManifest: the repository root is a Python project of its own
	// (setup.py, pyproject.toml or setup.cfg); set before any
	// subdirectory is read.
	rootManifest bool
	// docRuns: the scripts and modules the root README's commands run,
	// read with the root: a project of its own they run into is part of
	// how the repository trains (humanoid-bench's tdmpc2/).
	docRuns []string
}

// maxSkippedDirs bounds the skipped directories listed; the counts keep
// counting.
const maxSkippedDirs = 50

func listRepo(ctx context.Context, root string, vendorPkgs map[string]bool) (*listing, error) {
	w := &walker{ctx: ctx, root: root, vendor: vendorPkgs, sem: make(chan struct{}, 2*runtime.GOMAXPROCS(0)),
		out: &listing{paths: map[string]bool{}, dirs: map[string]bool{}, skipped: map[string]int{}}}
	var stack []ignoreFile
	if data, err := os.ReadFile(filepath.Join(root, ".git", "info", "exclude")); err == nil {
		stack = append(stack, newIgnoreFile("", parseIgnore(data)))
	}
	if _, err := os.ReadDir(root); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	w.walk("", stack)
	w.wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := w.out
	order := make([]int, len(out.files))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return out.files[order[i]] < out.files[order[j]] })
	files, kinds := make([]string, len(order)), make([]fileKind, len(order))
	for i, k := range order {
		files[i], kinds[i] = out.files[k], out.kinds[k]
	}
	out.files, out.kinds = files, kinds
	sort.Slice(out.skipDir, func(i, j int) bool { return out.skipDir[i].Path < out.skipDir[j].Path })
	if len(out.skipDir) > maxSkippedDirs {
		out.skipDir = out.skipDir[:maxSkippedDirs]
	}
	return out, nil
}

// dirResult is what reading one directory found, merged into the listing
// under the lock.
type dirResult struct {
	files   []string
	kinds   []fileKind
	paths   []string
	skipped map[string]int
	skipDir []SkippedDir
}

func (r *dirResult) skipDirectory(rel, reason string) {
	r.skipped[reason+" directories"]++
	r.skipDir = append(r.skipDir, SkippedDir{Path: rel + "/", Reason: reason})
}

func (w *walker) walk(dir string, stack []ignoreFile) {
	if w.ctx.Err() != nil {
		return
	}
	res := dirResult{skipped: map[string]int{}}
	subdirs, stack, entered := w.read(dir, stack, &res)
	w.mu.Lock()
	w.out.files = append(w.out.files, res.files...)
	w.out.kinds = append(w.out.kinds, res.kinds...)
	for _, p := range res.paths {
		w.out.paths[p] = true
	}
	for k, v := range res.skipped {
		w.out.skipped[k] += v
	}
	w.out.skipDir = append(w.out.skipDir, res.skipDir...)
	if entered {
		w.out.dirs[dir] = true
	}
	w.mu.Unlock()
	for _, sub := range subdirs {
		select {
		case w.sem <- struct{}{}:
			w.wg.Add(1)
			go func() {
				defer w.wg.Done()
				defer func() { <-w.sem }()
				w.walk(sub, stack)
			}()
		default:
			w.walk(sub, stack)
		}
	}
}

// read lists one directory into res. It returns the subdirectories to
// walk, the ignore rules in force below it, and whether it was entered
// (not vendored, not another repository, readable).
func (w *walker) read(dir string, stack []ignoreFile, res *dirResult) ([]string, []ignoreFile, bool) {
	abs := filepath.Join(w.root, filepath.FromSlash(dir))
	entries, err := os.ReadDir(abs)
	if err != nil {
		res.skipped[skipUnread]++
		return nil, nil, false
	}
	if dir == "" {
		w.rootManifest = hasManifest(entries)
		w.docRuns = readmeRuns(abs, entries)
	} else {
		if reason := w.vendored(dir, entries); reason != "" {
			res.skipDirectory(dir, reason)
			return nil, nil, false
		}
	}
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			if data, err := os.ReadFile(filepath.Join(abs, ".gitignore")); err == nil {
				stack = append(stack[:len(stack):len(stack)], newIgnoreFile(dir, parseIgnore(data)))
			}
		}
	}
	var subdirs []string
	for _, e := range entries {
		name := e.Name()
		rel := name
		if dir != "" {
			rel = dir + "/" + name
		}
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			res.skipped[skipSymlink]++
		case e.IsDir():
			switch {
			case isToolingDir(name):
				if name != ".git" {
					res.skipped[skipTooling+" directories"]++
				}
			case ignored(stack, rel, true):
				res.skipDirectory(rel, skipIgnored)
			case isVendoredDir(name):
				res.skipDirectory(rel, skipVendored)
			case isOutputDir(name) && !isPackageDir(filepath.Join(abs, name)):
				res.skipDirectory(rel, skipOutputs)
			default:
				subdirs = append(subdirs, rel)
			}
		case !e.Type().IsRegular():
			res.skipped[skipType]++
		case ignored(stack, rel, false):
			res.skipped[skipIgnored]++
		default:
			res.paths = append(res.paths, rel)
			k := classify(rel)
			if k == kindNone {
				if isBinaryExt(extOf(name)) {
					res.skipped[skipBinary]++
				} else {
					res.skipped[skipType]++
				}
				continue
			}
			res.files = append(res.files, rel)
			res.kinds = append(res.kinds, k)
		}
	}
	return subdirs, stack, true
}

// vendored says why a directory is someone else's code: another
// repository (a submodule), a virtualenv, a copy of a known library (its
// package directory below the top level, or a project directory holding
// one), or a project of its own: a "<name>-<version>" directory, one
// with its own licence, one with its own manifest next to the root's,
// or one with its own requirements that is not a Python package of the
// repository (tutorials and examples installed apart). Its evidence must
// not decide the repository's framework, entry points or tags.
func (w *walker) vendored(dir string, entries []fs.DirEntry) string {
	has := func(name string) bool {
		i := sort.Search(len(entries), func(i int) bool { return entries[i].Name() >= name })
		return i < len(entries) && entries[i].Name() == name
	}
	if has(".git") {
		return skipNestedGit
	}
	if has("pyvenv.cfg") {
		return skipVendored
	}
	base := path.Base(dir)
	if has("__init__.py") && w.vendor[base] && strings.Contains(dir, "/") {
		return "vendored copy of " + base
	}
	manifest := hasManifest(entries)
	if manifest {
		for _, e := range entries {
			if e.IsDir() && w.vendor[e.Name()] {
				return "vendored copy of " + e.Name()
			}
		}
	}
	if versionedName(base) {
		return "project of its own (" + base + ")"
	}
	if w.documentedInto(dir, has) {
		return ""
	}
	pkg := has("__init__.py")
	for _, e := range entries {
		n := strings.ToLower(e.Name())
		switch {
		case e.IsDir():
		case !pkg && (strings.HasPrefix(n, "license") || strings.HasPrefix(n, "copying")):
			return "project of its own (" + e.Name() + ")"
		case manifest && w.rootManifest && (n == "setup.py" || n == "pyproject.toml" || n == "setup.cfg"):
			return "project of its own (" + e.Name() + ")"
		case !pkg && !docsDir(dir) && strings.HasPrefix(n, "requirements") && strings.HasSuffix(n, ".txt"):
			return "project of its own (" + e.Name() + ")"
		}
	}
	return ""
}

// documentedInto reports a directory the root README's commands run a
// script in, or a module of: its own package (a project installed from
// its folder, tdmpc2/tdmpc2/) or itself at the top level.
func (w *walker) documentedInto(dir string, has func(string) bool) bool {
	for _, r := range w.docRuns {
		mod, isMod := strings.CutPrefix(r, "-m ")
		if !isMod {
			if strings.HasPrefix(r, dir+"/") {
				return true
			}
			continue
		}
		top, _, _ := strings.Cut(mod, ".")
		if top != "" && (has(top) || dir == top) {
			return true
		}
	}
	return false
}

// readmeRuns lists what the commands of the README files among a
// directory's entries run: script paths as written (without "./"), and
// modules as "-m NAME".
func readmeRuns(abs string, entries []fs.DirEntry) []string {
	var out []string
	for _, e := range entries {
		if !e.Type().IsRegular() || classify(e.Name()) != kindReadme {
			continue
		}
		data, err := os.ReadFile(filepath.Join(abs, e.Name()))
		if err != nil || len(data) > 1<<20 {
			continue
		}
		for _, c := range commandLines(string(data), 1, "readme") {
			script, mod, _ := pyTarget(c.argv)
			switch {
			case mod != "":
				out = append(out, "-m "+mod)
			case script != "":
				out = append(out, strings.TrimPrefix(script, "./"))
			}
		}
	}
	return out
}

// hasManifest reports a Python project's manifest among the entries.
func hasManifest(entries []fs.DirEntry) bool {
	for _, e := range entries {
		switch e.Name() {
		case "setup.py", "pyproject.toml", "setup.cfg":
			return !e.IsDir()
		}
	}
	return false
}

// inDocs reports a file under a documentation directory.
func inDocs(rel string) bool {
	for d := path.Dir(rel); d != "." && d != "/"; d = path.Dir(d) {
		if docsDir(d) {
			return true
		}
	}
	return false
}

// docsDir reports documentation, whose requirements build the docs.
func docsDir(dir string) bool {
	switch path.Base(dir) {
	case "docs", "doc", "documentation":
		return true
	}
	return false
}

// versionedName reports a "<name>-<version>" directory (gym-0.21.0,
// mujoco-py-2.1): an unpacked release of someone's project.
func versionedName(name string) bool {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 || i == len(name)-1 {
		return false
	}
	v := strings.TrimPrefix(name[i+1:], "v")
	dots := 0
	for j := 0; j < len(v); j++ {
		switch c := v[j]; {
		case c == '.':
			dots++
		case c < '0' || c > '9':
			return false
		}
	}
	return dots > 0 && v[0] != '.' && isAlpha(name[0])
}

func extOf(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return strings.ToLower(name[i+1:])
	}
	return ""
}

// readSource reads a file to scan: nil with a reason when it is too large
// or binary.
func readSource(root, rel string, maxSize int64) ([]byte, string) {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, skipUnread
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, skipUnread
	}
	if st.Size() > maxSize {
		return nil, skipLarge
	}
	data := make([]byte, st.Size())
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, skipUnread
	}
	data = data[:n]
	head := data
	if len(head) > 8000 {
		head = head[:8000]
	}
	// As git decides: a NUL byte near the start means binary.
	if bytes.IndexByte(head, 0) >= 0 {
		return nil, skipBinary
	}
	return data, ""
}

// sortedKeys lists a set's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
