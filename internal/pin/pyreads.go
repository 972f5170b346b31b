package pin

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/rlxp/rlxp/internal/pylex"
)

// Python code is searched for the files it reads, not for every string:
// its strings name as many files it writes as it reads. What counts is a
// path given to a call that reads (open without a writing mode, json.load,
// np.load, torch.load, pd.read_csv, OmegaConf.load,
// gin.parse_config_file, …), a path built with pathlib or os.path.join, an
// argparse default, and the modules imported from the repository, which
// are searched in turn.

// pyReaders are the calls whose first argument is a file they read.
var pyReaders = map[string]bool{
	"open": true, "load": true, "safe_load": true, "full_load": true, "unsafe_load": true, "load_all": true, "safe_load_all": true,
	"read_csv": true, "read_json": true, "read_parquet": true, "read_pickle": true, "read_table": true, "read_excel": true,
	"read_feather": true, "read_hdf": true, "read_fwf": true, "read_orc": true, "read_yaml": true, "load_yaml": true,
	"load_json": true, "load_config": true, "loadtxt": true, "genfromtxt": true, "fromfile": true, "loadmat": true,
	"load_file": true, "safe_open": true, "parse_config_file": true, "parse_config_files_and_bindings": true,
	"read_file": true, "read": true, "File": true, "imread": true, "from_file": true, "from_json_file": true,
	"from_yaml": true, "memmap": true,
}

// pathMethods are the attributes and methods of a path that keep it, or
// give its directory.
var pathMethods = map[string]bool{
	"parent": true, "resolve": true, "absolute": true, "expanduser": true, "joinpath": true,
	"open": true, "read_text": true, "read_bytes": true,
}

// pyFileArgs are the keyword arguments of a reading call that name its file.
var pyFileArgs = []string{"file", "path", "filepath", "fname", "filename", "filepath_or_buffer", "config_file", "config_files", "f", "name"}

