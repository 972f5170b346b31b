package guard

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Bounds on what pytest's own discovery makes the guard read for one
// decision: directories walked, and test files read (by count and in
// bytes). Beyond them the rest of the tests are not read.
const (
	maxPytestDirs  = 4096
	maxPytestFiles = 512
	maxPytestBytes = 32 << 20
)

// pytestArgs is the arguments of a pytest run (pytest ARGS, py.test ARGS,
// python -m pytest ARGS), and whether c is one.
func pytestArgs(name string, c call) ([]string, bool) {
	switch {
	case !c.exact[0]:
	case name == "pytest" || name == "py.test":
		return c.argv[1:], true
	case isPython(name):
		if py, _ := pythonProgram(name, c.argv, c.exact, c.stdin, c.open); py.module == "pytest" {
			return py.rest, true
		}
	}
	return nil, false
}

// A pytestRun is what a pytest command line asks for.
type pytestRun struct {
	targets []string // paths (or, with --pyargs, packages) named
	ignore  []string // --ignore paths and --ignore-glob patterns
	keyword string   // -k, when it is one plain word
	collect bool     // --collect-only: the tests do not run
	pyargs  bool
	rootdir string // --rootdir
	inifile string // -c
}

// parsePytest reads pytest's arguments.
func parsePytest(args []string) pytestRun {
	var r pytestRun
	for i := 0; i < len(args); i++ {
		arg := args[i]
		opt, val, hasVal := strings.Cut(arg, "=")
		if !strings.HasPrefix(arg, "--") {
			opt, hasVal = arg, false
		}
		next := func() string {
			if hasVal {
				return val
			}
			if len(opt) > 2 && !strings.HasPrefix(opt, "--") {
				return opt[2:] // -kword
			}
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		short := opt
		if len(opt) > 2 && !strings.HasPrefix(opt, "--") {
			short = opt[:2]
		}
		switch {
		case opt == "--collect-only" || opt == "--co":
			r.collect = true
		case opt == "--pyargs":
			r.pyargs = true
		case opt == "--ignore" || opt == "--ignore-glob" || opt == "--deselect":
			r.ignore = append(r.ignore, next())
		case opt == "--rootdir":
			r.rootdir = next()
		case short == "-c" || opt == "--config-file":
			r.inifile = next()
		case short == "-k":
			if k := next(); plainWord(k) {
				r.keyword = strings.ToLower(k)
			}
		case strings.HasPrefix(opt, "--") && !hasVal && pytestValued(opt), len(opt) == 2 && pytestValued(opt):
			i++
		case len(opt) > 2 && opt[0] == '-' && opt[1] != '-' && pytestValued(short):
			// -n4, -mslow: the value is attached
		case strings.HasPrefix(arg, "-"):
		default:
			r.targets = append(r.targets, arg)
		}
	}
	return r
}

func plainWord(s string) bool {
	return s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == ""
}

// pytestValued reports pytest's options that take the next word as their
// value.
func pytestValued(o string) bool {
	switch o {
	case "-k", "-m", "-p", "-c", "-o", "--rootdir", "--confcutdir", "--basetemp", "--junitxml", "--junit-xml", "--cov", "--cov-report", "--cov-config",
		"--maxfail", "--deselect", "--ignore", "--ignore-glob", "-n", "--numprocesses", "--dist", "--durations", "--tb", "-W", "--log-level",
		"--log-file", "--log-cli-level", "--timeout", "--config-file", "--import-mode", "--capture", "--override-ini", "--html", "--reruns", "--count",
		"--randomly-seed", "--benchmark-json", "--dist-load", "-r", "--color", "--durations-min", "--cache-show":
		return true
	}
	return false
}

// pytestIni is what the guard reads of pytest's configuration: where it
// lies (the rootdir) and the settings of discovery.
type pytestIni struct {
	rootdir   string
	testpaths []string
	files     []string // python_files
	norecurse []string // norecursedirs
}

// findPytestIni finds pytest's configuration as pytest does: from the
// common ancestor of the paths given (or the directory it runs in)
// upwards, the first pytest.ini, .pytest.ini, pyproject.toml with
// [tool.pytest.ini_options], tox.ini with [pytest] or setup.cfg with
// [tool:pytest].
func findPytestIni(start, inifile string) pytestIni {
	ini := pytestIni{files: []string{"test_*.py", "*_test.py"}, norecurse: []string{"*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}"}}
	read := func(path string) (string, bool) {
		fi, err := os.Stat(path)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxScript {
			return "", false
		}
		b, err := os.ReadFile(path)
		return string(b), err == nil
	}
	settings := func(path, data string) (map[string][]string, bool) {
		switch base := filepath.Base(path); {
		case base == "pyproject.toml":
			for _, t := range tomlTables(data) {
				if t.name == "tool.pytest.ini_options" || t.name == "tool.pytest" {
					vals := map[string][]string{}
					for k, v := range t.entries {
						for _, l := range literals(v, true) {
							vals[k] = append(vals[k], strings.Fields(l.text)...)
						}
					}
					return vals, true
				}
			}
			return nil, false
		case base == "tox.ini":
			return iniSection(data, "pytest")
		case base == "setup.cfg":
			return iniSection(data, "tool:pytest")
		default:
			vals, ok := iniSection(data, "pytest")
			return vals, ok || base != "setup.cfg" && base != "tox.ini"
		}
	}
	use := func(path, data string) bool {
		vals, ok := settings(path, data)
		if !ok {
			return false
		}
		ini.rootdir = filepath.Dir(path)
		ini.testpaths = vals["testpaths"]
		if v := vals["python_files"]; len(v) > 0 {
			ini.files = v
		}
		if v := vals["norecursedirs"]; len(v) > 0 {
			ini.norecurse = v
		}
		return true
	}
	if inifile != "" {
		p := resolve(inifile, start)
		if data, ok := read(p); ok {
			use(p, data)
		}
		return ini
	}
	for d := start; ; d = filepath.Dir(d) {
		for _, name := range []string{"pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"} {
			p := filepath.Join(d, name)
			if data, ok := read(p); ok && use(p, data) {
				return ini
			}
		}
		if filepath.Dir(d) == d {
			return ini
		}
	}
}

// iniSection reads the settings of one section of an INI file: a value
// goes on over its indented lines, each split into words; comments are
// left out.
func iniSection(data, section string) (map[string][]string, bool) {
	vals := map[string][]string{}
	in, found, key := false, false, ""
	for _, line := range strings.Split(data, "\n") {
		line = strings.TrimRight(line, "\r")
		t := strings.TrimSpace(line)
		switch {
		case t == "" || t[0] == '#' || t[0] == ';':
		case strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]"):
			in = strings.TrimSpace(t[1:len(t)-1]) == section
			found = found || in
			key = ""
		case !in:
		case line[0] == ' ' || line[0] == '\t':
			if key != "" {
				vals[key] = append(vals[key], strings.Fields(t)...)
			}
		default:
			k, v, ok := strings.Cut(t, "=")
			if !ok {
				k, v, ok = strings.Cut(t, ":")
			}
			if !ok {
				key = ""
				continue
			}
			key = strings.TrimSpace(k)
			vals[key] = strings.Fields(v)
		}
	}
	return vals, found
}

