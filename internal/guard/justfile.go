package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// just follows just: the recipes it runs for the recipes named (the first
// one when none), read from the justfile in the directory it runs in, and
// their dependencies, are command lines the command runs; a recipe with a
// #! line runs its body with that interpreter.
func (a *analyzer) just(args []string, exact []bool, text string, sc *scope, depth int) {
	file, chdir, names, all := justArgs(args, exact)
	if names == nil && !all {
		return
	}
	for _, d := range sc.dirs {
		if d == "" {
			continue
		}
		dir := d
		if chdir != "" {
			dir = resolve(chdir, d)
		}
		candidates := []string{"justfile", "Justfile", ".justfile"}
		if file != "" {
			candidates = []string{file}
		}
		for _, f := range candidates {
			path := resolve(f, dir)
			if chdir == "" && file != "" {
				// just runs recipes in the justfile's directory
				if a.justRecipes(path, filepath.Dir(path), names, all, text, sc, depth, 0) {
					break
				}
				continue
			}
			if a.justRecipes(path, dir, names, all, text, sc, depth, 0) {
				break
			}
		}
	}
}

// justRecipes follows the recipes of the justfile at path that the words
// name, run in dir; a word naming one of its modules (mod NAME, also
// NAME::recipe) hands the words after it to that module's justfile, whose
// recipes run in the module's directory. false when there is no such file.
func (a *analyzer) justRecipes(path, dir string, names []string, all bool, text string, sc *scope, depth, level int) bool {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > maxScript {
		return false
	}
	src := justImports(string(data), filepath.Dir(path), 0)
	jf := parseJustfile(src)
	mods := justModules(src, filepath.Dir(path))
	var sub func(mod string, words []string, all bool)
	sub = func(mod string, words []string, all bool) {
		for _, p := range mods[mod] {
			if level < 4 && a.justRecipes(p, filepath.Dir(p), words, all, text, sc, depth, level+1) {
				return
			}
		}
	}
	if all {
		for m := range mods {
			sub(m, nil, true)
		}
	}
	for i, w := range names {
		if _, isRecipe := jf.recipes[w]; isRecipe {
			continue
		}
		head, tail, qualified := strings.Cut(w, "::")
		if _, isMod := mods[head]; !isMod {
			continue
		}
		rest := names[i+1:]
		if qualified {
			rest = append([]string{tail}, rest...)
		}
		// the words after a module's name are its recipes and their arguments
		sub(head, rest, false)
		names = names[:i]
		if len(names) == 0 && !all {
			return true
		}
		break
	}
	inner := sc.with([]string{dir})
	inner.stdin = input{}
	rel := shownPath(path, sc.dirs)
	for _, r := range jf.run(names, all) {
		inner.via = chain(sc.via, fmt.Sprintf("%s runs the recipe %s (%s:%d)", quote(text), r.name, rel, r.line))
		if r.shebang != "" {
			if strings.Contains(r.shebang, "python") {
				a.code(r.body, true, inner, depth)
				continue
			}
		}
		a.source(r.body, depth+1, inner)
	}
	return true
}

// justModules lists the files of the modules a justfile declares (mod
// NAME, mod? NAME, mod NAME 'path'), by name: NAME.just, NAME/mod.just or
// NAME/justfile next to it, or the path given (a file, or a directory
// holding one of those).
func justModules(data, dir string) map[string][]string {
	if !strings.Contains(data, "mod") {
		return nil
	}
	mods := map[string][]string{}
	for _, line := range strings.Split(data, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), "mod")
		if !ok {
			continue
		}
		rest = strings.TrimPrefix(rest, "?")
		if rest == "" || rest[0] != ' ' && rest[0] != '\t' {
			continue
		}
		f := strings.Fields(rest)
		name := f[0]
		var files []string
		switch {
		case len(f) > 1:
			p := resolve(unquoteJust(strings.Join(f[1:], " ")), dir)
			files = []string{p, filepath.Join(p, "mod.just"), filepath.Join(p, "justfile"), filepath.Join(p, "Justfile"), filepath.Join(p, ".justfile")}
		default:
			files = []string{filepath.Join(dir, name+".just"), filepath.Join(dir, name, "mod.just"), filepath.Join(dir, name, "justfile"), filepath.Join(dir, name, "Justfile"), filepath.Join(dir, name, ".justfile")}
		}
		mods[name] = files
	}
	return mods
}

