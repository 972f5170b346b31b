package guard

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// words expands a command's words as bash would without running anything:
// quote removal, ANSI-C quoting ($'\x61'), brace expansion, variables the
// command line itself set, empty command substitutions, ~, and globs
// matched against the file system. A word holding anything else (an
// unknown variable, a command substitution with a command in it,
// arithmetic, a process substitution) is kept as written and marked
// inexact.
func (w *walker) words(ws []*syntax.Word, sc *scope) ([]string, []bool) {
	var argv []string
	var exact []bool
	for _, x := range ws {
		f, ok := w.fields(x, sc)
		for _, s := range f {
			argv = append(argv, s)
			exact = append(exact, ok && !marked(s, sc.marks))
		}
	}
	return argv, exact
}

func marked(s string, marks []string) bool {
	for _, m := range marks {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// fields expands one word; ok is false when it cannot be resolved, and
// the word is then one field as written (quotes removed).
func (w *walker) fields(x *syntax.Word, sc *scope) ([]string, bool) {
	if !resolvable(x, sc.vars) {
		return []string{wordText(w.src, x)}, false
	}
	if lit, ok := plainLiteral(x); ok {
		return []string{lit}, true // the common case, without the expander
	}
	if !hasGlob(x) {
		f, err := expandFields(w.a.config(sc, ""), x)
		if err != nil {
			return []string{wordText(w.src, x)}, false
		}
		return f, true
	}
	// A glob is matched in every directory the command may run in.
	var out []string
	seen := map[string]bool{}
	for _, d := range sc.dirs {
		if !filepath.IsAbs(d) {
			return []string{wordText(w.src, x)}, false
		}
		f, err := expandFields(w.a.config(sc, d), x)
		if err != nil {
			return []string{wordText(w.src, x)}, false
		}
		for _, s := range f {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	if len(out) == 0 {
		return []string{wordText(w.src, x)}, false
	}
	return out, true
}

// hasGlob reports a word with an unquoted glob character.
func hasGlob(x *syntax.Word) bool {
	for _, p := range x.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsAny(l.Value, "*?[") {
			return true
		}
	}
	return false
}

// literal expands a word as an assignment's value: no field splitting, no
// globbing.
func (w *walker) literal(x *syntax.Word, sc *scope) (string, bool) {
	if !resolvable(x, sc.vars) {
		return "", false
	}
	if lit, ok := plainLiteral(x); ok {
		return lit, true
	}
	s, err := expandLiteral(w.a.config(sc, ""), x)
	return s, err == nil
}

// plainLiteral is a word of plain characters: nothing to expand.
func plainLiteral(x *syntax.Word) (string, bool) {
	if len(x.Parts) != 1 {
		return "", false
	}
	l, ok := x.Parts[0].(*syntax.Lit)
	if !ok || strings.ContainsAny(l.Value, "\\{*?[~") {
		return "", false
	}
	return l.Value, true
}

// config is the expander's view of the shell: the variables the command
// line set, HOME for ~, and, when dir is set, the file system for globs
// relative to dir.
func (a *analyzer) config(sc *scope, dir string) *expand.Config {
	pairs := make([]string, 0, len(sc.vars)+2)
	for k, v := range sc.vars {
		pairs = append(pairs, k+"="+v)
	}
	if a.home != "" {
		pairs = append(pairs, "HOME="+a.home)
	}
	cfg := &expand.Config{
		Env: expand.ListEnviron(pairs...),
		// Only empty substitutions reach here (resolvable): they expand to nothing.
		CmdSubst: func(io.Writer, *syntax.CmdSubst) error { return nil },
	}
	if dir != "" {
		cfg.Env = expand.ListEnviron(append(pairs, "PWD="+dir)...)
		cfg.ReadDir2 = os.ReadDir
	}
	return cfg
}

// resolvable reports a word the guard can expand without running
// anything.
func resolvable(x *syntax.Word, vars map[string]string) bool {
	ok := true
	syntax.Walk(x, func(n syntax.Node) bool {
		if !ok {
			return false
		}
		switch n := n.(type) {
		case *syntax.CmdSubst:
			ok = len(n.Stmts) == 0
			return false
		case *syntax.ProcSubst, *syntax.ArithmExp, *syntax.ExtGlob:
			ok = false
		case *syntax.ParamExp:
			if n.Param == nil || n.Excl || n.Index != nil || n.Slice != nil || n.Repl != nil || n.Names != 0 {
				ok = false
				break
			}
			if _, known := vars[n.Param.Value]; !known {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// expandFields is expand.Fields, with a panic of the expander (it has
// panicked on $'\0') turned into an error: the word is then not resolved.
func expandFields(cfg *expand.Config, x *syntax.Word) (f []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("expand %q: %v", x.Lit(), r)
		}
	}()
	return expand.Fields(cfg, x)
}

// expandLiteral is expand.Literal, with a panic turned into an error.
func expandLiteral(cfg *expand.Config, x *syntax.Word) (s string, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = "", fmt.Errorf("expand %q: %v", x.Lit(), r)
		}
	}()
	return expand.Literal(cfg, x)
}