// pytest follows what a pytest run runs of the repository's code: the
// conftest.py files of the directories it collects (their code runs at
// collection, their fixtures with the tests), and the test files it
// collects, named or found as pytest finds them (testpaths, python_files
// and norecursedirs from its configuration), whose test functions, test
// classes and fixtures run. Like a script, each is read for the processes
// it starts, the Python it runs and the modules it imports: a test that
// calls the trainer's entry point (from train import main; main()) runs
// the trainer. --collect-only imports the files without running a test.
func (a *analyzer) pytest(c call, args []string, sc *scope, depth int) {
	if a.noDisk || a.settled != nil && a.settled(c) {
		return
	}
	run := parsePytest(args)
	var files []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	walked := 0
	for _, d := range c.dirs {
		if d == "" {
			continue
		}
		var targets []string
		for _, t := range run.targets {
			t = strings.SplitN(t, "::", 2)[0]
			if run.pyargs {
				if p := a.localModule(t, []string{d}); p != "" {
					if filepath.Base(p) == "__init__.py" {
						p = filepath.Dir(p)
					}
					targets = append(targets, p)
					continue
				}
			}
			targets = append(targets, resolve(t, d))
		}
		start := d
		if len(targets) > 0 {
			start = commonDir(targets)
		}
		ini := findPytestIni(start, run.inifile)
		if run.rootdir != "" {
			ini.rootdir = resolve(run.rootdir, d)
		}
		top := d
		if ini.rootdir != "" && strings.HasPrefix(d, ini.rootdir) {
			top = ini.rootdir
		}
		if len(targets) == 0 {
			// With no paths given, pytest collects testpaths when it runs
			// in the rootdir, else where it runs.
			if ini.rootdir == d && len(ini.testpaths) > 0 {
				for _, tp := range ini.testpaths {
					m, _ := filepath.Glob(resolve(tp, d))
					targets = append(targets, m...)
				}
			}
			if len(targets) == 0 {
				targets = []string{d}
			}
		}
		ignored := func(p string) bool {
			for _, ig := range run.ignore {
				ig = strings.SplitN(ig, "::", 2)[0]
				if m, _ := filepath.Match(resolve(ig, d), p); m || resolve(ig, d) == p {
					return true
				}
			}
			return false
		}
		for _, t := range targets {
			fi, err := os.Stat(t)
			if err != nil {
				continue
			}
			dir := t
			if !fi.IsDir() {
				dir = filepath.Dir(t)
			}
			// conftest.py of the target's directory and those above it, up
			// to the rootdir or where the command runs
			var above []string
			for x := filepath.Dir(dir); strings.HasPrefix(x, top) && x != dir; x = filepath.Dir(x) {
				above = append(above, filepath.Join(x, "conftest.py"))
				if x == top || filepath.Dir(x) == x {
					break
				}
			}
			slices.Reverse(above)
			for _, p := range above {
				add(p)
			}
			if !fi.IsDir() {
				add(filepath.Join(dir, "conftest.py"))
				add(t)
				continue
			}
			_ = filepath.WalkDir(t, func(p string, e fs.DirEntry, err error) error {
				if err != nil {
					return nil
				}
				if e.IsDir() {
					walked++
					if walked > maxPytestDirs || p != t && (ignored(p) || norecurse(e.Name(), ini.norecurse) || isVenv(p)) {
						return filepath.SkipDir
					}
					add(filepath.Join(p, "conftest.py"))
					return nil
				}
				if e.Type().IsRegular() && !ignored(p) && testFile(e.Name(), ini.files) {
					add(p)
				}
				return nil
			})
		}
	}
	read, bytes := 0, 0
	for _, p := range files {
		if a.read[p] || read >= maxPytestFiles || bytes >= maxPytestBytes {
			continue
		}
		text, ok := a.readTest(p)
		if !ok {
			continue
		}
		read++
		bytes += len(text)
		var roots []string
		conftest := filepath.Base(p) == "conftest.py"
		if !run.collect {
			keep := conftest || run.keyword == "" || strings.Contains(strings.ToLower(shownPath(p, c.dirs)), run.keyword)
			for _, bl := range pyBlocks(text) {
				test := strings.HasPrefix(bl.name, "test") || strings.HasPrefix(bl.name, "Test")
				switch {
				case test && (keep || strings.Contains(strings.ToLower(bl.name), run.keyword)):
					roots = append(roots, bl.name)
				case !test && bl.name != "" && strings.Contains(bl.text, "fixture"):
					roots = append(roots, bl.name)
				}
			}
		}
		inner := sc.with(c.dirs)
		inner.stdin = input{}
		inner.fromDisk = true
		inner.via = chain(sc.via, quote(c.text)+" runs "+shownPath(p, c.dirs)+", which runs")
		a.python(text, p, roots, false, inner, depth+1)
	}
}

