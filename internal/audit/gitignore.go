package audit

import (
	"bytes"
	"strings"
)

// An ignoreRule is one pattern line of a .gitignore file, compiled the way
// git reads it (gitignore(5), dir.c): a pattern without a slash matches a
// name at any depth, one with a slash matches the path relative to the
// file's directory, a trailing slash matches directories only, and a
// leading '!' re-includes.
type ignoreRule struct {
	pattern  string // wildmatch pattern, without '!', leading '/' or trailing '/'
	negate   bool
	dirOnly  bool
	basename bool // no slash in the pattern: match the last path element only
	line     int
	// Most patterns are a literal name or "*.ext": those skip the
	// general matcher, which every walked entry would otherwise run
	// against every rule.
	fast fastKind
	lit  string
}

type fastKind uint8

const (
	fastNone   fastKind = iota
	fastExact           // the pattern is literal
	fastSuffix          // "*" then a literal
)

// parseIgnore reads the patterns of one .gitignore file.
func parseIgnore(data []byte) []ignoreRule {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var rules []ignoreRule
	for n := 1; len(data) > 0; n++ {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			line, data = data, nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if r, ok := compileIgnore(string(line)); ok {
			r.line = n
			rules = append(rules, r)
		}
	}
	return rules
}

// compileIgnore turns one line into a rule; blank lines and comments give
// none.
func compileIgnore(p string) (ignoreRule, bool) {
	if p == "" || p[0] == '#' {
		return ignoreRule{}, false
	}
	p = trimTrailingSpaces(p)
	var r ignoreRule
	if p != "" && p[0] == '!' {
		r.negate = true
		p = p[1:]
	}
	if p == "" {
		return ignoreRule{}, false
	}
	if strings.HasSuffix(p, "/") {
		r.dirOnly = true
		p = strings.TrimRight(p, "/")
		if p == "" {
			return ignoreRule{}, false // "/" alone matches nothing
		}
	}
	r.basename = !strings.Contains(p, "/")
	r.pattern = strings.TrimPrefix(p, "/")
	switch {
	case !strings.ContainsAny(r.pattern, `*?[\`):
		r.fast, r.lit = fastExact, r.pattern
	case r.pattern[0] == '*' && !strings.ContainsAny(r.pattern[1:], `*?[\/`):
		r.fast, r.lit = fastSuffix, r.pattern[1:]
	}
	return r, true
}

// trimTrailingSpaces drops unescaped trailing spaces, as git does; a
// backslash keeps the space after it.
func trimTrailingSpaces(p string) string {
	end := len(p)
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case ' ':
			if end == len(p) {
				end = i
			}
			continue
		case '\\':
			i++
		}
		end = len(p)
	}
	return p[:end]
}

// matches reports whether the rule matches rel, a slash-separated path
// relative to the directory holding the .gitignore file.
func (r *ignoreRule) matches(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	if r.basename {
		name := rel
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			name = rel[i+1:]
		}
		return r.match(name)
	}
	return r.match(rel)
}

func (r *ignoreRule) match(s string) bool {
	switch r.fast {
	case fastExact:
		return s == r.lit
	case fastSuffix:
		// "*" stops at a slash.
		return strings.HasSuffix(s, r.lit) && !strings.Contains(s[:len(s)-len(r.lit)], "/")
	}
	return wildmatch(r.pattern, s)
}

// An ignoreFile is the rules of one .gitignore and the directory (relative
// to the walk's root, "" for the root) they apply under. Rules on a
// literal name or an extension (*.log) are indexed, so that deciding a
// path costs a few lookups plus a pass over the remaining rules.
type ignoreFile struct {
	dir   string
	rules []ignoreRule
	names map[string][]int // literal base name -> rule indices, ascending
	exts  map[string][]int // ".log" -> indices of "*.log" rules
	rest  []int            // every other rule
}

func newIgnoreFile(dir string, rules []ignoreRule) ignoreFile {
	f := ignoreFile{dir: dir, rules: rules, names: map[string][]int{}, exts: map[string][]int{}}
	for i, r := range rules {
		switch {
		case r.basename && r.fast == fastExact:
			f.names[r.lit] = append(f.names[r.lit], i)
		case r.basename && r.fast == fastSuffix && strings.LastIndexByte(r.lit, '.') == 0:
			f.exts[r.lit] = append(f.exts[r.lit], i)
		default:
			f.rest = append(f.rest, i)
		}
	}
	return f
}

// decide returns the index of the last rule matching sub, or -1.
func (f *ignoreFile) decide(sub string, isDir bool) int {
	best := -1
	name := sub[strings.LastIndexByte(sub, '/')+1:]
	try := func(idx []int) {
		for j := len(idx) - 1; j >= 0 && idx[j] > best; j-- {
			if f.rules[idx[j]].matches(sub, isDir) {
				best = idx[j]
				return
			}
		}
	}
	try(f.names[name])
	if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
		try(f.exts[name[dot:]])
	}
	try(f.rest)
	return best
}

// ignored decides rel (relative to the walk's root) against a stack of
// files, outermost first: the last matching pattern of the innermost file
// that has one decides, as in git.
func ignored(stack []ignoreFile, rel string, isDir bool) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		f := &stack[i]
		sub := rel
		if f.dir != "" {
			sub = strings.TrimPrefix(rel, f.dir+"/")
		}
		if j := f.decide(sub, isDir); j >= 0 {
			return !f.rules[j].negate
		}
	}
	return false
}

// wildmatch matches text against a shell glob the way git's wildmatch does
// with WM_PATHNAME: '*' and '?' stop at '/', "**" between slashes (or at
// either end) crosses directories, [...] classes take '!' or '^' for
// negation, ranges and [:alpha:]-style names, and '\' quotes.
func wildmatch(pattern, text string) bool {
	return dowild(pattern, text) == wmMatch
}

const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// dowild is a port of dowild() in git's wildmatch.c.
func dowild(p, text string) int {
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc := p[pi]
		if ti >= len(text) && pc != '*' {
			return wmAbortAll
		}
		var tc byte
		if ti < len(text) {
			tc = text[ti]
		}
		switch pc {
		case '\\':
			// A trailing backslash matches nothing.
			pi++
			if pi >= len(p) || tc != p[pi] {
				return wmNoMatch
			}
		default:
			if tc != pc {
				return wmNoMatch
			}
		case '?':
			if tc == '/' {
				return wmNoMatch
			}
		case '*':
			matchSlash := false
			pi++
			if pi < len(p) && p[pi] == '*' {
				prev := pi - 2
				for pi < len(p) && p[pi] == '*' {
					pi++
				}
				if (prev < 0 || p[prev] == '/') &&
					(pi == len(p) || p[pi] == '/' || (p[pi] == '\\' && pi+1 < len(p) && p[pi+1] == '/')) {
					// "**/" also matches no directory at all.
					if pi < len(p) && p[pi] == '/' && dowild(p[pi+1:], text[ti:]) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				}
			}
			if pi == len(p) {
				// A trailing "**" matches everything, a trailing "*" only
				// what has no more slashes.
				if !matchSlash && strings.IndexByte(text[ti:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			}
			if !matchSlash && p[pi] == '/' {
				// One star then a slash: skip to the next directory.
				slash := strings.IndexByte(text[ti:], '/')
				if slash < 0 {
					return wmNoMatch
				}
				ti += slash
				continue // the loop consumes the slash on both sides
			}
			for {
				if ti >= len(text) {
					break
				}
				// Skip quickly to the next place the literal after the
				// star can match.
				if !globSpecial(p[pi]) {
					lit := p[pi]
					for ti < len(text) && (matchSlash || text[ti] != '/') && text[ti] != lit {
						ti++
					}
					if ti >= len(text) || text[ti] != lit {
						if matchSlash {
							return wmAbortAll
						}
						return wmAbortToStarStar
					}
				}
				m := dowild(p[pi:], text[ti:])
				if m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && text[ti] == '/' {
					return wmAbortToStarStar
				}
				ti++
			}
			return wmAbortAll
		case '[':
			m, next, ok := matchClass(p, pi, tc)
			if !ok {
				return wmAbortAll
			}
			if !m || tc == '/' {
				return wmNoMatch
			}
			pi = next
		}
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

func globSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

// matchClass matches tc against the bracket expression starting at p[pi]
// ('['). It returns whether it matched, the index of the closing ']', and
// false when the expression is malformed (which fails the whole match, as
// in git).
func matchClass(p string, pi int, tc byte) (matched bool, end int, ok bool) {
	at := func(i int) byte {
		if i < len(p) {
			return p[i]
		}
		return 0
	}
	pi++
	pc := at(pi)
	negated := false
	if pc == '!' || pc == '^' {
		negated = true
		pi++
		pc = at(pi)
	}
	var prev byte
	for {
		if pc == 0 {
			return false, 0, false
		}
		switch {
		case pc == '\\':
			pi++
			pc = at(pi)
			if pc == 0 {
				return false, 0, false
			}
			if tc == pc {
				matched = true
			}
		case pc == '-' && prev != 0 && at(pi+1) != 0 && at(pi+1) != ']':
			pi++
			pc = at(pi)
			if pc == '\\' {
				pi++
				pc = at(pi)
				if pc == 0 {
					return false, 0, false
				}
			}
			if tc <= pc && tc >= prev {
				matched = true
			}
			pc = 0 // a range is not the start of another
		case pc == '[' && at(pi+1) == ':':
			start := pi + 2
			i := start
			for i < len(p) && p[i] != ']' {
				i++
			}
			if i >= len(p) {
				return false, 0, false
			}
			if i-start-1 < 0 || p[i-1] != ':' {
				// No ":]": a plain '['.
				if tc == '[' {
					matched = true
				}
				pc = '['
				break
			}
			in, known := inClass(p[start:i-1], tc)
			if !known {
				return false, 0, false
			}
			if in {
				matched = true
			}
			pi = i
			pc = 0
		default:
			if tc == pc {
				matched = true
			}
		}
		prev = pc
		pi++
		pc = at(pi)
		if pc == ']' {
			break
		}
	}
	return matched != negated, pi, true
}

// inClass reports whether c is in the named POSIX class, and whether the
// name is one.
func inClass(name string, c byte) (in, known bool) {
	switch name {
	case "alnum":
		return isAlpha(c) || isDigit(c), true
	case "alpha":
		return isAlpha(c), true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return isDigit(c), true
	case "graph":
		return c > 0x20 && c < 0x7f, true
	case "lower":
		return c >= 'a' && c <= 'z', true
	case "print":
		return c >= 0x20 && c < 0x7f, true
	case "punct":
		return c > 0x20 && c < 0x7f && !isAlpha(c) && !isDigit(c), true
	case "space":
		return c == ' ' || (c >= '\t' && c <= '\r'), true
	case "upper":
		return c >= 'A' && c <= 'Z', true
	case "xdigit":
		return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
