package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/templates"
)

type initOptions struct {
	root    string
	project string
	json    bool
}

func newInitCmd() *Command {
	var o initOptions
	fs := pflag.NewFlagSet("init", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.StringVar(&o.project, "project", "", "project `NAME` written into the templates (default: the directory name)")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp init [--root DIR] [--project NAME] [--json]",
		Short:     "create .rlxp/ state in a target repository",
		Long: `Init creates .rlxp/ in the target repository (--root, default the current
directory) with commented starting files: adapter.yaml, contract.yaml,
experiments.yaml, report.md, an empty ledger.jsonl, runs/ and a .gitignore
that keeps run logs and the lock file out of version control.

Init is idempotent: files that exist are kept and reported, never
overwritten. Nothing is written outside --root. When .rlxp/ does not exist
yet it appears whole or not at all.

EXIT STATUS
  0  created or kept every file
  1  the root is missing or not writable; nothing was left behind
  2  usage error`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runInit(env, &o, args)
		},
	}
}

// initFile is one file init writes and what it did with it.
type initFile struct {
	Path   string `json:"path"`
	Action string `json:"action"` // created | kept
}

type initResult struct {
	Schema  string     `json:"schema"`
	Root    string     `json:"root"`
	Project string     `json:"project"`
	Files   []initFile `json:"files"`
}

func runInit(env *Env, o *initOptions, args []string) error {
	if len(args) > 0 {
		return usagef("init takes no arguments (use --root DIR)")
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	fi, err := os.Stat(r.Root)
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("init: %s is not a directory", o.root)
	}
	project := o.project
	if project == "" {
		project = sanitizeProject(filepath.Base(r.Root))
	}
	if !state.ValidName(project) {
		return usagef("invalid --project %q: use 1-64 letters, digits, '.', '_' or '-'", project)
	}
	files, err := initialFiles(project)
	if err != nil {
		return err
	}
	res := initResult{Schema: "rlxp.init/v1", Root: r.Root, Project: project}
	created, err := writeInitial(r, files)
	if err != nil {
		return err
	}
	for _, f := range files {
		action := "kept"
		if created[f.name] {
			action = "created"
		}
		res.Files = append(res.Files, initFile{Path: r.Show(f.name), Action: action})
	}
	if o.json {
		return writeJSON(env.Stdout, res)
	}
	rows := make([][]string, len(res.Files))
	for i, f := range res.Files {
		rows[i] = []string{f.Action, f.Path}
	}
	printTable(env, []string{"ACTION", "PATH"}, rows)
	if env.StdoutTTY {
		fmt.Fprintf(env.Stdout, "\nNext: draft %s, then check it with 'rlxp contract validate'.\n", r.Show(state.Contract))
	}
	return nil
}

func sanitizeProject(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '-'
	}, s)
	s = strings.TrimLeft(s, "._-")
	if len(s) > 64 {
		s = s[:64]
	}
	if s == "" {
		return "project"
	}
	return s
}

type seedFile struct {
	name string
	data []byte // nil for a directory
}

func initialFiles(project string) ([]seedFile, error) {
	var files []seedFile
	for _, name := range []string{state.Adapter, state.Contract, state.Experiments, state.Report} {
		b, err := fs.ReadFile(templates.FS, name)
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", name, err)
		}
		files = append(files, seedFile{name, []byte(strings.ReplaceAll(string(b), "{{project}}", project))})
	}
	return append(files,
		seedFile{state.Ledger, []byte{}},
		seedFile{".gitignore", []byte("# Run logs and the lock stay local; the ledger and contract are reviewed in git.\nruns/\n.lock\n")},
		seedFile{state.Runs, nil},
	), nil
}

// writeInitial creates the missing files. A fresh .rlxp is built in a
// temporary sibling directory and renamed into place, so it appears whole
// or not at all; an existing one gets its missing files one by one, and
// those are removed again if any write fails.
func writeInitial(r *state.Repo, files []seedFile) (map[string]bool, error) {
	created := map[string]bool{}
	if _, err := os.Stat(r.Dir()); errors.Is(err, os.ErrNotExist) {
		tmp, err := os.MkdirTemp(r.Root, state.DirName+".init-*")
		if err != nil {
			return nil, fmt.Errorf("init: %w", err)
		}
		for _, f := range files {
			if err := writeSeed(filepath.Join(tmp, f.name), f); err != nil {
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
		if err := writeSeed(path, f); err != nil {
			for name := range created {
				os.RemoveAll(r.Path(name))
			}
			return nil, fmt.Errorf("init: %w", err)
		}
		created[f.name] = true
	}
	return created, nil
}

func writeSeed(path string, f seedFile) error {
	if f.data == nil {
		return os.Mkdir(path, 0o755)
	}
	return state.WriteFile(path, f.data, 0o644)
}