// pyWrites marks a line that writes: a path built on it is not taken as
// read.
var pyWrites = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\.write_(?:text|bytes)\s*\(|\b(?:save\w*|dump\w*|savefig|mkdir|makedirs|write|to_csv|to_json|to_parquet|to_pickle|to_hdf|to_feather|to_excel|SummaryWriter)\s*\(|\b\w*(?:out|output|save|log|ckpt|checkpoint)_?dir\b|['"][wax]b?\+?['"]`)
})

// pyDirLimit bounds the files a directory yields when a path is known
// only up to it (os.path.join("configs", name)): a directory with more is
// a data set, not configs.
const pyDirLimit = 256

// A pyPath is what the code says about a path: all of it (whole), only
// its beginning, or nothing (!ok).
type pyPath struct {
	ok, whole bool
	s         string
}

func (a pyPath) join(b pyPath) pyPath {
	switch {
	case !a.ok || !a.whole:
		return a
	case !b.ok:
		return pyPath{ok: true, s: strings.TrimSuffix(a.s, "/") + "/"}
	case path.IsAbs(b.s):
		return b
	case b.whole:
		return pyPath{ok: true, whole: true, s: path.Join(a.s, b.s)}
	default:
		return pyPath{ok: true, s: strings.TrimSuffix(a.s, "/") + "/" + b.s}
	}
}

func (a pyPath) concat(b pyPath) pyPath {
	switch {
	case !a.ok || !a.whole:
		return a
	case !b.ok:
		return pyPath{ok: true, s: a.s}
	default:
		return pyPath{ok: true, whole: b.whole, s: a.s + b.s}
	}
}

func (a pyPath) dir() pyPath {
	if !a.ok || !a.whole {
		return pyPath{}
	}
	return pyPath{ok: true, whole: true, s: path.Dir(a.s)}
}

// pyListers are the calls that list a directory or match a pattern: what
// they return are files the code goes on to read (a plugin directory, a
// glob of configs).
var pyListers = map[string]bool{
	"glob": true, "iglob": true, "rglob": true, "listdir": true, "scandir": true, "iterdir": true, "walk": true,
}

// A pyListing is a directory listing or glob the code makes: the
// pattern (a path whose last parts may hold *, ? and [...]), and whether
// it matches at any depth (rglob, os.walk, **).
type pyListing struct {
	pattern   pyPath
	recursive bool
}

// pyFile is the search in one Python file.
type pyFile struct {
	abs  string // the file
	src  string
	toks []pylex.Token
	vars map[string]pyPath // NAME = path, as assigned
	// lists are the listings the expressions read so far make.
	lists []pyListing
	// work is what is left of the tokens one expression may take, so
	// that nested calls cannot make the search quadratic or deep.
	work int
}

// pyWork bounds the tokens one expression is read over.
const pyWork = 512

// parse reads the expression at token i, within pyWork.
func (f *pyFile) parse(i int) pyPath {
	f.work = pyWork
	v, _ := f.expr(i)
	return v
}

// parseArgs reads the arguments of the call at token i, within pyWork.
func (f *pyFile) parseArgs(i int) ([]pyPath, map[string]pyPath) {
	f.work = pyWork
	pos, kw, _ := f.args(i)
	return pos, kw
}

// python adds the files a Python file reads and the repository modules it
// imports.
func (s *readSearch) python(abs string, data []byte) {
	src := string(data)
	f := &pyFile{abs: abs, src: src, toks: pylex.Tokens(src), vars: map[string]pyPath{}}
	lines := strings.Split(src, "\n")
	writes := func(line int) bool { return line <= len(lines) && pyWrites().MatchString(lines[line-1]) }
	for i, t := range f.toks {
		start := i == 0 || f.end(i-1) || f.toks[i-1].Kind == pylex.Indent || f.toks[i-1].Kind == pylex.Dedent || f.is(i-1, pylex.Op, ":")
		if t.Kind != pylex.Name {
			continue
		}
		name := f.text(i)
		switch {
		case start && (name == "import" || name == "from"):
			for _, m := range f.imports(i) {
				s.module(abs, m)
			}
			continue
		case start && f.is(i+1, pylex.Op, "="):
			if v := f.parse(i + 2); v.ok {
				f.vars[name] = v
			}
		}
		if !f.is(i+1, pylex.Op, "(") {
			continue
		}
		switch {
		case name == "import_module" || name == "__import__":
			args, _ := f.parseArgs(i + 2)
			switch {
			case len(args) == 0:
			case args[0].whole:
				s.module(abs, pyImport{name: args[0].s})
			case args[0].ok && strings.Contains(args[0].s, "."):
				// A module named at run time in a literal package
				// ("envs." + name): every module of the package.
				pkg := strings.ReplaceAll(args[0].s[:strings.LastIndexByte(args[0].s, '.')], ".", "/")
				for _, pat := range []string{"/*.py", "/*/__init__.py"} {
					s.pyList(abs, pyListing{pattern: pyPath{ok: true, whole: true, s: pkg + pat}}, true)
				}
			}
		case pyListers[name] && !writes(int(t.Line)):
			f.lists = f.lists[:0]
			f.parse(f.chainStart(i))
			for _, l := range f.lists {
				s.pyList(abs, l, false)
			}
		case name == "add_argument":
			if _, kw := f.parseArgs(i + 2); kw["default"].whole {
				s.pyRead(abs, kw["default"])
			}
		case pyReaders[name] && (name != "read" || f.is(i+2, pylex.String, "")):
			args, kw := f.parseArgs(i + 2)
			if pyMode(name, args, kw) {
				continue
			}
			v := pyPath{}
			if len(args) > 0 {
				v = args[0]
			}
			for _, k := range pyFileArgs {
				if !v.ok {
					v = kw[k]
				}
			}
			s.pyRead(abs, v)
		case name == "Path" || name == "PurePath" || name == "PosixPath" ||
			(name == "join" && f.is(i-1, pylex.Op, ".") && (f.is(i-2, pylex.Name, "path") || f.is(i-2, pylex.Name, "osp"))):
			if writes(int(t.Line)) {
				continue
			}
			from := i
			if name == "join" {
				from = i - 2
				for f.is(from-1, pylex.Op, ".") && f.is(from-2, pylex.Name, "") {
					from -= 2
				}
			}
			s.pyRead(abs, f.parse(from))
		}
	}
}

// pyMode says whether a call opens its file for writing: a mode with w,
// a or x, as the second argument or mode=.
func pyMode(name string, args []pyPath, kw map[string]pyPath) bool {
	mode := kw["mode"]
	if !mode.ok && len(args) > 1 && (name == "open" || name == "File" || name == "safe_open" || name == "memmap") {
		mode = args[1]
	}
	return mode.whole && strings.ContainsAny(mode.s, "wax")
}

// pyRead adds what a path the code reads names: the file, taken relative
// to the working directory (the root) and to the code's directory; for a
// path known only up to a directory, the configs in it whose names begin
// as the rest of it does.
func (s *readSearch) pyRead(abs string, v pyPath) {
	if !v.ok || v.s == "" {
		return
	}
	if v.whole {
		s.add(s.resolve(s.root, v.s)...)
		s.add(s.resolve(filepath.Dir(abs), v.s)...)
		return
	}
	dir, prefix := path.Split(v.s)
	if dir == "" || dir == "/" {
		return // nothing but a name's beginning: too little to go on
	}
	for _, base := range []string{s.root, filepath.Dir(abs)} {
		d := dir
		if !path.IsAbs(d) {
			d = filepath.Join(base, d)
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		var names []string
		for _, e := range entries {
			if n := e.Name(); !e.IsDir() && strings.HasPrefix(n, prefix) && configExt(n) {
				names = append(names, n)
			}
		}
		if len(names) > pyDirLimit {
			continue
		}
		sort.Strings(names)
		s.add(s.resolve(d, names...)...)
	}
}

// pyList adds the files a listing of the code can yield: the configs
// (and, for a plugin directory, the Python modules) its pattern matches,
// taken relative to the root and to the code's directory, unless there
// are more than pyDirLimit (a data set). A pattern known only up to a
// directory is read as pyRead reads a path (configs in it). modules
// says that the pattern names modules alone.
func (s *readSearch) pyList(abs string, l pyListing, modules bool) {
	p := l.pattern
	if !p.ok || p.s == "" {
		return
	}
	if !p.whole {
		s.pyRead(abs, p)
		return
	}
	// The directory before the first part with a wildcard, and the
	// pattern the files' names match.
	parts := strings.Split(path.Clean(p.s), "/")
	k := 0
	for k < len(parts) && !strings.ContainsAny(parts[k], "*?[") {
		k++
	}
	if k == len(parts) {
		return // no wildcard: a path, not a listing
	}
	dir, rest := strings.Join(parts[:k], "/"), parts[k:]
	recursive := l.recursive || len(rest) > 1
	name := rest[len(rest)-1]
	if dir == "" && !path.IsAbs(p.s) {
		dir = "."
	}
	for _, base := range []string{s.root, filepath.Dir(abs)} {
		d := dir
		if !path.IsAbs(d) {
			d = filepath.Join(base, d)
		}
		var names []string
		seen := 0
		walkLinked(d, func(q string, dir bool) error {
			if seen++; seen > 16*pyDirLimit || len(names) > pyDirLimit {
				return filepath.SkipAll
			}
			base := filepath.Base(q)
			if dir {
				if !recursive || interpreterDir(base) {
					return filepath.SkipDir
				}
				return nil
			}
			if ok, _ := filepath.Match(name, base); ok && (filepath.Ext(base) == ".py" || (!modules && configExt(base))) {
				names = append(names, q)
			}
			return nil
		})
		if len(names) > pyDirLimit || seen > 16*pyDirLimit {
			continue
		}
		sort.Strings(names)
		s.add(s.resolve(d, names...)...)
	}
}

// configExt says whether a file name has a config's extension.
func configExt(name string) bool {
	switch filepath.Ext(name) {
	case ".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".env", ".gin", ".jsonnet":
		return true
	}
	return false
}

// A pyImport is a module an import statement names: dots for a relative
// import, the dotted name.
type pyImport struct {
	dots int
	name string
}

// module adds the files of the repository that an import from the file
// at abs runs: the module's file or package, and the packages above it;
// looked up from the working directory (the root), the file's directory
// (the script's, first on sys.path) and the root's src/.
func (s *readSearch) module(abs string, m pyImport) {
	var bases []string
	if m.dots > 0 {
		d := filepath.Dir(abs)
		for k := 1; k < m.dots; k++ {
			d = filepath.Dir(d)
		}
		bases = []string{d}
	} else {
		bases = []string{s.root, filepath.Dir(abs), filepath.Join(s.root, "src")}
	}
	parts := strings.Split(m.name, ".")
	if m.name == "" {
		parts = nil
	}
	for _, b := range bases {
		p := b
		for _, part := range parts {
			if part == "" {
				return
			}
			s.add(s.resolve(p, "__init__.py")...)
			p = filepath.Join(p, part)
		}
		s.add(s.resolve(p, "__init__.py")...)
		if len(parts) > 0 {
			s.add(s.resolve(filepath.Dir(p), filepath.Base(p)+".py")...)
		}
	}
}

// is says whether token i is of kind k and, when text is not "", that text.
func (f *pyFile) is(i int, k pylex.Kind, text string) bool {
	return i >= 0 && i < len(f.toks) && f.toks[i].Kind == k && (text == "" || f.toks[i].Text(f.src) == text)
}

// end says whether token i ends a statement: a logical line or a ";".
func (f *pyFile) end(i int) bool {
	return f.is(i, pylex.Newline, "") || f.is(i, pylex.Op, ";")
}

// text is the source text of token i.
func (f *pyFile) text(i int) string { return f.toks[i].Text(f.src) }

// imports reads the import statement at token i: "import a.b as c, d" or
// "from .x import y, z" (y and z may be modules too).
func (f *pyFile) imports(i int) []pyImport {
	var out []pyImport
	j := i + 1
	dotted := func() (string, int) {
		var parts []string
		for f.is(j, pylex.Name, "") && !f.is(j, pylex.Name, "import") {
			parts = append(parts, f.text(j))
			j++
			if !f.is(j, pylex.Op, ".") {
				break
			}
			j++
		}
		return strings.Join(parts, "."), len(parts)
	}
	if f.is(i, pylex.Name, "import") {
		for {
			name, n := dotted()
			if n == 0 {
				return out
			}
			out = append(out, pyImport{name: name})
			if f.is(j, pylex.Name, "as") {
				j += 2
			}
			if !f.is(j, pylex.Op, ",") {
				return out
			}
			j++
		}
	}
	dots := 0
	for f.is(j, pylex.Op, ".") || f.is(j, pylex.Op, "...") {
		dots += f.toks[j].End - f.toks[j].Off
		j++
	}
	from, _ := dotted()
	if !f.is(j, pylex.Name, "import") {
		return out
	}
	j++
	out = append(out, pyImport{dots: dots, name: from})
	for j < len(f.toks) && !f.end(j) {
		if f.is(j, pylex.Name, "") && !f.is(j, pylex.Name, "as") && !f.is(j-1, pylex.Name, "as") {
			sub := f.text(j)
			if from != "" {
				sub = from + "." + sub
			}
			out = append(out, pyImport{dots: dots, name: sub})
		}
		j++
	}
	return out
}

// args reads a call's arguments from token i (after its "("): the
// positional ones and the keyword ones as paths, and the index after ")".
func (f *pyFile) args(i int) ([]pyPath, map[string]pyPath, int) {
	var pos []pyPath
	kw := map[string]pyPath{}
	for i < len(f.toks) && !f.is(i, pylex.Op, ")") && !f.end(i) {
		key := ""
		if f.is(i, pylex.Name, "") && f.is(i+1, pylex.Op, "=") {
			key, i = f.text(i), i+2
		}
		v, j := f.expr(i)
		i = f.skip(j)
		if key != "" {
			kw[key] = v
		} else {
			pos = append(pos, v)
		}
		if !f.is(i, pylex.Op, ",") {
			break
		}
		i++
	}
	return pos, kw, i + 1
}

// skip passes over what is left of an argument: up to the "," or ")"
// that ends it.
func (f *pyFile) skip(i int) int {
	depth := 0
	for ; i < len(f.toks); i++ {
		if f.work--; f.work < 0 {
			return len(f.toks)
		}
		if f.end(i) {
			return i
		}
		if f.toks[i].Kind != pylex.Op {
			continue
		}
		switch f.text(i) {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			if depth == 0 {
				return i
			}
			depth--
		case ",":
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

// expr reads a path expression from token i: terms joined by / or +.
func (f *pyFile) expr(i int) (pyPath, int) {
	v, i := f.term(i)
	for f.is(i, pylex.Op, "/") || f.is(i, pylex.Op, "+") {
		op := f.text(i)
		w, j := f.term(i + 1)
		if j == i+1 {
			return pyPath{}, j
		}
		if op == "/" {
			v = v.join(w)
		} else {
			v = v.concat(w)
		}
		i = j
	}
	return v, i
}

// term reads a string, a name, a call of the path functions or a
// parenthesised expression, with the attributes and methods after it.
func (f *pyFile) term(i int) (pyPath, int) {
	if f.work--; i >= len(f.toks) || f.work < 0 {
		return pyPath{}, len(f.toks)
	}
	var v pyPath
	switch {
	case f.is(i, pylex.String, ""):
		// Adjacent literals are one string; an f-string's fields end
		// what is known of it.
		v = pyPath{ok: true, whole: true}
		for ; f.is(i, pylex.String, ""); i++ {
			if v.whole {
				s, field := pylex.Marked(f.src, f.toks[i], "")
				if field >= 0 {
					s, v.whole = s[:field], false
				}
				v.s += s
			}
		}
	case f.is(i, pylex.Op, "("):
		v, i = f.expr(i + 1)
		i = f.skip(i)
		if f.is(i, pylex.Op, ")") {
			i++
		}
	case f.is(i, pylex.Name, ""):
		// A dotted name (os.path.join) up to a call or a path's own
		// attribute, which the loop below reads.
		name := f.text(i)
		i++
		for f.is(i, pylex.Op, ".") && f.is(i+1, pylex.Name, "") && !pathMethods[f.text(i+1)] {
			name = f.text(i + 1)
			i += 2
			if f.is(i, pylex.Op, "(") {
				break
			}
		}
		if f.is(i, pylex.Op, "(") {
			args, kw, j := f.args(i + 1)
			f.listing(name, pyPath{}, args, kw)
			v, i = pyCall(name, args), j
		} else {
			switch name {
			case "__file__":
				v = pyPath{ok: true, whole: true, s: filepath.ToSlash(f.abs)}
			default:
				v = f.vars[name]
			}
		}
	default:
		return pyPath{}, i
	}
	// Attributes and methods: .parent, .resolve(), .joinpath(…), …
	for f.is(i, pylex.Op, ".") && f.is(i+1, pylex.Name, "") {
		attr := f.text(i + 1)
		i += 2
		if f.is(i, pylex.Op, "(") {
			args, kw, j := f.args(i + 1)
			i = j
			f.listing(attr, v, args, kw)
			switch attr {
			case "resolve", "absolute", "expanduser", "open", "read_text", "read_bytes":
			case "joinpath":
				for _, a := range args {
					v = v.join(a)
				}
			default:
				v = pyPath{}
			}
			continue
		}
		if attr == "parent" {
			v = v.dir()
		} else {
			v = pyPath{}
		}
	}
	if f.is(i, pylex.Op, "[") {
		v, i = pyPath{}, f.skip(i+1)+1
	}
	return v, i
}

// listing records the listing a call makes: glob.glob(pattern),
// os.listdir(dir), os.scandir(dir), os.walk(dir), and on a path
// (recv) .glob(pattern), .rglob(pattern), .iterdir().
func (f *pyFile) listing(name string, recv pyPath, args []pyPath, kw map[string]pyPath) {
	if !pyListers[name] {
		return
	}
	arg := pyPath{}
	if len(args) > 0 {
		arg = args[0]
	}
	for _, k := range []string{"pathname", "pattern", "path", "top"} {
		if !arg.ok {
			arg = kw[k]
		}
	}
	if recv.ok { // a method of a path
		switch name {
		case "glob", "rglob":
			if !arg.whole {
				arg = pyPath{ok: true, whole: true, s: "*"}
			}
			f.lists = append(f.lists, pyListing{pattern: recv.join(arg), recursive: name == "rglob"})
		case "iterdir":
			f.lists = append(f.lists, pyListing{pattern: recv.join(pyPath{ok: true, whole: true, s: "*"})})
		}
		return
	}
	switch name {
	case "glob", "iglob":
		f.lists = append(f.lists, pyListing{pattern: arg, recursive: arg.whole && strings.Contains(arg.s, "**")})
	case "listdir", "scandir", "walk":
		if arg.ok {
			f.lists = append(f.lists, pyListing{pattern: arg.join(pyPath{ok: true, whole: true, s: "*"}), recursive: name == "walk"})
		}
	}
}

// pyKeywords are the words that may stand before a parenthesis without
// calling it.
var pyKeywords = map[string]bool{
	"in": true, "and": true, "or": true, "not": true, "is": true, "return": true, "yield": true, "await": true,
	"if": true, "elif": true, "else": true, "while": true, "for": true, "lambda": true, "assert": true, "del": true,
}

// chainStart is the first token of the expression whose attribute or
// method is the name at token i: a.b(…).c at c is a.
func (f *pyFile) chainStart(i int) int {
	for n := 0; f.is(i-1, pylex.Op, ".") && n < pyWork; n++ {
		k := i - 2
		if f.is(k, pylex.Op, ")") || f.is(k, pylex.Op, "]") {
			depth := 0
			for ; k >= 0 && !f.end(k); k-- {
				if f.toks[k].Kind == pylex.Op {
					switch f.text(k) {
					case ")", "]":
						depth++
					case "(", "[":
						depth--
					}
				}
				if depth == 0 {
					break
				}
			}
			if k < 0 || f.end(k) {
				return i
			}
			if f.is(k-1, pylex.Name, "") && !pyKeywords[f.text(k-1)] {
				k--
			}
		}
		if !f.is(k, pylex.Name, "") && !f.is(k, pylex.Op, "(") {
			return i
		}
		i = k
	}
	return i
}

// pyCall is the path a call of the path functions returns.
func pyCall(name string, args []pyPath) pyPath {
	switch name {
	case "Path", "PurePath", "PosixPath", "join":
		if len(args) == 0 {
			return pyPath{}
		}
		v := args[0]
		for _, a := range args[1:] {
			v = v.join(a)
		}
		return v
	case "dirname":
		if len(args) == 1 {
			return args[0].dir()
		}
	case "abspath", "realpath", "normpath", "expanduser", "fspath", "str":
		if len(args) == 1 {
			return args[0]
		}
	case "getcwd", "cwd":
		return pyPath{ok: true, whole: true, s: "."}
	}
	return pyPath{}
}
