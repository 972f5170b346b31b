package pin

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/digest"
)

// stampLimit bounds the files stamped across the Python environments and
// the directories they import from outside the repository: more is an
// error, not a cut, since a file left out could change unseen.
const stampLimit = 500_000

// pinInstalled pins what the run may import from outside the repository:
// the Python environments (a virtual environment at the root's top level
// and the one runtime.python lies in, a directory holding pyvenv.cfg or,
// for conda, conda-meta), the user site (unless the interpreter is a
// virtual environment that excludes it), and the directories that their
// .pth and .egg-link files and setuptools' editable finders add to the
// import path outside the repository.
//
// Installed holds, as pin format 3 did, each site-packages' installed
// distributions by name and version and, by content, its start-up files
// (*.pth, sitecustomize.py, usercustomize.py) and *.egg-link files.
// Stamps (format 4) holds for every top-level entry of each site-packages
// and user site, and for each such directory outside, a digest of the
// stat of every file under it: path, size, modification and change times
// and inode. Nothing is hashed: an edit that restores the modification
// time still moves the change time, which a user cannot set back. The
// byte code Python caches as it imports (__pycache__) is left out, or the
// first run would make every approval stale.
func (m *Material) pinInstalled(root, top string, ad *adapter.Adapter, lookup func(string) (string, bool)) error {
	m.Installed, m.Stamps = map[string]string{}, map[string]string{}
	envs, isolated := pythonEnvs(root, ad)
	var sites []string
	for _, env := range envs {
		s, _ := filepath.Glob(filepath.Join(env, "lib*", "python*", "site-packages"))
		sites = append(sites, s...)
	}
	var users []string
	if !isolated {
		users = userSites(lookup)
	}
	var jobs []stampJob
	outside := map[string]bool{}
	for i, sp := range append(append([]string(nil), sites...), users...) {
		entries, err := os.ReadDir(sp)
		if err != nil {
			continue
		}
		for _, e := range entries {
			n, p := e.Name(), filepath.Join(sp, e.Name())
			key := showPath(root, p)
			if n == "__pycache__" {
				continue
			}
			jobs = append(jobs, stampJob{key: key, path: p})
			if i >= len(sites) {
				continue // the user site: stamps alone
			}
			switch {
			case strings.HasSuffix(n, ".dist-info") || strings.HasSuffix(n, ".egg-info"):
				m.Installed[key] = "installed"
			case strings.HasSuffix(n, ".pth") || strings.HasSuffix(n, ".egg-link") || n == "sitecustomize.py" || n == "usercustomize.py":
				sum, err := fileSum(p)
				if err != nil {
					sum = "unreadable"
				}
				m.Installed[key] = sum
			}
		}
	}
	for _, sp := range append(append([]string(nil), sites...), users...) {
		for _, d := range importDirs(sp) {
			outside[d] = true
		}
	}
	var dirs []string
	for d := range outside {
		if !inDir(d, top) && !underAny(d, sites) && !underAny(d, users) {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		jobs = append(jobs, stampJob{key: showPath(root, d), path: d, skip: top})
	}
	stamps, err := stampAll(jobs)
	if err != nil {
		return err
	}
	for i, j := range jobs {
		m.Stamps[j.key] = stamps[i]
	}
	m.stampJobs = jobs
	return nil
}

// pinContents digests the content of the stamped entries want picks (nil:
// all) into Contents, in parallel: what an approval records beside the
// stamps (format 6), and what the gate reads again for an entry whose
// stamps moved, so that a change of change time or inode alone (uv
// re-linking its cache, touch, a restore from backup, a checkout of the
// same bytes) is not taken for an edit. It hashes every byte of the
// entries it reads.
func (m *Material) pinContents(want func(key string) bool) error {
	var jobs []stampJob
	for _, j := range m.stampJobs {
		if want == nil || want(j.key) {
			jobs = append(jobs, j)
		}
	}
	sums := make([]string, len(jobs))
	errs := make([]error, len(jobs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				sums[i], errs[i] = contentTree(jobs[i])
			}
		}()
	}
	wg.Wait()
	if m.Contents == nil {
		m.Contents = map[string]string{}
	}
	for i, j := range jobs {
		if errs[i] != nil {
			return errs[i]
		}
		m.Contents[j.key] = sums[i]
	}
	return nil
}

// reuseContents takes the content digest of each stamped entry whose
// stamps are the ones an earlier approval in book recorded with its
// content, and returns the entries left to read. Equal stamps are what
// the gate itself takes for no change, so the digest is as good as a new
// read, and approving the next experiment on an environment of several
// GB does not read it all again. A book that does not verify gives
// nothing.
func (m *Material) reuseContents(book approval.Book) func(key string) bool {
	type seen struct{ stamp, content string }
	known := map[string]seen{}
	if book.Problem == nil {
		for _, rec := range book.Records {
			if rec.Kind != approval.Experiment || len(rec.Plan) == 0 {
				continue
			}
			var p struct {
				Stamps   map[string]string `json:"stamps"`
				Contents map[string]string `json:"contents"`
			}
			if json.Unmarshal(rec.Plan, &p) != nil {
				continue
			}
			for k, c := range p.Contents {
				if st := p.Stamps[k]; c != "" && st != "" {
					known[k] = seen{st, c}
				}
			}
		}
	}
	if m.Contents == nil {
		m.Contents = map[string]string{}
	}
	return func(key string) bool {
		if s, ok := known[key]; ok && s.stamp == m.Stamps[key] {
			m.Contents[key] = s.content
			return false
		}
		return true
	}
}

