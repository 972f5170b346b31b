package probe

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// An ImportStatus says whether a module can be imported.
type ImportStatus string

// The import statuses.
const (
	ImportFound   ImportStatus = "found"
	ImportMissing ImportStatus = "missing"
	ImportError   ImportStatus = "error" // could not tell: bad name, broken parent package, no interpreter
)

// An ImportState is what Imports found about one module.
type ImportState struct {
	Module string
	Status ImportStatus
	Detail string // where it was found, or why not
}

func (s ImportState) String() string {
	if s.Detail == "" {
		return fmt.Sprintf("import %s: %s", s.Module, s.Status)
	}
	return fmt.Sprintf("import %s: %s (%s)", s.Module, s.Status, s.Detail)
}

// importScript locates each module named in argv without importing it:
// find_spec on a top-level name only searches. A dotted name is searched in
// its parent's __path__ first; only a submodule that a package sets up
// itself (os.path) needs the parent imported. One line per module:
// "rlxp-import <index> <status> <detail>", tab-separated.
const importScript = `import importlib.machinery, importlib.util, sys

def spec_of(name, parent):
    if parent is not None and parent.submodule_search_locations is not None:
        spec = importlib.machinery.PathFinder.find_spec(name, list(parent.submodule_search_locations))
        if spec is not None:
            return spec
    return importlib.util.find_spec(name)

def probe(module):
    parts = module.split(".")
    spec = None
    for i in range(len(parts)):
        name = ".".join(parts[:i + 1])
        try:
            spec = spec_of(name, spec)
        except ModuleNotFoundError:
            spec = None
        if spec is None:
            return "missing", "no module named %r" % name
    return "found", spec.origin or "namespace package"

for i, module in enumerate(sys.argv[1:]):
    try:
        status, detail = probe(module)
    except Exception as e:
        status, detail = "error", "%s: %s" % (type(e).__name__, e)
    print("rlxp-import\t%d\t%s\t%s" % (i, status, " ".join(str(detail).split())))
    sys.stdout.flush()
`

// Imports checks, in one run of the interpreter python ("python3" when
// empty), whether each module can be found. Modules are located, not
// imported, so heavy packages' import-time side effects do not run. The
// context bounds the run; a missing interpreter, or one that fails, is
// reported against every module it did not answer for.
func Imports(ctx context.Context, h Host, python string, modules []string) []ImportState {
	if python == "" {
		python = "python3"
	}
	states := make([]ImportState, len(modules))
	var pending []int // the states index of each module passed
	names := []string{"-c", importScript}
	for i, m := range modules {
		states[i] = ImportState{Module: m}
		if !moduleName(m) {
			states[i].Status, states[i].Detail = ImportError, "not a module name"
			continue
		}
		names = append(names, m)
		pending = append(pending, i)
	}
	if len(pending) == 0 {
		return states
	}
	stdout, stderr, err := h.Run(ctx, python, names...)
	answered := make([]bool, len(pending))
	for _, line := range strings.Split(string(stdout), "\n") {
		f := strings.SplitN(strings.TrimRight(line, "\r"), "\t", 4)
		if len(f) != 4 || f[0] != "rlxp-import" {
			continue
		}
		n, convErr := strconv.Atoi(f[1])
		if convErr != nil || n < 0 || n >= len(pending) || answered[n] {
			continue
		}
		st := ImportStatus(f[2])
		if st != ImportFound && st != ImportMissing && st != ImportError {
			continue
		}
		answered[n] = true
		states[pending[n]].Status, states[pending[n]].Detail = st, clip(f[3])
	}
	var reason string
	switch {
	case err != nil && notFound(err):
		reason = fmt.Sprintf("interpreter %s not found", python)
	case err != nil:
		if msg := lastLine(stderr); msg != "" {
			reason = fmt.Sprintf("%s failed: %s (%v)", python, msg, err)
		} else {
			reason = fmt.Sprintf("%s failed: %v", python, err)
		}
	default:
		reason = fmt.Sprintf("%s gave no answer", python)
	}
	for n, ok := range answered {
		if !ok {
			states[pending[n]].Status, states[pending[n]].Detail = ImportError, reason
		}
	}
	return states
}

// moduleName accepts dotted Python identifiers, which also keeps anything
// that could read as an interpreter option off the command line.
func moduleName(s string) bool {
	if s == "" {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if part == "" {
			return false
		}
		for i, r := range part {
			if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
				return false
			}
		}
	}
	return true
}