// readTest reads a test file or conftest.py pytest collects. These are
// bounded on their own (maxPytestFiles), not by the scripts a command
// runs: a repository's test suite is larger than the scripts one command
// starts.
func (a *analyzer) readTest(p string) (string, bool) {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxScript {
		return "", false
	}
	b, err := os.ReadFile(p)
	return string(b), err == nil
}

// testFile reports a file pytest collects by its name (python_files).
func testFile(name string, patterns []string) bool {
	for _, pat := range patterns {
		if m, _ := filepath.Match(filepath.Base(pat), name); m {
			return true
		}
	}
	return false
}

// norecurse reports a directory pytest does not enter (norecursedirs).
func norecurse(name string, patterns []string) bool {
	if name == "__pycache__" || name == ".git" {
		return true
	}
	for _, pat := range patterns {
		if m, _ := filepath.Match(pat, name); m {
			return true
		}
	}
	return false
}

// isVenv reports a virtual environment, which pytest does not enter.
func isVenv(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "pyvenv.cfg"))
	return err == nil
}

// commonDir is the deepest directory holding every path of ps.
func commonDir(ps []string) string {
	dir := func(p string) string {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
		return filepath.Dir(p)
	}
	c := dir(ps[0])
	for _, p := range ps[1:] {
		for d := dir(p); !strings.HasPrefix(d+string(filepath.Separator), c+string(filepath.Separator)) && c != filepath.Dir(c); {
			c = filepath.Dir(c)
		}
	}
	return c
}