// contentTree digests what Python can see of a job's path (followed when
// a link): each file's path relative to it, type and permissions, and the
// sha256 of its content or a link's target, leaving out what stampTree
// leaves out.
func contentTree(j stampJob) (string, error) {
	h := sha256.New()
	root := j.path
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		if err != nil {
			fmt.Fprintf(h, "%s\x00unreadable\n", rel)
			return nil
		}
		if e.IsDir() {
			if p != root && (e.Name() == "__pycache__" || e.Name() == ".git" || p == j.skip) {
				return filepath.SkipDir
			}
			return nil
		}
		sum := "unreadable"
		if e.Type()&fs.ModeSymlink != 0 {
			if to, err := os.Readlink(p); err == nil {
				sum = "-> " + to
			}
		} else if e.Type().IsRegular() {
			if s, err := fileSum(p); err == nil {
				sum = s
			}
		}
		mode := "?"
		if fi, err := e.Info(); err == nil {
			mode = fi.Mode().String()
		}
		fmt.Fprintf(h, "%s\x00%s %s\n", rel, mode, sum)
		return nil
	})
	if err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// pythonEnvs lists the Python environments the run may use, and says
// whether runtime.python is a virtual environment that leaves the user
// site out (include-system-site-packages = false, venv's default).
func pythonEnvs(root string, ad *adapter.Adapter) ([]string, bool) {
	var envs []string
	if entries, err := os.ReadDir(root); err == nil {
		for _, e := range entries {
			if d := filepath.Join(root, e.Name()); e.IsDir() && isVenv(d) {
				envs = append(envs, d)
			}
		}
	}
	isolated := false
	if py := ad.Runtime.Python; strings.Contains(py, "/") {
		if !filepath.IsAbs(py) {
			py = filepath.Join(root, py)
		}
		d := filepath.Dir(filepath.Dir(py))
		if isVenv(d) || isConda(d) {
			envs = append(envs, d)
		}
		isolated = isVenv(d) && !systemSite(d)
	}
	sort.Strings(envs)
	out := envs[:0]
	for i, e := range envs {
		if i == 0 || e != envs[i-1] {
			out = append(out, e)
		}
	}
	return out, isolated
}

func isVenv(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "pyvenv.cfg"))
	return err == nil
}

func isConda(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "conda-meta"))
	return err == nil && st.IsDir()
}

// systemSite says whether a virtual environment's pyvenv.cfg lets it see
// the system's site-packages and the user site.
func systemSite(env string) bool {
	data, err := os.ReadFile(filepath.Join(env, "pyvenv.cfg"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.TrimSpace(k) == "include-system-site-packages" {
			return strings.EqualFold(strings.TrimSpace(v), "true")
		}
	}
	return false
}

// userSites lists the user site directories Python adds to the import
// path: under $PYTHONUSERBASE, else ~/.local (and macOS's
// ~/Library/Python).
func userSites(lookup func(string) (string, bool)) []string {
	var pats []string
	if base, ok := lookup("PYTHONUSERBASE"); ok && base != "" {
		pats = append(pats, filepath.Join(base, "lib", "python*", "site-packages"), filepath.Join(base, "lib", "python", "site-packages"))
	} else if home, ok := lookup("HOME"); ok && home != "" {
		pats = append(pats, filepath.Join(home, ".local", "lib", "python*", "site-packages"),
			filepath.Join(home, "Library", "Python", "*", "lib", "python", "site-packages"))
	}
	var out []string
	for _, p := range pats {
		m, _ := filepath.Glob(p)
		out = append(out, m...)
	}
	return out
}

// importDirs lists the directories a site directory's files add to the
// import path: each path line of a .pth file (relative to the site
// directory), the directory an .egg-link names, and the absolute
// directories named by quoted literals in a .pth file's import lines and
// in setuptools' editable finders (__editable___*_finder.py, whose
// MAPPING names each package's source).
func importDirs(sp string) []string {
	entries, err := os.ReadDir(sp)
	if err != nil {
		return nil
	}
	var out []string
	add := func(p string) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(sp, p)
		}
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			out = append(out, filepath.Clean(p))
		}
	}
	literals := func(line []byte) {
		for _, m := range quoted().FindAllSubmatch(line, -1) {
			if lit := string(m[1]) + string(m[2]); filepath.IsAbs(lit) {
				add(lit)
			}
		}
	}
	for _, e := range entries {
		n := e.Name()
		pth, egg := strings.HasSuffix(n, ".pth"), strings.HasSuffix(n, ".egg-link")
		finder := strings.HasPrefix(n, "__editable__") && strings.HasSuffix(n, "_finder.py")
		if !pth && !egg && !finder {
			continue
		}
		data, ok := readText(filepath.Join(sp, n))
		if !ok {
			continue
		}
		if finder {
			literals(data)
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			switch {
			case len(line) == 0 || line[0] == '#':
			case bytes.HasPrefix(line, []byte("import ")) || bytes.HasPrefix(line, []byte("import\t")):
				literals(line)
			default:
				add(string(line))
			}
			if egg {
				break // the rest is the path back from the project
			}
		}
	}
	return out
}

