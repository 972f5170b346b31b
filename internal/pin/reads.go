package pin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"

	"github.com/rlxp/rlxp/internal/adapter"
)

// Limits of the search for the files a run reads.
const (
	// ContentLimit is the largest file pinned by its whole content; a
	// larger one (a data set) is pinned by its size, modification time and
	// the digest of its first and last MiB, so that the gate does not hash
	// gigabytes on every check.
	ContentLimit = 64 << 20
	edgeBytes    = 1 << 20
	// scanLimit is the largest file searched for the paths it names.
	scanLimit = 1 << 20
	// maxReads bounds the files followed; more is an error, not a cut.
	maxReads = 10000
)

// dotenvPattern matches code that loads an env file on its own:
// python-dotenv, pydantic's env_file. hydraPattern matches a Hydra entry
// point's config directory (@hydra.main, initialize).
const (
	dotenvPattern = `load_dotenv|dotenv_values|find_dotenv|read_dotenv|env_file`
	hydraPattern  = `config_path`
)

// Compiled on first use, not at start-up.
var (
	// hydraDir captures a Hydra config_path literal.
	hydraDir = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`config_path\s*=\s*(?:"([^"\n]*)"|'([^'\n]*)')`)
	})
	// redirect matches a shell redirection or tee and its target: a file
	// a script writes, not one it reads.
	redirect = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:[0-9&]?>{1,2}\|?|\btee(?:\s+-a)?)\s*[^\s;&|)]+`)
	})
	// quoted matches a string literal in code.
	quoted = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"([^"\n]{1,1000})"|'([^'\n]{1,1000})'`) })
)

// loadsDotEnv says whether a launcher loads the working directory's .env
// itself.
func loadsDotEnv(word string) bool {
	switch path.Base(word) {
	case "pipenv", "dotenv", "docker-compose", "compose", "honcho", "foreman":
		return true
	}
	return false
}

// readSearch follows the files a run reads from the train commands: the
// files they name, and transitively the files those name when they are
// configs or scripts (a value, a Hydra defaults entry, a sourced file),
// and the env files loaded by code that calls python-dotenv.
type readSearch struct {
	root, top string   // absolute; top is the git top-level, or root
	skip      []string // root-relative directories runs write (Outputs)
	found     map[string]bool
	queue     []string
	cfgRoots  map[string]bool // directories holding Hydra configs
	// cfgDirs are Hydra config directories (a config_path, --config-path,
	// --config-dir, a file:// search path): every config in them may be
	// picked from the command line, so all are read; true once walked.
	cfgDirs map[string]bool
	// regular caches whether a path is a regular file: the imports of many
	// modules look up the same candidates.
	regular map[string]bool
}

