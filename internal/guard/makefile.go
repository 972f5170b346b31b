package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// make follows make: the recipes it runs for the goals given (the default
// goal when none), read from the makefile in the directory it runs in, are
// command lines the command runs. A goal the guard cannot resolve may be
// any target.
func (a *analyzer) make(args []string, exact []bool, text string, sc *scope, depth int) {
	inv, ok := makeArgs(args, exact)
	if !ok {
		return
	}
	for _, d := range sc.dirs {
		dir := d
		for _, c := range inv.chdirs {
			dir = resolve(c, dir)
		}
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		files := inv.files
		if len(files) == 0 {
			files = []string{"GNUmakefile", "makefile", "Makefile"}
		}
		for _, f := range files {
			path := resolve(f, dir)
			data, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			// A recipe that runs the same make again (cd docs && make
			// spelling, where the cd may fail) runs nothing new.
			key := inv.key(path)
			if a.making[key] {
				break
			}
			if a.making == nil {
				a.making = map[string]bool{}
			}
			a.making[key] = true
			defer delete(a.making, key)
			mf := parseMakefile(path, string(data), 0)
			inner := sc.with([]string{dir})
			inner.stdin = input{}
			for _, r := range mf.recipes(inv.goals, inv.all, inv.vars, dir) {
				rel, err := filepath.Rel(dir, r.file)
				if err != nil {
					rel = r.file
				}
				inner.via = chain(sc.via, fmt.Sprintf("%s runs the recipe of %s (%s:%d)", quote(text), r.target, rel, r.line))
				a.source(r.text, depth+1, inner)
			}
			if len(inv.files) == 0 {
				break // make reads the first of its default names that exists
			}
		}
	}
}

// A makeInvocation is what a make command line asks for.
type makeInvocation struct {
	chdirs []string          // -C DIR, in order
	files  []string          // -f FILE
	goals  []string          // the targets named
	all    bool              // a goal the guard cannot resolve: any target
	vars   map[string]string // VAR=VALUE on the command line
}

// key names the run of a makefile with these goals and variables.
func (inv makeInvocation) key(path string) string {
	vars := make([]string, 0, len(inv.vars))
	for k, v := range inv.vars {
		vars = append(vars, k+"="+v)
	}
	slices.Sort(vars)
	return fmt.Sprintf("%s\x00%q\x00%v\x00%q", path, inv.goals, inv.all, vars)
}

// makeArgs reads make's command line; ok is false when make runs no
// recipe (-n, -q, -p, --help, --version).
func makeArgs(args []string, exact []bool) (makeInvocation, bool) {
	inv := makeInvocation{vars: map[string]string{}}
	for i := 1; i < len(args); i++ {
		a := args[i]
		value := func() string {
			if i+1 < len(args) {
				i++
				if !exact[i] {
					inv.all = true
				}
				return args[i]
			}
			return ""
		}
		switch {
		case !exact[i]:
			inv.all = true
		case a == "--":
		case a == "-n" || a == "--dry-run" || a == "--just-print" || a == "--recon" || a == "-q" || a == "--question" ||
			a == "-p" || a == "--print-data-base" || a == "--help" || a == "-h" || a == "-v" || a == "--version" || a == "-t" || a == "--touch":
			return inv, false
		case a == "-C" || a == "--directory":
			inv.chdirs = append(inv.chdirs, value())
		case strings.HasPrefix(a, "--directory="):
			inv.chdirs = append(inv.chdirs, strings.TrimPrefix(a, "--directory="))
		case a == "-f" || a == "--file" || a == "--makefile":
			inv.files = append(inv.files, value())
		case strings.HasPrefix(a, "--file=") || strings.HasPrefix(a, "--makefile="):
			_, v, _ := strings.Cut(a, "=")
			inv.files = append(inv.files, v)
		case a == "-I" || a == "-o" || a == "-W" || a == "--include-dir" || a == "--old-file" || a == "--what-if" || a == "--assume-old" || a == "--assume-new":
			value()
		case a == "-j" || a == "-l" || a == "--jobs" || a == "--load-average":
			if i+1 < len(args) && strings.Trim(args[i+1], "0123456789.") == "" {
				i++
			}
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-"):
			// A cluster of short flags; C and f take the rest as their value.
			for k := 1; k < len(a); k++ {
				switch a[k] {
				case 'n', 'q', 'p', 't', 'h', 'v':
					return inv, false
				case 'C', 'f', 'I', 'o', 'W':
					v := a[k+1:]
					if v == "" {
						v = value()
					}
					if a[k] == 'C' {
						inv.chdirs = append(inv.chdirs, v)
					} else if a[k] == 'f' {
						inv.files = append(inv.files, v)
					}
					k = len(a)
				case 'j', 'l':
					if k == len(a)-1 && i+1 < len(args) && strings.Trim(args[i+1], "0123456789.") == "" {
						i++
					}
					k = len(a)
				}
			}
		default:
			if k, v, ok := assignment(a); ok {
				inv.vars[k] = v
				continue
			}
			inv.goals = append(inv.goals, a)
		}
	}
	return inv, true
}

