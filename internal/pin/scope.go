package pin

import (
	"path"
	"strings"

	"github.com/rlxp/rlxp/internal/adapter"
)

// codeScope is where the code lies, relative to the rlxp root: the root
// itself and, when the root lies below the git top-level (a monorepo,
// code importing ../lib), the whole work tree unless adapter.yaml's code
// list names the directories outside the root that are code.
type codeScope struct {
	prefix string   // the root's path below the top-level ("rl/"), "" at the top
	specs  []string // git pathspecs relative to the root
}

func scopeOf(ad *adapter.Adapter, prefix string) codeScope {
	s := codeScope{prefix: prefix, specs: []string{"."}}
	switch {
	case len(ad.Code) > 0:
		for _, d := range ad.Code {
			if d = path.Clean(d); d != "." {
				s.specs = append(s.specs, d)
			}
		}
	case prefix != "":
		s.specs = []string{":/"}
	}
	return s
}

// fromTop turns a path relative to the git top-level into one relative
// to the root ("lib/util.py" from "rl/": "../lib/util.py").
func (s codeScope) fromTop(p string) string {
	if strings.HasPrefix(p, s.prefix) {
		return p[len(s.prefix):]
	}
	return strings.Repeat("../", strings.Count(s.prefix, "/")) + p
}

// covers says whether a root-relative path lies in the scope.
func (s codeScope) covers(p string) bool {
	for _, d := range s.specs {
		switch {
		case d == ":/":
			return true
		case d == ".":
			if !strings.HasPrefix(p, "../") {
				return true
			}
		case p == d || strings.HasPrefix(p, d+"/"):
			return true
		}
	}
	return false
}

// isState says whether a root-relative path is rlxp's state: this
// root's .rlxp/ or, in a monorepo, another project's.
func isState(p string) bool {
	return strings.HasPrefix(p, ".rlxp/") || strings.Contains(p, "/.rlxp/")
}