// readFiles lists, relative to root, the files the commands read that lie
// inside the repository (top), except rlxp's state and what runs write.
// loaders are code files (root-relative) that may load an env file or
// name a Hydra config directory (gitLoaders); extra are files read besides
// (ignored Python code).
func readFiles(root, top string, ad *adapter.Adapter, cmds, outputs, loaders, extra []string) ([]string, error) {
	s := &readSearch{root: root, top: top, skip: outputs, found: map[string]bool{}, cfgRoots: map[string]bool{}, cfgDirs: map[string]bool{}, regular: map[string]bool{}}
	for _, f := range extra {
		s.add(s.resolve(root, f)...)
	}
	if ad.Config.Default != "" {
		s.add(s.resolve(root, ad.Config.Default)...)
	}
	var overrides [][2]string
	for _, cmd := range cmds {
		words := strings.Fields(cmd)
		var cfgPath, cfgName string
		for i, w := range words {
			w = strings.Trim(w, `'"`)
			prev := ""
			if i > 0 {
				prev = strings.Trim(words[i-1], `'"`)
			}
			switch {
			case prev == "-m":
				mod := strings.ReplaceAll(w, ".", "/")
				s.add(s.resolve(root, mod+".py", mod+"/__main__.py")...)
				continue
			case prev == "--config-path" || prev == "-cp":
				cfgPath = w
			case prev == "--config-name" || prev == "-cn":
				cfgName = w
			case prev == "--config-dir" || prev == "-cd":
				s.configDir(filepath.Join(root, w))
			case loadsDotEnv(w):
				s.add(s.resolve(root, ".env")...)
			case path.Base(w) == "make" || path.Base(w) == "just":
				s.add(s.resolve(root, "Makefile", "makefile", "GNUmakefile", "justfile", "Justfile")...)
			}
			if k, v, ok := strings.Cut(w, "="); ok && k != "" {
				switch {
				case k == "--config-path":
					cfgPath = v
				case k == "--config-name":
					cfgName = v
				case k == "--config-dir":
					s.configDir(filepath.Join(root, v))
				case !strings.HasPrefix(k, "-"):
					overrides = append(overrides, [2]string{strings.TrimLeft(k, "+~"), v})
				}
				w = v
			}
			s.add(s.resolve(root, w)...)
		}
		// Paths inside words too: $(cat .env), --env-file=.env.
		for _, t := range strings.FieldsFunc(cmd, delimiter) {
			s.add(s.resolve(root, strings.TrimPrefix(t, "@"))...)
		}
		if cfgPath != "" {
			s.configDir(filepath.Join(root, cfgPath))
			if cfgName != "" {
				s.add(s.resolve(root, path.Join(cfgPath, strings.TrimSuffix(cfgName, ".yaml")+".yaml"))...)
			}
		}
	}
	for _, u := range loaders {
		abs := filepath.Join(root, u)
		if data, ok := readText(abs); ok {
			s.inspect(abs, data)
		}
	}
	if err := s.follow(); err != nil {
		return nil, err
	}
	// Command-line overrides of a Hydra config group (model=big) pick a
	// file in a group directory of a config root.
	for _, o := range overrides {
		for d := range s.cfgRoots {
			s.add(s.resolve(d, path.Join(o[0], o[1]+".yaml"))...)
		}
	}
	if err := s.follow(); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(s.found))
	for p := range s.found {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// follow reads every queued file for the files it names.
func (s *readSearch) follow() error {
	for {
		if len(s.found) > maxReads {
			return fmt.Errorf("the run reads more than %d files (configs naming configs); name fewer", maxReads)
		}
		if len(s.queue) == 0 {
			if !s.walkConfigDirs() {
				return nil
			}
			continue
		}
		abs := s.queue[0]
		s.queue = s.queue[1:]
		data, ok := readText(abs)
		if !ok {
			continue
		}
		dir := filepath.Dir(abs)
		s.inspect(abs, data)
		if isPython(abs, data) {
			s.python(abs, data)
			continue
		}
		if !scannable(abs, data) {
			continue
		}
		text := string(data)
		if isShell(abs, data) {
			text = redirect().ReplaceAllString(text, " ")
		}
		for _, t := range strings.FieldsFunc(text, delimiter) {
			t = strings.TrimRight(t, ":.")
			if d, ok := strings.CutPrefix(t, "file://"); ok {
				s.configDir(filepath.Join(s.root, d)) // a Hydra search path
				continue
			}
			if strings.ContainsAny(t, "/.") && !strings.Contains(t, "://") && len(t) < 1024 {
				s.add(s.resolve(dir, t)...)
				s.add(s.resolve(s.root, t)...)
			}
		}
		if ext := filepath.Ext(abs); ext == ".yaml" || ext == ".yml" {
			s.hydraDefaults(abs, data)
		}
	}
}

// inspect looks at what a file loads on its own: an env file
// (python-dotenv), a Hydra config directory.
func (s *readSearch) inspect(abs string, data []byte) {
	// Every word of dotenvPattern holds "dotenv" or is "env_file": a
	// substring search is the regular expression's answer, many times
	// faster on a large tree of Python code.
	if bytes.Contains(data, []byte("dotenv")) || bytes.Contains(data, []byte("env_file")) {
		s.loadsEnv(abs)
	}
	if !bytes.Contains(data, []byte("config_path")) {
		return
	}
	for _, m := range hydraDir().FindAllSubmatch(data, -1) {
		// Relative to the file that declares it.
		s.configDir(filepath.Join(filepath.Dir(abs), string(m[1])+string(m[2])))
	}
}

// configDir records a Hydra config directory, to be walked once.
func (s *readSearch) configDir(d string) {
	d = filepath.Clean(d)
	if _, seen := s.cfgDirs[d]; seen {
		return
	}
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		s.cfgDirs[d] = false
		s.cfgRoots[d] = true
	}
}

