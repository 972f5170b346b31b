package audit

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// library is an installed copy of a framework's packages, found in a
// virtual environment in or beside the repository.
type library struct {
	dirs []string // package directories, absolute
}

// installed finds the profile's packages in site-packages of a virtual
// environment in the repository (.venv, venv, env) or beside it.
func (a *assembler) installed(p Profile) library {
	var lib library
	root := a.rep.Root
	var sites []string
	for _, base := range []string{root, filepath.Dir(root)} {
		for _, venv := range []string{".venv", "venv", "env", ".env"} {
			m, _ := filepath.Glob(filepath.Join(base, venv, "lib", "python*", "site-packages"))
			sites = append(sites, m...)
		}
	}
	for _, site := range sites {
		for _, pkg := range p.Vendor {
			d := filepath.Join(site, pkg)
			if st, err := os.Stat(d); err == nil && st.IsDir() {
				lib.dirs = append(lib.dirs, d)
			}
		}
	}
	return lib
}

// find returns where the library writes the tag as a string literal.
func (l library) find(tag string) (Evidence, bool) {
	quoted := []string{`"` + tag + `"`, `'` + tag + `'`}
	var found Evidence
	ok := false
	for _, d := range l.dirs {
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || ok {
				return fs.SkipDir
			}
			if e.IsDir() || !strings.HasSuffix(p, ".py") {
				return nil
			}
			fh, err := os.Open(p)
			if err != nil {
				return nil
			}
			defer fh.Close()
			sc := bufio.NewScanner(fh)
			sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
			for n := 1; sc.Scan(); n++ {
				line := sc.Text()
				if strings.Contains(line, quoted[0]) || strings.Contains(line, quoted[1]) {
					found, ok = Evidence{File: p, Line: n, Text: snippet(line)}, true
					return fs.SkipAll
				}
			}
			return nil
		})
		if ok {
			return found, true
		}
	}
	return Evidence{}, false
}
