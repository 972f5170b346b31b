package guard

import (
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// An origin is what a file that the command line writes holds, as far as
// the guard can tell: running it runs what it was made from.
type origin struct {
	text    []string // text written to it: echo, printf, a here-document
	from    []string // absolute paths of the files it copies or is made from: cp, ln, mv, cat, sed
	unknown bool     // output of a program the guard cannot read
}

func (o *origin) merge(p *origin) {
	o.text = append(o.text, p.text...)
	o.from = append(o.from, p.from...)
	o.unknown = o.unknown || p.unknown
}

// record notes that path, in each of dirs, is written with o (appended to
// when app). A file made from another the line wrote holds what that one
// holds.
func (a *analyzer) record(path string, o origin, dirs []string, app bool) {
	var from []string
	for _, f := range o.from {
		if prev := a.files[f]; prev != nil {
			o.text = append(o.text, prev.text...)
			from = append(from, prev.from...)
			o.unknown = o.unknown || prev.unknown
			continue
		}
		from = append(from, f)
	}
	o.from = from
	if a.files == nil {
		a.files = map[string]*origin{}
	}
	for _, d := range dirs {
		if d == "" && !filepath.IsAbs(path) {
			continue
		}
		key := resolve(path, d)
		n := &origin{text: o.text, from: o.from, unknown: o.unknown}
		if prev := a.files[key]; prev != nil && app {
			prev.merge(n)
			continue
		}
		a.files[key] = n
	}
}

// sources resolves the words naming files a command reads into absolute
// paths, keeping those that exist or that the line wrote.
func (a *analyzer) sources(words []string, dirs []string) []string {
	var out []string
	for _, w := range words {
		for _, d := range dirs {
			if d == "" && !filepath.IsAbs(w) {
				continue
			}
			p := resolve(w, d)
			if _, err := os.Lstat(p); err == nil || a.files[p] != nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// fromInput is the origin of what a command copies from its standard
// input.
func (a *analyzer) fromInput(in input, dirs []string) (origin, bool) {
	switch in.kind {
	case inText:
		return origin{text: []string{in.text}}, true
	case inFile:
		return origin{from: a.sources([]string{in.path}, dirs)}, true
	case inUnknown:
		return origin{unknown: true}, true
	}
	return origin{}, false
}

// recordCopy records the files a copying command writes: the target of
// cp, install, rsync, scp, mv and ln, dd's of=, and tee's files.
func (a *analyzer) recordCopy(c call) {
	name := programName(c.argv[0], c.exact[0])
	for _, e := range c.exact {
		if !e {
			return
		}
	}
	switch name {
	case "cp", "install", "rsync", "scp", "mv", "ln", "link", "gcp":
	case "dd":
		var src, dst string
		for _, w := range c.argv[1:] {
			if v, ok := strings.CutPrefix(w, "if="); ok {
				src = v
			} else if v, ok := strings.CutPrefix(w, "of="); ok {
				dst = v
			}
		}
		if dst == "" {
			return
		}
		o := origin{from: a.sources([]string{src}, c.dirs)}
		if src == "" {
			if o, ok := a.fromInput(c.stdin, c.dirs); ok {
				a.record(dst, o, c.dirs, false)
			}
			return
		}
		a.record(dst, o, c.dirs, false)
		return
	case "tee":
		o, ok := a.fromInput(c.stdin, c.dirs)
		if !ok {
			return
		}
		app := false
		for _, w := range c.argv[1:] {
			switch {
			case w == "-a" || w == "--append":
				app = true
			case !strings.HasPrefix(w, "-"):
				a.record(w, o, c.dirs, app)
			}
		}
		return
	default:
		return
	}
	w := wrapper{valued: " -t --target-directory -m --mode -o --owner -g --group -S --suffix --backup-dir "}
	if name == "rsync" || name == "scp" {
		// -f is rsync's filter and -F scp's config; cp, mv and ln's -f forces
		w.valued += "-e --rsh --exclude --include --filter -f -F -i -P -c -l -o -J "
	}
	var operands []string
	target := ""
	for i := 1; i < len(c.argv); i++ {
		arg := c.argv[i]
		switch {
		case arg == "-t" || arg == "--target-directory":
			if i+1 < len(c.argv) {
				target = c.argv[i+1]
			}
			i++
		case strings.HasPrefix(arg, "--target-directory="):
			target = strings.TrimPrefix(arg, "--target-directory=")
		case w.takesValue(arg):
			i++
		case strings.HasPrefix(arg, "-") && arg != "-":
		default:
			operands = append(operands, arg)
		}
	}
	if target == "" {
		if len(operands) < 2 {
			return
		}
		target, operands = operands[len(operands)-1], operands[:len(operands)-1]
	}
	dirs := c.dirs
	if name == "ln" {
		// A relative link target is relative to the link's directory.
		for _, d := range c.dirs {
			if d != "" || filepath.IsAbs(target) {
				dirs = append(dirs, filepath.Dir(resolve(target, d)))
			}
		}
	}
	srcs := a.sources(operands, dirs)
	a.record(target, origin{from: srcs}, c.dirs, false)
	// The target may be a directory: each source lands in it by its name.
	for _, s := range srcs {
		a.record(filepath.Join(target, filepath.Base(s)), origin{from: []string{s}}, c.dirs, false)
	}
}

// followFile follows a command that runs a file the line wrote before it:
// the file's text runs, or the files it was made from do.
func (a *analyzer) followFile(c call, sc *scope, depth int) {
	file, python := ranFile(c)
	if file == "" {
		// python -m MODULE runs the module's file, found from where it runs.
		name := programName(c.argv[0], c.exact[0])
		if isPython(name) && c.exact[0] {
			if py, _ := pythonProgram(name, c.argv, c.exact, c.stdin, c.open); py.module != "" {
				for _, d := range c.dirs {
					if p := a.localModule(py.module, []string{d}); p != "" {
						a.followDisk(c, p, "python", sc, depth)
					}
				}
			}
		}
		if args, ok := pytestArgs(name, c); ok {
			a.pytest(c, args, sc, depth)
			return
		}
		// node run.js, perl x.pl, ruby x.rb run a script in their language.
		if script, lang := foreignScript(name, c); script != "" && (a.settled == nil || !a.settled(c)) {
			for _, p := range diskFiles(script, c.dirs) {
				a.followDisk(c, p, lang, sc, depth)
			}
		}
		return
	}
	if !a.followWritten(c, file, python, "", sc, depth) && (a.settled == nil || !a.settled(c)) {
		lang := ""
		if python {
			lang = "python"
		}
		for _, p := range diskFiles(file, c.dirs) {
			a.followDisk(c, p, lang, sc, depth)
		}
	}
}

// followWritten follows a file the line wrote before running it; false
// when the line wrote no such file. how says how it comes to run, when
// the command does not run it itself.
func (a *analyzer) followWritten(c call, file string, python bool, how string, sc *scope, depth int) bool {
	if len(a.files) == 0 || depth > maxDepth {
		return false
	}
	for _, d := range c.dirs {
		if d == "" && !filepath.IsAbs(file) {
			continue
		}
		o := a.files[resolve(file, d)]
		if o == nil {
			continue
		}
		inner := sc.with(c.dirs)
		inner.stdin = input{}
		if how == "" {
			how = quote(c.text) + " runs " + file + ", which the command line writes before it"
		}
		inner.via = chain(sc.via, how)
		for _, t := range o.text {
			first, _, _ := strings.Cut(t, "\n")
			if python || strings.HasPrefix(first, "#!") && strings.Contains(first, "python") {
				a.code(t, true, inner, depth)
				continue
			}
			a.source(t, depth+1, inner)
		}
		for _, f := range o.from {
			cc := call{env: c.env, argv: append([]string{f}, c.argv[1:]...), text: c.text, dirs: c.dirs, script: true, via: inner.via}
			if python {
				cc.argv, cc.script = []string{"python", f}, false
			}
			cc.exact = trues(len(cc.argv))
			// what the file was made from is read in turn, from disk
			a.add(cc, inner, depth+1)
		}
		if o.unknown {
			a.opaque(file, "what "+file+" holds (the command line writes it from a program's output)", c.text, sc)
		}
		return true
	}
	return false
}

// ranFile is the file a command runs as a program: a script a shell runs,
// a Python script, or a program given by its path.
func ranFile(c call) (file string, python bool) {
	name := programName(c.argv[0], c.exact[0])
	switch {
	case !c.exact[0]:
	case c.script:
		return c.argv[0], false
	case isPython(name) || name == "ipython" || name == "ipython3":
		if py, _ := pythonProgram(name, c.argv, c.exact, c.stdin, c.open); py.script != "" {
			return py.script, true
		}
	case strings.Contains(c.argv[0], "/"):
		return c.argv[0], false
	case strings.HasSuffix(name, ".py"):
		return name, true // uv run x.py, pixi run x.py
	}
	return "", false
}

// content is the origin of what a statement writes to its standard
// output: echo's and printf's words, the files cat and text filters read
// (or their standard input, in), or, for any other program, unknown.
func (w *walker) content(s *syntax.Stmt, sc *scope, in input) origin {
	ce, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return origin{unknown: true}
	}
	argv, exact := w.words(ce.Args, sc)
	for _, e := range exact {
		if !e {
			return origin{unknown: true}
		}
	}
	var operands []string
	for _, x := range argv[1:] {
		if !strings.HasPrefix(x, "-") {
			operands = append(operands, x)
		}
	}
	switch filepath.Base(argv[0]) {
	case "echo", "printf":
		if in := w.emits(ce, sc); in.kind == inText {
			return origin{text: []string{in.text}}
		}
		return origin{unknown: true}
	case "cat", "tac", "sed", "gsed", "awk", "gawk", "head", "tail", "cut", "tr", "sort", "uniq", "grep", "egrep", "fgrep", "envsubst",
		"expand", "unexpand", "fold", "fmt", "nl", "iconv", "dos2unix", "unix2dos", "rev", "paste", "column":
		if files := w.a.sources(operands, sc.dirs); len(files) > 0 {
			return origin{from: files}
		}
		if o, ok := w.a.fromInput(in, sc.dirs); ok {
			return o
		}
		return origin{}
	}
	return origin{unknown: true}
}
