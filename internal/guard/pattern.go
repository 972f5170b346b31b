package guard

import (
	"path/filepath"
	"strings"
)

// A pattern is a command template from adapter.yaml. A word that is
// exactly a placeholder ({config}, {params}, ...) stands for any number of
// words, since a value may be empty ({params}) or expand to several; a word
// with a placeholder inside ({run_dir}/policy.json) stands for one word.
type pattern struct {
	name  string           // the command's name in adapter.yaml
	env   map[string]token // NAME=VALUE assignments the template sets
	words []token
	// prefix is how many leading literal words identify a launch: the
	// program and its subcommand (scripts/run.sh train), however the
	// options after them are arranged. Zero means the whole template
	// must match, as for the preflight.
	prefix int
}

// A token is one word of a pattern.
type token struct {
	lit   string   // a literal word
	glob  []string // a word with placeholders: the literal pieces around them
	slurp bool     // a whole-word placeholder: any number of words
}

// compile turns a template into a pattern: its launching command (see
// launching), normalized with paths resolved against the repository root.
func compile(name, tmpl, root string) (pattern, bool) {
	a := analyzer{noDisk: true}
	a.source(tmpl, 0, &scope{vars: map[string]string{}, dirs: []string{root}})
	c, ok := launching(a.cmds)
	if !ok {
		return pattern{}, false
	}
	pat := pattern{name: name, env: map[string]token{}}
	for k, v := range c.env {
		pat.env[k] = tokenOf(v)
	}
	argv, unknown := normalize(c, root)
	if unknown != "" {
		argv = c.argv
	}
	for _, w := range argv {
		pat.words = append(pat.words, tokenOf(w))
	}
	if name == "preflight" {
		return pat, true
	}
	// The prefix is the program (for Python, the script or the module, not
	// the interpreter alone) and the literal words before the first option:
	// its subcommand. When the program is not literal, the whole template
	// must match.
	need := 1
	if argv[0] == "python" {
		need = 2
		if len(argv) > 1 && argv[1] == "-m" {
			need = 3
		}
	}
	n := 0
	for n < len(pat.words) && pat.words[n].literal() && (n < need || !strings.HasPrefix(pat.words[n].lit, "-")) {
		n++
	}
	if n >= need {
		pat.prefix = n
	}
	return pat, true
}

// launching picks the command of a template that launches: the first that
// mentions a placeholder and is not a shell utility (mkdir -p {run_dir} &&
// python train.py ... picks python), else the first that is not one.
func launching(cmds []call) (call, bool) {
	var first *call
	for i, c := range cmds {
		if utility(filepath.Base(c.argv[0])) {
			continue
		}
		for _, w := range c.argv {
			if !tokenOf(w).literal() {
				return c, true
			}
		}
		if first == nil {
			first = &cmds[i]
		}
	}
	if first == nil {
		return call{}, false
	}
	return *first, true
}

// utility reports commands that prepare a launch but never are one.
func utility(name string) bool {
	switch name {
	case "cd", "pushd", "popd", "export", "set", "unset", "mkdir", "echo", "printf", "true", ":", "cp", "mv", "ln",
		"touch", "cat", "tee", "date", "sleep", "test", "[", "rm", "conda", "module", "ulimit", "umask", "trap", "wait":
		return true
	}
	return false
}

func (t token) literal() bool { return t.glob == nil && !t.slurp }

// tokenOf classifies one template word.
func tokenOf(w string) token {
	var pieces []string
	rest := w
	for {
		i := strings.IndexByte(rest, '{')
		j := -1
		if i >= 0 {
			j = strings.IndexByte(rest[i:], '}')
		}
		if i < 0 || j < 0 || !placeholderName(rest[i+1:i+j]) {
			if pieces == nil {
				return token{lit: w}
			}
			pieces = append(pieces, rest)
			break
		}
		pieces = append(pieces, rest[:i])
		rest = rest[i+j+1:]
	}
	if len(pieces) == 2 && pieces[0] == "" && pieces[1] == "" {
		return token{slurp: true}
	}
	return token{glob: pieces}
}

func placeholderName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r == '_' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// matches reports whether a command (its assignments and normalized
// words) is an instance of the pattern.
func (p pattern) matches(env map[string]string, argv []string) bool {
	if p.prefix > 0 {
		if len(argv) < p.prefix {
			return false
		}
		for i := 0; i < p.prefix; i++ {
			if argv[i] != p.words[i].lit {
				return false
			}
		}
		return true
	}
	for k, t := range p.env {
		v, ok := env[k]
		if !ok || !t.slurp && !t.matchWord(v) {
			return false
		}
	}
	return matchWords(p.words, argv)
}

// matchWords matches a whole command against a pattern. ok[j] says whether
// the pattern from the current token on matches words[j:]; it is filled
// from the last token backwards, so the cost is tokens × words.
func matchWords(pat []token, words []string) bool {
	n := len(words)
	next := make([]bool, n+1)
	next[n] = true
	for i := len(pat) - 1; i >= 0; i-- {
		cur := make([]bool, n+1)
		for j := n; j >= 0; j-- {
			if pat[i].slurp {
				cur[j] = next[j] || j < n && cur[j+1]
			} else {
				cur[j] = j < n && pat[i].matchWord(words[j]) && next[j+1]
			}
		}
		next = cur
	}
	return next[0]
}

// matchWord matches one word against a literal or a glob token.
func (t token) matchWord(w string) bool {
	if t.glob == nil {
		return w == t.lit
	}
	first, last := t.glob[0], t.glob[len(t.glob)-1]
	if !strings.HasPrefix(w, first) {
		return false
	}
	w = w[len(first):]
	for _, mid := range t.glob[1 : len(t.glob)-1] {
		k := strings.Index(w, mid)
		if k < 0 {
			return false
		}
		w = w[k+len(mid):]
	}
	return strings.HasSuffix(w, last)
}