// justArgs reads just's command line: --justfile, --working-directory and
// the recipes and their arguments. names is nil when just runs no recipe
// (--list, --show, --dry-run, --help, ...); all is set when a recipe's name
// cannot be resolved.
func justArgs(args []string, exact []bool) (file, chdir string, names []string, all bool) {
	names = []string{}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case !exact[i]:
			all = true
		case a == "-f" || a == "--justfile":
			if i+1 < len(args) {
				i++
				file = args[i]
			}
		case a == "-d" || a == "--working-directory":
			if i+1 < len(args) {
				i++
				chdir = args[i]
			}
		case strings.HasPrefix(a, "--justfile="):
			file = strings.TrimPrefix(a, "--justfile=")
		case strings.HasPrefix(a, "--working-directory="):
			chdir = strings.TrimPrefix(a, "--working-directory=")
		case a == "-l" || a == "--list" || a == "-s" || a == "--show" || a == "-n" || a == "--dry-run" || a == "-h" || a == "--help" ||
			a == "-V" || a == "--version" || a == "--summary" || a == "--dump" || a == "--evaluate" || a == "--variables" || a == "--choose" ||
			a == "--fmt" || a == "--init" || a == "--edit" || a == "--completions" || a == "--groups" || a == "--changelog":
			return "", "", nil, false
		case a == "--set":
			i += 2
		case a == "--shell" || a == "--shell-arg" || a == "--dotenv-path" || a == "--dotenv-filename" || a == "--color" || a == "--command-color" || a == "--chooser" || a == "--list-heading" || a == "--list-prefix":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			names = append(names, a)
		}
	}
	return file, chdir, names, all
}

// A justfile is the recipes of a justfile and its variables.
type justfile struct {
	vars    map[string]string
	recipes map[string]*justRecipe
	order   []string
}

type justRecipe struct {
	name    string
	params  []justParam
	deps    []string // the recipes it depends on, before and after its body
	lines   []string
	line    int // where its body starts
	shebang string
}

type justParam struct {
	name, value string
	variadic    bool
}

// A justRun is one recipe body just runs.
type justRun struct {
	name, body, shebang string
	line                int
}

// parseJustfile reads a justfile's variables (NAME := "value") and
// recipes (a header at the start of a line, its body indented).
func parseJustfile(data string) *justfile {
	jf := &justfile{vars: map[string]string{}, recipes: map[string]*justRecipe{}}
	var cur *justRecipe
	lines := strings.Split(data, "\n")
	for n := 0; n < len(lines); n++ {
		line := strings.TrimRight(lines[n], "\r")
		if cur != nil && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") || strings.TrimSpace(line) == "" && len(cur.lines) > 0) {
			body := strings.TrimLeft(line, " \t")
			if len(cur.lines) == 0 && strings.HasPrefix(body, "#!") {
				cur.shebang = body
				continue
			}
			if body == "" && cur.shebang == "" {
				continue
			}
			cur.lines = append(cur.lines, body)
			continue
		}
		cur = nil
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' || t[0] == '[' {
			continue
		}
		for _, p := range []string{"export ", "set ", "alias ", "import ", "mod "} {
			if strings.HasPrefix(t, p) {
				if p != "export " {
					t = ""
				} else {
					t = strings.TrimPrefix(t, p)
				}
			}
		}
		if name, value, ok := strings.Cut(t, ":="); ok && !strings.ContainsAny(strings.TrimSpace(name), " :") {
			jf.vars[strings.TrimSpace(name)] = unquoteJust(strings.TrimSpace(value))
			continue
		}
		head, deps, ok := strings.Cut(t, ":")
		if !ok {
			continue
		}
		fields := strings.Fields(head)
		if len(fields) == 0 {
			continue
		}
		r := &justRecipe{name: strings.TrimPrefix(fields[0], "@"), line: n + 2}
		for _, p := range fields[1:] {
			p = strings.TrimPrefix(p, "$")
			variadic := strings.HasPrefix(p, "+") || strings.HasPrefix(p, "*")
			name, value, _ := strings.Cut(strings.TrimLeft(p, "+*"), "=")
			r.params = append(r.params, justParam{name: name, value: unquoteJust(value), variadic: variadic})
		}
		// dependencies: names, or (name "arg") with arguments; && for those after
		for _, f := range strings.Fields(strings.NewReplacer("(", " ", ")", " ", "&&", " ").Replace(deps)) {
			if !strings.ContainsAny(f, `"'`) {
				r.deps = append(r.deps, f)
			}
		}
		if _, dup := jf.recipes[r.name]; !dup {
			jf.order = append(jf.order, r.name)
		}
		jf.recipes[r.name] = r
		cur = r
	}
	return jf
}

