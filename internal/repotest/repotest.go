// Package repotest builds small repositories with .rlxp/ state for the
// tests of the packages that read it.
package repotest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/state"
)

// Repo writes files (paths relative to the root) into a fresh temporary
// repository that has .rlxp/, and opens it from its root.
func Repo(tb testing.TB, files map[string]string) *state.Repo {
	tb.Helper()
	root := tb.TempDir()
	if err := os.Mkdir(filepath.Join(root, state.DirName), 0o755); err != nil {
		tb.Fatal(err)
	}
	Write(tb, root, files)
	r, err := state.Open(root, root)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// Write writes files (paths relative to root), making their directories.
func Write(tb testing.TB, root string, files map[string]string) {
	tb.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// Adapter is an adapter.yaml whose train command takes {seed} and
// {run_dir}, declaring the metric sources given, each a line such as
// `train: {path: "{run_dir}/progress.csv", format: csv}`.
func Adapter(sources ...string) string {
	return `schema: rlxp.adapter/v1
project: t
commands:
  train: "python train.py --seed {seed} --out {run_dir}"
config:
  system: json
  default: c.json
  override: "--set {name}={value}"
metrics:
  sources:
    ` + strings.Join(sources, "\n    ") + `
runtime:
  python: python3
  imports: []
  ports: []
`
}

// Record is rec as its run.json.
func Record(tb testing.TB, rec runs.Record) string {
	tb.Helper()
	b, err := json.Marshal(rec)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// Contract is the end-to-end scripts' contract.yaml
// (cmd/rlxp/testdata/fixtures), a complete CartPole contract.
func Contract(tb testing.TB) []byte {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("repotest: cannot tell where the fixtures are")
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "cmd", "rlxp", "testdata", "fixtures", "contract.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
