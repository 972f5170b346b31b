// Package scaffold creates the .rlxp/ state of a repository: commented
// starting files from the embedded templates, an empty ledger, runs/ and a
// .gitignore. It never overwrites a file that exists.
package scaffold

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/templates"
)

// Schema is the schema of 'init --json'.
const Schema = "rlxp.init/v1"

// Actions on a file.
const (
	Created = "created"
	Kept    = "kept"
)

// A File is one file init writes and what it did with it.
type File struct {
	Path   string `json:"path"`
	Action string `json:"action"` // created | kept
}

// A Result is what Init did.
type Result struct {
	Schema  string `json:"schema"`
	Root    string `json:"root"`
	Project string `json:"project"`
	Files   []File `json:"files"`
}

// Project is a project name made of a directory's name: the characters an
// id may not hold become '-', at most 64 of them, "project" for none.
func Project(dir string) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '-'
	}, dir)
	s = strings.TrimLeft(s, "._-")
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		return "project"
	}
	return s
}

// Init creates the files .rlxp/ lacks, with project written into the
// templates. A fresh .rlxp appears whole or not at all; in an existing one
// a failed write removes the files this call created.
func Init(r *state.Repo, project string) (Result, error) {
	fi, err := os.Stat(r.Root)
	if err != nil {
		return Result{}, fmt.Errorf("init: %w", err)
	}
	if !fi.IsDir() {
		return Result{}, fmt.Errorf("init: %s is not a directory", r.Display(""))
	}
	files, err := seeds(project)
	if err != nil {
		return Result{}, err
	}
	created, err := write(r, files)
	if err != nil {
		return Result{}, err
	}
	res := Result{Schema: Schema, Root: r.Root, Project: project}
	for _, f := range files {
		action := Kept
		if created[f.name] {
			action = Created
		}
		res.Files = append(res.Files, File{Path: r.Show(f.name), Action: action})
	}
	return res, nil
}

type seed struct {
	name string
	data []byte // nil for a directory
}

func seeds(project string) ([]seed, error) {
	var files []seed
	for _, name := range []string{state.Adapter, state.Contract, state.Experiments, state.Report} {
		b, err := fs.ReadFile(templates.FS, name)
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		files = append(files, seed{name, []byte(strings.ReplaceAll(string(b), "{{project}}", project))})
	}
	return append(files,
		seed{state.Ledger, []byte{}},
		seed{".gitignore", []byte("# Run logs and the lock stay local; the ledger and contract are reviewed in git.\nruns/\n.lock\n")},
		seed{state.Runs, nil},
	), nil
}

// write creates the missing files. A fresh .rlxp is built in a temporary
// sibling directory and renamed into place, so it appears whole or not at
// all; an existing one gets its missing files one by one, and those are
// removed again if any write fails.
func write(r *state.Repo, files []seed) (map[string]bool, error) {
	created := map[string]bool{}
	if _, err := os.Stat(r.Dir()); errors.Is(err, os.ErrNotExist) {
		tmp, err := os.MkdirTemp(r.Root, state.DirName+".init-*")
		if err != nil {
			return nil, fmt.Errorf("init: %w", err)
		}
		for _, f := range files {
			if err := f.write(filepath.Join(tmp, f.name)); err != nil {
				os.RemoveAll(tmp)
				return nil, fmt.Errorf("init: %w", err)
			}
			created[f.name] = true
		}
		if err := os.Chmod(tmp, 0o755); err != nil {
			os.RemoveAll(tmp)
			return nil, fmt.Errorf("init: %w", err)
		}
		if err := os.Rename(tmp, r.Dir()); err == nil {
			return created, state.SyncDir(r.Root)
		}
		// Another init won the race; fill in whatever it lacks.
		os.RemoveAll(tmp)
		clear(created)
	} else if err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	for _, f := range files {
		path := r.Path(f.name)
		if _, err := os.Lstat(path); err == nil {
			continue
		}
		if err := f.write(path); err != nil {
			for name := range created {
				os.RemoveAll(r.Path(name))
			}
			return nil, fmt.Errorf("init: %w", err)
		}
		created[f.name] = true
	}
	return created, nil
}

func (f seed) write(path string) error {
	if f.data == nil {
		return os.Mkdir(path, 0o755)
	}
	return state.WriteFile(path, f.data, 0o644)
}
