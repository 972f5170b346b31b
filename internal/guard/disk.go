package guard

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Limits on what the guard reads from disk for one decision: a file that
// a command runs is read when the hook decides, so that a launcher saved
// by an earlier tool call is judged by what it holds.
const (
	maxScript    = 4 << 20 // bytes of one file; a larger text file is refused as unreadable
	maxDiskFiles = 64      // files read in all; more are refused as unverifiable
)

// followDisk follows a file that a command runs and that the command line
// did not write: its text, read now, runs as the command's own would. A
// binary program is not read; it is judged by its name and arguments.
//
// lang is the language the command runs it as: "python", an interpreter
// of another language (node, perl, ruby, Rscript, php), or "" for a
// program run by its path, whose #! line says (a shell script without one).
func (a *analyzer) followDisk(c call, path, lang string, sc *scope, depth int) {
	if a.read[path] {
		return // a script that runs itself, or one met twice
	}
	text, state := a.readScript(path)
	switch state {
	case fileAbsent, fileBinary:
		return
	case fileTooMany, fileTooLarge, fileUnreadable:
		why := map[fileState]string{
			fileTooMany:    "what " + path + " runs (the command runs more than " + strconv.Itoa(maxDiskFiles) + " scripts for the guard to read)",
			fileTooLarge:   "what " + path + " runs (it is larger than the guard reads)",
			fileUnreadable: "what " + path + " runs (the guard cannot read it)",
		}[state]
		a.opaque(path, why, c.text, sc)
		return
	}
	inner := sc.with(c.dirs)
	inner.stdin = input{}
	inner.fromDisk = true
	inner.via = chain(sc.via, quote(c.text)+" runs "+shownPath(path, c.dirs)+", which runs")
	first, _, _ := strings.Cut(text, "\n")
	interp := lang
	if strings.HasPrefix(first, "#!") && interp == "" {
		interp = interpreter(first)
	}
	switch {
	case isPython(interp):
		a.python(text, path, nil, true, inner, depth+1)
	case foreignLang(interp):
		a.foreign(text, interp, inner, depth+1)
	case interp == "" || isShell(interp):
		inner.vars = positional(path, c)
		a.source(selfDir(text, filepath.Dir(path)), depth+1, inner)
	}
}

// shownPath is a path as a reason shows it: relative to the directory
// the command runs in, when it lies there.
func shownPath(path string, dirs []string) string {
	for _, d := range dirs {
		if r, err := filepath.Rel(d, path); d != "" && err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return path
}

type fileState int

const (
	fileText fileState = iota
	fileAbsent
	fileBinary
	fileTooLarge
	fileTooMany
	fileUnreadable
)

// readScript reads a text file a command runs: absent when it is no
// regular file, binary when its first bytes say it is a program.
func (a *analyzer) readScript(path string) (string, fileState) {
	if a.noDisk {
		return "", fileAbsent
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", fileAbsent
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fileUnreadable
	}
	defer f.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", fileUnreadable
	}
	if bytes.IndexByte(head[:n], 0) >= 0 || bytes.HasPrefix(head[:n], []byte("\x7fELF")) {
		return "", fileBinary
	}
	if fi.Size() > maxScript {
		return "", fileTooLarge
	}
	if len(a.read) >= maxDiskFiles {
		return "", fileTooMany
	}
	if a.read == nil {
		a.read = map[string]bool{}
	}
	a.read[path] = true
	rest, err := io.ReadAll(io.LimitReader(f, maxScript))
	if err != nil {
		return "", fileUnreadable
	}
	return string(head[:n]) + string(rest), fileText
}

// interpreter is the program a #! line names (env's argument for
// #!/usr/bin/env python3).
func interpreter(line string) string {
	f := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(f) == 0 {
		return ""
	}
	name := filepath.Base(f[0])
	if name == "env" {
		for _, w := range f[1:] {
			if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
				return filepath.Base(w)
			}
		}
		return ""
	}
	return name
}

// positional gives a script its arguments: $0 and $1 … as the command
// passes them, where the guard can resolve them.
func positional(path string, c call) map[string]string {
	vars := map[string]string{"0": path}
	for i, w := range c.argv[1:] {
		if !c.exact[i+1] {
			break
		}
		vars[strconv.Itoa(i+1)] = w
	}
	return vars
}

// selfDirRe matches the ways a shell script names its own directory:
// $(dirname "$0"), $(dirname "${BASH_SOURCE[0]}"), and the same inside
// $(cd … && pwd).
var (
	dirnameRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\$\(\s*dirname\s+(?:--\s+)?"?\$(?:0|\{0\}|\{BASH_SOURCE(?:\[0\])?\}|BASH_SOURCE)"?\s*\)`)
	})
	cdPwdRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\$\(\s*(?:builtin\s+)?cd\s+(?:-P\s+)?(?:--\s+)?"?(/[^"$]*)"?\s*(?:(?:>\s*/dev/null|&>\s*/dev/null|2>&1|>/dev/null)\s*)*&&\s*pwd(?:\s+-P)?\s*\)`)
	})
)

// selfDir writes a script's own directory into the idioms that compute
// it, so that the commands it runs from there can be read.
func selfDir(text, dir string) string {
	if !strings.Contains(text, "dirname") {
		return text
	}
	text = dirnameRe().ReplaceAllLiteralString(text, shellQuote(dir))
	return cdPwdRe().ReplaceAllString(text, "$1")
}

// diskFile is a file a command runs that the command line did not write,
// resolved in each directory it may run in; "" when there is none.
func diskFiles(file string, dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if d == "" && !filepath.IsAbs(file) {
			continue
		}
		p := resolve(file, d)
		if !strings.ContainsAny(p, "{$") {
			out = append(out, p)
		}
	}
	return out
}