// walkConfigDirs queues every YAML file under the config directories not
// walked yet, and says whether there were any.
func (s *readSearch) walkConfigDirs() bool {
	walked := false
	for d, done := range s.cfgDirs {
		if done {
			continue
		}
		s.cfgDirs[d], walked = true, true
		walkLinked(d, func(p string, dir bool) error {
			if len(s.found) > maxReads {
				return filepath.SkipAll
			}
			base := filepath.Base(p)
			if dir && (base == ".git" || base == ".rlxp") {
				return filepath.SkipDir
			}
			if ext := filepath.Ext(p); !dir && (ext == ".yaml" || ext == ".yml") {
				s.add(s.resolve(d, p)...)
			}
			return nil
		})
	}
	return walked
}

// walkLinked walks the tree at root as filepath.WalkDir does, calling fn
// with each path below it (root itself not included) and whether it is a
// directory, but follows symbolic links to directories, naming what lies
// there by the path through the link: a config directory linked from
// elsewhere is read as the run reads it. fn returns filepath.SkipDir or
// filepath.SkipAll as for WalkDir. A directory reached twice (a link
// loop) is walked once.
func walkLinked(root string, fn func(p string, dir bool) error) {
	seen := map[string]bool{}
	var walk func(logical string) error
	walk = func(logical string) error {
		real, err := filepath.EvalSymlinks(logical)
		if err != nil || seen[real] {
			return nil
		}
		seen[real] = true
		entries, err := os.ReadDir(logical)
		if err != nil {
			return nil
		}
		for _, e := range entries {
			p := filepath.Join(logical, e.Name())
			dir := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				st, err := os.Stat(p)
				dir = err == nil && st.IsDir()
			}
			switch err := fn(p, dir); {
			case err == filepath.SkipAll:
				return err
			case err == filepath.SkipDir:
				continue
			case err != nil:
				return err
			}
			if dir {
				if err := walk(p); err != nil {
					return err
				}
			}
		}
		return nil
	}
	_ = walk(root)
}

// loadsEnv adds what code that loads an env file reads: the .env
// python-dotenv finds from the file's directory up to the top, the one in
// the working directory (the root), and the files its string literals name.
func (s *readSearch) loadsEnv(abs string) {
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		s.add(s.resolve(d, ".env")...)
		if d == s.top || !strings.HasPrefix(d, s.top+string(filepath.Separator)) {
			break
		}
	}
	s.add(s.resolve(s.root, ".env")...)
	if data, ok := readText(abs); ok {
		for _, m := range quoted().FindAllSubmatch(data, -1) {
			lit := string(m[1]) + string(m[2])
			s.add(s.resolve(filepath.Dir(abs), lit)...)
			s.add(s.resolve(s.root, lit)...)
		}
	}
}

// hydraDefaults adds the files a Hydra defaults list picks: an entry
// "name" is name.yaml beside the file, "group: option" (also with
// override, optional, /group or @package) is group/option.yaml in the
// file's directory or one above it up to the root.
func (s *readSearch) hydraDefaults(abs string, data []byte) {
	var doc struct {
		Defaults []any `yaml:"defaults"`
	}
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Defaults) == 0 {
		return
	}
	var roots []string
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		roots = append(roots, d)
		s.cfgRoots[d] = true
		if d == s.root || d == s.top || !strings.HasPrefix(d, s.top+string(filepath.Separator)) {
			break
		}
	}
	var picks []string
	for _, item := range doc.Defaults {
		switch v := item.(type) {
		case string:
			picks = append(picks, v)
		case map[string]any:
			for k, opt := range v {
				k = strings.TrimPrefix(strings.TrimPrefix(k, "override "), "optional ")
				k, _, _ = strings.Cut(strings.TrimPrefix(k, "/"), "@")
				opts, _ := opt.([]any)
				if opt != nil && opts == nil {
					opts = []any{opt}
				}
				for _, o := range opts {
					picks = append(picks, path.Join(k, fmt.Sprint(o)))
				}
			}
		}
	}
	for _, p := range picks {
		for _, d := range roots {
			s.add(s.resolve(d, strings.TrimSuffix(p, ".yaml")+".yaml")...)
		}
	}
}

