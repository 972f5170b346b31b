package guard

import (
	"path/filepath"
	"strings"
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

// pytest follows what a pytest run runs of the repository's code: the
// conftest.py files of the directories it collects (their code runs at
// collection, their fixtures with the tests), and the test files it is
// given, whose test functions, test classes and fixtures run. Like a
// script, each is read for the processes it starts, the Python it runs
// and the modules it imports: a test that calls the trainer's entry point
// (from train import main; main()) runs the trainer. Test files found by
// collection alone are not read: only those the command names.
func (a *analyzer) pytest(c call, args []string, sc *scope, depth int) {
	if a.settled != nil && a.settled(c) {
		return
	}
	var files []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	for _, d := range c.dirs {
		if d == "" {
			continue
		}
		targets := 0
		for i, arg := range args {
			if strings.HasPrefix(arg, "-") || i > 0 && pytestValued(args[i-1]) {
				continue
			}
			targets++
			p := resolve(strings.SplitN(arg, "::", 2)[0], d)
			dir := p
			if strings.HasSuffix(p, ".py") {
				add(p)
				dir = filepath.Dir(p)
			}
			// conftest.py of the target's directory and those above it, up
			// to where the command runs
			for x := dir; strings.HasPrefix(x, d); x = filepath.Dir(x) {
				add(filepath.Join(x, "conftest.py"))
				if x == d || filepath.Dir(x) == x {
					break
				}
			}
		}
		if targets == 0 {
			add(filepath.Join(d, "conftest.py"))
			add(filepath.Join(d, "tests", "conftest.py"))
		}
	}
	for _, p := range files {
		text, state := a.readScript(p)
		if state != fileText {
			continue
		}
		var roots []string
		for _, bl := range pyBlocks(text) {
			if strings.HasPrefix(bl.name, "test") || strings.HasPrefix(bl.name, "Test") || strings.Contains(bl.text, "fixture") {
				roots = append(roots, bl.name)
			}
		}
		inner := sc.with(c.dirs)
		inner.stdin = input{}
		inner.fromDisk = true
		inner.via = chain(sc.via, quote(c.text)+" runs "+shownPath(p, c.dirs)+", which runs")
		a.python(text, p, roots, false, inner, depth+1)
	}
}

// pytestValued reports pytest's options that take the next word as their
// value.
func pytestValued(o string) bool {
	switch o {
	case "-k", "-m", "-p", "-c", "-o", "--rootdir", "--confcutdir", "--basetemp", "--junitxml", "--cov", "--cov-report", "--maxfail", "--deselect", "--ignore", "--ignore-glob", "-n", "--durations", "--tb", "-W", "--log-level", "--timeout":
		return true
	}
	return false
}
