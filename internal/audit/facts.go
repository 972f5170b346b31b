package audit

import (
	"strconv"
	"strings"
)

// Categories of the simple facts a scanner records.
const (
	catImport      = "import"
	catMain        = "main"
	catParser      = "parser"
	catConfigLoad  = "config"
	catEnvID       = "env_id"
	catHardware    = "hardware"
	catLauncher    = "launcher"
	catBackend     = "backend"
	catDep         = "dependency"
	catEnvTemplate = "env_template"
	catCustomEnv   = "custom_env"
	catHydra       = "hydra_override"
	catSignal      = "signal"
	catTrains      = "trains"
	catMention     = "mention" // a script a document names (train_mpe.sh), by its stem
	catLink        = "link"    // a repository path a document links to (sota/ppo/)
)

// A hit is one simple fact found on one line of one file.
type hit struct {
	cat    string
	name   string
	detail string
	line   int
	text   string
	conf   Confidence
}

// A flagDef is a command-line option a script defines.
type flagDef struct {
	name    string // as typed: --seed
	fn      string // the function defining it (argparse builders), "" at top level
	dflt    string
	action  string
	metavar string
	nargs   string
	help    string
	line    int
}

// A tagHit is a metric tag the code logs or writes.
type tagHit struct {
	tag     string
	backend string
	line    int
	text    string
	conf    Confidence
	eval    bool // logged in an evaluation path (def evaluate(): ...)
	train   bool // logged in a training step (def train_step(): ...)
}

// An outHit is a file or directory the code writes.
type outHit struct {
	name   string // file name or directory pattern
	dirVar string // the variable it is joined to, when one is
	format string
	kind   string // metrics | checkpoint | logdir | config | log
	line   int
	text   string
	conf   Confidence
}

// A cmdHit is a command line found in a runner, Makefile, README or
// docstring.
type cmdHit struct {
	argv   []string
	text   string
	line   int
	origin string // shell | make | readme | docstring | usage
	label  string // the runner's subcommand or Make target it belongs to
	// byName: a README runs a program by its name alone (a console
	// script, once the packaging says so); trainCtx: the prose before
	// it says it trains.
	byName, trainCtx bool
}

// A subcmd is a branch of a runner's "case $1 in" dispatch.
type subcmd struct {
	label string
	line  int
	text  string
}

// facts are what one file tells.
type facts struct {
	path     string
	kind     fileKind
	hits     []hit
	flags    []flagDef
	tags     []tagHit
	outputs  []outHit
	commands []cmdHit
	subcmds  []subcmd
	consts   map[string][]string // module-level collections of strings
	scripts  []hit               // console scripts: name, detail = module:function
	src      string              // a Python file's source, for following calls across files
}

func (f *facts) add(cat, name, detail string, line int, text string, conf Confidence) {
	f.hits = append(f.hits, hit{cat: cat, name: name, detail: detail, line: line, text: snippet(text), conf: conf})
}

// has reports a hit of the category and name.
func (f *facts) has(cat, name string) bool {
	for _, h := range f.hits {
		if h.cat == cat && (name == "" || h.name == name) {
			return true
		}
	}
	return false
}

// first returns the first hit of the category and name.
func (f *facts) first(cat, name string) (hit, bool) {
	for _, h := range f.hits {
		if h.cat == cat && (name == "" || h.name == name) {
			return h, true
		}
	}
	return hit{}, false
}

// signals finds the profiles' literal code signals in a file.
type signals struct {
	lits    []string
	profile []int
	conf    []Confidence
}

func newSignals(profiles []Profile) *signals {
	s := &signals{}
	for i, p := range profiles {
		for _, c := range p.Detect.Code {
			s.lits = append(s.lits, c.Literal)
			s.profile = append(s.profile, i)
			s.conf = append(s.conf, c.Confidence)
		}
	}
	return s
}

// scan records the first line of each signal present; name is the
// profile's index, detail the literal.
func (s *signals) scan(f *facts, t *text) {
	for i, lit := range s.lits {
		t.eachWord(lit, func(j int) bool {
			line := t.line(j)
			if isCommentLine(line, f.kind) {
				return true
			}
			f.add(catSignal, strconv.Itoa(s.profile[i]), lit, t.lineOf(j), line, s.conf[i])
			return false
		})
	}
}

// isCommentLine reports a line that is only a comment.
func isCommentLine(line string, k fileKind) bool {
	l := strings.TrimSpace(line)
	return len(l) > 0 && l[0] == '#' && !(k == kindShell && strings.HasPrefix(l, "#SBATCH"))
}

// lowerHas reports whether s contains any of the words, ignoring case.
func lowerHas(s string, words ...string) bool {
	s = strings.ToLower(s)
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