// resolve returns, as absolute paths, the names that are regular files
// inside the repository, taken relative to dir when not absolute.
func (s *readSearch) resolve(dir string, names ...string) []string {
	var out []string
	for _, n := range names {
		if n == "" || strings.HasPrefix(n, "-") || strings.HasPrefix(n, "~") || strings.Contains(n, "\x00") {
			continue
		}
		p := n
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		p = filepath.Clean(p)
		is, seen := s.regular[p]
		if !seen {
			st, err := os.Stat(p)
			is = err == nil && st.Mode().IsRegular()
			s.regular[p] = is
		}
		if is {
			out = append(out, p)
		}
	}
	return out
}

// add records files found and queues them to be read in turn. A file
// outside the repository, in git's or rlxp's own directories, or under a
// directory runs write, is left out.
func (s *readSearch) add(abs ...string) {
	for _, a := range abs {
		if a != s.top && !strings.HasPrefix(a, s.top+string(filepath.Separator)) {
			continue
		}
		rel, err := filepath.Rel(s.root, a)
		if err != nil {
			continue
		}
		rel = filepath.ToSlash(rel)
		if s.found[rel] || isState(rel) || strings.HasPrefix(rel, ".git/") || strings.Contains(rel, "/.git/") || under(rel, s.skip) {
			continue
		}
		s.found[rel] = true
		s.queue = append(s.queue, a)
	}
}

func under(rel string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(rel, d) {
			return true
		}
	}
	return false
}

func delimiter(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', ',', ';', '=', '(', ')', '[', ']', '{', '}', '<', '>', '|', '&':
		return true
	}
	return false
}

// readText reads up to scanLimit bytes of a file that looks like text.
func readText(abs string) ([]byte, bool) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, scanLimit))
	if err != nil || bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
		return nil, false
	}
	return data, true
}

// scannable says whether a file is a config, an env file or a shell
// script, whose words may name files the run reads. Other code is not:
// its strings name as many files it writes as it reads (Python is
// searched for its reads alone: python).
func scannable(abs string, data []byte) bool {
	base := filepath.Base(abs)
	switch filepath.Ext(base) {
	case ".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".env", ".jsonnet", ".mk":
		return true
	}
	return base == ".env" || strings.HasPrefix(base, ".env.") || isMake(base) || isShell(abs, data)
}

// isMake says whether a file is a make or just recipe file.
func isMake(base string) bool {
	switch base {
	case "Makefile", "makefile", "GNUmakefile", "justfile", "Justfile":
		return true
	}
	return false
}

// isPython says whether a file is Python source: a .py file or a script
// run by python.
func isPython(abs string, data []byte) bool {
	if filepath.Ext(abs) == ".py" {
		return true
	}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	return bytes.HasPrefix(first, []byte("#!")) && bytes.Contains(first, []byte("python"))
}

func isShell(abs string, data []byte) bool {
	switch filepath.Ext(abs) {
	case ".sh", ".bash", ".zsh":
		return true
	}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	return bytes.HasPrefix(first, []byte("#!")) && bytes.Contains(first, []byte("sh"))
}