// A makefile is the rules and variables of a makefile, as far as they
// decide what a recipe runs.
type makefile struct {
	vars  map[string]string
	rules map[string]*makeRule
	goal  string // the default goal: the first target
	order []string
	// expansions counts variable expansions, bounded by maxExpansions:
	// variables that refer to each other many times over would otherwise
	// take exponential time.
	expansions int
}

// maxExpansions bounds the variable expansions of one makefile.
const maxExpansions = 1 << 16

type makeRule struct {
	prereqs []string
	recipe  []recipeLine
}

type recipeLine struct {
	text, file string
	line       int
}

// A recipe is one line make runs for a target.
type recipe struct {
	text, target, file string
	line               int
}

// maxIncludes bounds how deep makefiles include others.
const maxIncludes = 4

// parseMakefile reads a makefile's variables, rules and recipes.
// Conditionals are read through (both branches count), define blocks
// are skipped, and include reads the named files when the guard can.
func parseMakefile(path, data string, level int) *makefile {
	mf := &makefile{vars: map[string]string{}, rules: map[string]*makeRule{}}
	mf.parse(path, data, level)
	return mf
}

func (mf *makefile) parse(path, data string, level int) {
	var cur []*makeRule
	lines := strings.Split(data, "\n")
	inDefine := false
	for n := 0; n < len(lines); n++ {
		start := n + 1
		line := strings.TrimRight(lines[n], "\r")
		for strings.HasSuffix(line, "\\") && n+1 < len(lines) {
			n++
			line = strings.TrimSuffix(line, "\\") + " " + strings.TrimSpace(strings.TrimRight(lines[n], "\r"))
		}
		t := strings.TrimSpace(line)
		if i := strings.IndexByte(t, '#'); i >= 0 && !strings.HasPrefix(line, "\t") {
			t = strings.TrimSpace(t[:i])
		}
		if inDefine {
			inDefine = t != "endef"
			continue
		}
		if strings.HasPrefix(line, "\t") {
			for _, r := range cur {
				r.recipe = append(r.recipe, recipeLine{text: line[1:], file: path, line: start})
			}
			continue
		}
		if t == "" || t[0] == '#' {
			continue
		}
		word, rest, _ := strings.Cut(t, " ")
		switch word {
		case "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif":
			continue
		case "define":
			inDefine = true
			cur = nil
			continue
		case "include", "-include", "sinclude":
			if level < maxIncludes {
				for _, f := range strings.Fields(mf.expand(rest, nil, 0)) {
					inc := resolve(f, filepath.Dir(path))
					if b, err := os.ReadFile(inc); err == nil {
						mf.parse(inc, string(b), level+1)
					}
				}
			}
			cur = nil
			continue
		case "export", "override", "unexport", "private":
			t = strings.TrimSpace(rest)
		}
		eq, colon := strings.IndexByte(t, '='), strings.IndexByte(t, ':')
		if eq >= 0 && (colon < 0 || colon > eq || colon >= eq-3 && strings.Trim(t[colon:eq], ":") == "") {
			name, op := t[:eq], "="
			if colon >= 0 && colon < eq {
				name, op = t[:colon], ":="
			} else if strings.HasSuffix(name, "?") || strings.HasSuffix(name, "+") || strings.HasSuffix(name, "!") {
				op, name = name[len(name)-1:]+"=", name[:len(name)-1]
			}
			name, value := strings.TrimSpace(name), strings.TrimSpace(t[eq+1:])
			switch op {
			case "?=":
				if _, set := mf.vars[name]; set {
					continue
				}
			case "+=":
				value = strings.TrimSpace(mf.vars[name] + " " + value)
			case "!=":
				value = "$(shell " + value + ")"
			case ":=":
				value = mf.expand(value, nil, 0)
			}
			mf.vars[name] = value
			cur = nil
			continue
		}
		if colon < 0 {
			cur = nil
			continue
		}
		targets := strings.Fields(mf.expand(t[:colon], nil, 0))
		after := strings.TrimPrefix(t[colon+1:], ":")
		prereqs, inline, hasInline := strings.Cut(after, ";")
		cur = nil
		if strings.Contains(prereqs, "=") {
			continue // a target-specific variable
		}
		for _, tg := range targets {
			r := mf.rules[tg]
			if r == nil {
				r = &makeRule{}
				mf.rules[tg] = r
				mf.order = append(mf.order, tg)
				if mf.goal == "" && !strings.HasPrefix(tg, ".") && !strings.Contains(tg, "%") {
					mf.goal = tg
				}
			}
			r.prereqs = append(r.prereqs, strings.Fields(strings.ReplaceAll(prereqs, "|", " "))...)
			if hasInline {
				r.recipe = append(r.recipe, recipeLine{text: inline, file: path, line: start})
			}
			cur = append(cur, r)
		}
	}
}