// unquoteJust is a just string literal's value; an expression stays as
// written.
func unquoteJust(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

// run lists the bodies just runs for the command line's recipes and
// arguments (every recipe's when all), dependencies first.
func (jf *justfile) run(words []string, all bool) []justRun {
	var out []justRun
	seen := map[string]bool{}
	var visit func(name string, args []string, depth int)
	visit = func(name string, args []string, depth int) {
		r := jf.recipes[name]
		if r == nil || seen[name] || depth > 64 {
			return
		}
		seen[name] = true
		for _, d := range r.deps {
			visit(d, nil, depth+1)
		}
		vals := map[string]string{}
		for k, v := range jf.vars {
			vals[k] = v
		}
		for i, p := range r.params {
			switch {
			case p.variadic:
				vals[p.name] = strings.Join(args[min(i, len(args)):], " ")
			case i < len(args):
				vals[p.name] = args[i]
			default:
				vals[p.name] = p.value
			}
		}
		body := strings.Join(r.lines, "\n")
		if r.shebang == "" {
			var b strings.Builder
			for _, l := range r.lines {
				b.WriteString(strings.TrimLeft(l, "@-") + "\n")
			}
			body = b.String()
		}
		out = append(out, justRun{name: name, body: interpolate(body, vals), shebang: r.shebang, line: r.line})
	}
	if all {
		for _, n := range jf.order {
			visit(n, nil, 0)
		}
		return out
	}
	if len(words) == 0 && len(jf.order) > 0 {
		words = []string{jf.order[0]}
	}
	for i := 0; i < len(words); i++ {
		r := jf.recipes[words[i]]
		if r == nil {
			continue
		}
		n := len(r.params)
		if n > 0 && r.params[n-1].variadic {
			n = len(words) - i - 1
		}
		end := min(i+1+n, len(words))
		visit(words[i], words[i+1:end], 0)
		i = end - 1
	}
	return out
}

// interpolate replaces just's {{expression}}: a variable or parameter by
// its value; any other expression becomes a command substitution, which
// the guard cannot resolve.
func interpolate(body string, vals map[string]string) string {
	var b strings.Builder
	for {
		i := strings.Index(body, "{{")
		if i < 0 {
			b.WriteString(body)
			return b.String()
		}
		if strings.HasPrefix(body[i:], "{{{{") {
			b.WriteString(body[:i+2])
			body = body[i+4:]
			continue
		}
		j := strings.Index(body[i:], "}}")
		if j < 0 {
			b.WriteString(body)
			return b.String()
		}
		expr := strings.TrimSpace(body[i+2 : i+j])
		b.WriteString(body[:i])
		if v, ok := vals[expr]; ok {
			b.WriteString(v)
		} else {
			b.WriteString("$(" + expr + ")")
		}
		body = body[i+j+2:]
	}
}

// justImports puts the text of the files a justfile imports (import
// 'file.just', import? 'file.just') after its own, as just merges their
// recipes, to a few levels.
func justImports(data, dir string, level int) string {
	if level > 4 || !strings.Contains(data, "import") {
		return data
	}
	var extra strings.Builder
	for _, line := range strings.Split(data, "\n") {
		rest, ok := strings.CutPrefix(line, "import")
		if !ok {
			continue
		}
		rest = strings.TrimSpace(strings.TrimPrefix(rest, "?"))
		if len(rest) < 2 || rest[0] != '\'' && rest[0] != '"' || rest[len(rest)-1] != rest[0] {
			continue
		}
		path := resolve(unquoteJust(rest), dir)
		b, err := os.ReadFile(path)
		if err != nil || len(b) > maxScript {
			continue
		}
		extra.WriteString("\n" + justImports(string(b), filepath.Dir(path), level+1))
	}
	return data + extra.String()
}