// readSum pins a file the run reads: its sha256 up to ContentLimit, above
// it its size, modification time and the sha256 of its first and last MiB.
func readSum(abs string) (string, error) {
	st, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if st.Size() <= ContentLimit {
		return fileSum(abs)
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyN(h, f, edgeBytes); err != nil {
		return "", err
	}
	if _, err := io.Copy(h, io.NewSectionReader(f, st.Size()-edgeBytes, edgeBytes)); err != nil {
		return "", err
	}
	return fmt.Sprintf("size:%d,mtime:%d,edges:sha256:%s", st.Size(), st.ModTime().UnixNano(), hex.EncodeToString(h.Sum(nil))), nil
}

// ignored filters paths (root-relative) to those git ignores.
// A path beyond a symbolic link (a linked directory's file) is one git
// does not see, as if ignored: git tracks the link, not what it leads to.
func ignored(ctx context.Context, root string, paths []string) (map[string]bool, error) {
	out := map[string]bool{}
	links := map[string]bool{}
	var seen []string
	for _, p := range paths {
		if beyondLink(root, p, links) {
			out[p] = true
		} else {
			seen = append(seen, p)
		}
	}
	if len(seen) == 0 {
		return out, nil
	}
	cmd := gitCommand(ctx, root, "check-ignore", "-z", "--stdin")
	cmd.Stdin = strings.NewReader(strings.Join(seen, "\x00") + "\x00")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return out, nil // none ignored
	}
	if err != nil {
		return nil, fmt.Errorf("git check-ignore: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	for _, p := range strings.Split(string(res), "\x00") {
		if p != "" {
			out[p] = true
		}
	}
	return out, nil
}

// beyondLink says whether a root-relative path passes through a symbolic
// link to a directory. links remembers the directories looked at.
func beyondLink(root, rel string, links map[string]bool) bool {
	parts := strings.Split(rel, "/")
	for i := range parts[:len(parts)-1] {
		d := strings.Join(parts[:i+1], "/")
		if d == ".." || strings.HasSuffix(d, "/..") {
			continue
		}
		is, ok := links[d]
		if !ok {
			st, err := os.Lstat(filepath.Join(root, d))
			is = err == nil && st.Mode()&fs.ModeSymlink != 0
			links[d] = is
		}
		if is {
			return true
		}
	}
	return false
}

// gitLoaders lists the files (root-relative) in scope that may load an env
// file or name a Hydra config directory, by git grep over tracked and
// untracked files.
func gitLoaders(ctx context.Context, root string, sc codeScope) ([]string, error) {
	cmd := gitCommand(ctx, root, append([]string{"grep", "-l", "-z", "-I", "--untracked", "-E", dotenvPattern + "|" + hydraPattern, "--"}, sc.specs...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	res, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 && stderr.Len() == 0 {
		return nil, nil // no match
	}
	if err != nil {
		return nil, fmt.Errorf("git grep: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var out []string
	for _, p := range strings.Split(string(res), "\x00") {
		if p != "" && !isState(p) && !isDoc(p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// isDoc says whether a file is documentation: a mention of load_dotenv or
// config_path there loads nothing.
func isDoc(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".rst", ".txt", ".html", ".ipynb", ".adoc":
		return true
	}
	return false
}

// ignoredPython lists the Python files (root-relative) in scope that git
// ignores (local_settings.py, a vendored package): code the run may
// import that git status does not show. Virtual environments and caches
// are left out: they are the interpreter's, not the repository's.
func ignoredPython(ctx context.Context, root string, sc codeScope) ([]string, error) {
	specs := make([]string, len(sc.specs))
	for i, d := range sc.specs {
		switch d {
		case ".":
			specs[i] = "*.py"
		case ":/":
			specs[i] = ":/*.py"
		default:
			specs[i] = d + "/*.py"
		}
	}
	res, err := git(ctx, root, append([]string{"ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--"}, specs...)...)
	if err != nil {
		return nil, err
	}
	venv := map[string]bool{}
	var out []string
	for _, p := range strings.Split(string(res), "\x00") {
		if p != "" && !isState(p) && !interpreters(root, p, venv) {
			out = append(out, p)
		}
	}
	return out, nil
}

// interpreterDir says whether a directory of that name holds the
// interpreter's files, or what tools and runs write: copies of the code,
// builds.
func interpreterDir(name string) bool {
	switch name {
	case "site-packages", "dist-packages", "node_modules", "__pycache__", ".tox", ".nox", ".git",
		"wandb", "mlruns", "multirun", "lightning_logs", "build", "dist", ".eggs",
		".ipynb_checkpoints", ".mypy_cache", ".pytest_cache", ".ruff_cache":
		return true
	}
	return false
}

// interpreters says whether a root-relative path lies in a virtual
// environment (a directory holding pyvenv.cfg), an installed package tree
// or a cache. venv remembers the directories looked at.
func interpreters(root, p string, venv map[string]bool) bool {
	parts := strings.Split(p, "/")
	for i, seg := range parts[:len(parts)-1] {
		if interpreterDir(seg) {
			return true
		}
		d := strings.Join(parts[:i+1], "/")
		is, ok := venv[d]
		if !ok {
			_, err := os.Stat(filepath.Join(root, d, "pyvenv.cfg"))
			is = err == nil
			venv[d] = is
		}
		if is {
			return true
		}
	}
	return false
}