// maxRecipes bounds the recipe lines the guard reads for one make.
const maxRecipes = 4096

// recipes lists the lines make runs for goals and their prerequisites
// (every target's when all), expanded.
func (mf *makefile) recipes(goals []string, all bool, vars map[string]string, dir string) []recipe {
	for k, v := range vars {
		mf.vars[k] = v
	}
	mf.vars["CURDIR"] = dir
	if len(goals) == 0 && mf.goal != "" {
		goals = []string{mf.goal}
	}
	if all {
		goals = append(goals, mf.order...)
	}
	var out []recipe
	seen := map[string]bool{}
	var visit func(t string, depth int)
	visit = func(t string, depth int) {
		r := mf.rules[t]
		if seen[t] || r == nil || depth > 64 || len(out) > maxRecipes {
			return
		}
		seen[t] = true
		auto := map[string]string{"@": t, "^": strings.Join(r.prereqs, " "), "+": strings.Join(r.prereqs, " ")}
		if len(r.prereqs) > 0 {
			auto["<"] = r.prereqs[0]
		}
		for _, p := range r.prereqs {
			visit(mf.expand(p, nil, 0), depth+1)
		}
		for _, l := range r.recipe {
			text := strings.TrimLeft(strings.TrimSpace(l.text), "@-+ \t")
			out = append(out, recipe{text: mf.expand(text, auto, 0), target: t, file: l.file, line: l.line})
		}
	}
	for _, g := range goals {
		visit(g, 0)
	}
	return out
}

// expand expands make's variable references in s: $(VAR), ${VAR}, $X and
// the automatic variables; an undefined variable is empty, as in make. A
// function call ($(shell ...), $(wildcard ...)) is left as written, which
// the shell then reads as a command substitution it cannot resolve.
func (mf *makefile) expand(s string, auto map[string]string, depth int) string {
	if !strings.Contains(s, "$") {
		return s
	}
	mf.expansions++
	if depth > 16 || mf.expansions > maxExpansions || len(s) > 1<<20 {
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		c := s[i+1]
		switch c {
		case '$':
			b.WriteByte('$')
			i++
		case '(', '{':
			closer := byte(')')
			if c == '{' {
				closer = '}'
			}
			j, level := i+2, 1
			for ; j < len(s); j++ {
				if s[j] == c {
					level++
				} else if s[j] == closer {
					level--
					if level == 0 {
						break
					}
				}
			}
			if j >= len(s) {
				b.WriteString(s[i:])
				return b.String()
			}
			ref := s[i+2 : j]
			switch {
			case strings.ContainsAny(ref, " \t,:$"):
				b.WriteString(s[i : j+1]) // a function or substitution reference
			case ref == "MAKE":
				b.WriteString("make")
			case auto[ref] != "":
				b.WriteString(auto[ref])
			default:
				b.WriteString(mf.expand(mf.vars[ref], auto, depth+1))
			}
			i = j
		default:
			if v, ok := auto[string(c)]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(mf.expand(mf.vars[string(c)], auto, depth+1))
			}
			i++
		}
	}
	return b.String()
}