// inDir says whether path p is dir or lies below it.
func inDir(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if inDir(p, d) {
			return true
		}
	}
	return false
}

// A stampJob is one entry to stamp: key names it in Stamps; skip is a
// directory below it left out (the repository, which the code covers).
type stampJob struct {
	key, path, skip string
}

// stampAll stamps the jobs in parallel, in their order.
func stampAll(jobs []stampJob) ([]string, error) {
	out := make([]string, len(jobs))
	errs := make([]error, len(jobs))
	var next, files atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := stampWalker{files: &files}
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) {
					return
				}
				out[i], errs[i] = stampTree(jobs[i], &w)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// stampTree digests the stat of every file under a job's path (a file, a
// directory, or a symbolic link to either, which is followed), leaving
// out __pycache__ and .git directories.
func stampTree(j stampJob, w *stampWalker) (string, error) {
	h := sha256.New()
	root := j.path
	if st, err := os.Lstat(root); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		fmt.Fprintf(h, "-> %s\n", stamp(st))
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
	}
	var err error
	if st, serr := os.Stat(root); serr == nil && st.IsDir() {
		err = w.dir(h, root, j.skip)
	} else {
		err = walkStamps(h, root, j.skip, w.files)
	}
	if errors.Is(err, errStampLimit) {
		return "", fmt.Errorf("the Python environments and the directories they import from hold more than %d files (%s); the gate cannot pin them", stampLimit, j.path)
	}
	if err != nil {
		return "", err
	}
	return "stat:" + hex.EncodeToString(h.Sum(nil)), nil
}

// errStampLimit is stampTree's cue to name the job over stampLimit.
var errStampLimit = errors.New("over the stamp limit")

// walkStamps writes to h, with filepath.WalkDir, a line per file below
// root (or root itself when a file): its path relative to root and its
// stamp, in lexical order. stampWalker.dir writes the same lines faster where
// the system allows.
func walkStamps(h hash.Hash, root, skip string, files *atomic.Int64) error {
	return filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(h, "%s\x00unreadable\n", strings.TrimPrefix(p, root))
			return nil
		}
		if e.IsDir() {
			if p != root && (e.Name() == "__pycache__" || e.Name() == ".git" || p == skip) {
				return filepath.SkipDir
			}
			return nil
		}
		if files.Add(1) > stampLimit {
			return errStampLimit
		}
		fi, err := e.Info()
		if err != nil {
			fmt.Fprintf(h, "%s\x00gone\n", strings.TrimPrefix(p, root))
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s\x00%s\n", rel, stamp(fi))
		return nil
	})
}

// stamp is a file's mode and its identity and change stamps (size,
// modification and change times, inode); where the system does not give
// them, size and modification time.
func stamp(fi fs.FileInfo) string {
	if s, ok := digest.Stamp(fi); ok {
		return fi.Mode().String() + " " + s
	}
	return fmt.Sprintf("%s size=%d mtime=%d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
}

// uncheckedPycs lists, relative to root, the byte code files beside the
// Python modules the run reads (root-relative reads) that Python runs
// without looking at their source: hash-based .pyc files that do not
// check it (flags 0b01 in the header's second word). Python never writes
// one on its own (py_compile and compileall do when asked), so pinning
// them by content costs no approval after a run, and one planted or
// edited after approval is named. A .pyc that checks its source's
// modification time and size or hash is Python's cache and is not pinned
// (docs/approvals.md says why that is out of reach).
func uncheckedPycs(root string, reads []string) []string {
	byDir := map[string][]string{}
	for _, r := range reads {
		if dir, name := path.Split(r); strings.HasSuffix(name, ".py") {
			byDir[dir] = append(byDir[dir], strings.TrimSuffix(name, ".py")+".")
		}
	}
	var out []string
	for dir, stems := range byDir {
		cache := path.Join(dir, "__pycache__")
		entries, err := os.ReadDir(filepath.Join(root, cache))
		if err != nil {
			continue
		}
		for _, e := range entries {
			n := e.Name()
			if !strings.HasSuffix(n, ".pyc") || !hasPrefixAny(n, stems) {
				continue
			}
			if unchecked(filepath.Join(root, cache, n)) {
				out = append(out, path.Join(cache, n))
			}
		}
	}
	sort.Strings(out)
	return out
}

// unchecked says whether a .pyc file is hash-based without checking its
// source.
func unchecked(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var h [8]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return false
	}
	return binary.LittleEndian.Uint32(h[4:])&3 == 1
}

func hasPrefixAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// showPath is p relative to root when inside it, else absolute.
func showPath(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}
