package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/state"
)

func TestProject(t *testing.T) {
	for _, tt := range []struct{ dir, want string }{
		{"cartpole", "cartpole"},
		{"my repo (v2)", "my-repo--v2-"},
		{"._hidden", "hidden"},
		{"...", "project"},
		{"é", "project"},
		{"aé", "a-"},
		{strings.Repeat("a", 70), strings.Repeat("a", 64)},
	} {
		if got := Project(tt.dir); got != tt.want {
			t.Errorf("Project(%q) = %q, want %q", tt.dir, got, tt.want)
		}
		if !state.ValidName(Project(tt.dir)) {
			t.Errorf("Project(%q) = %q, not a valid name", tt.dir, Project(tt.dir))
		}
	}
}

func open(t *testing.T, root string) *state.Repo {
	t.Helper()
	r, err := state.Open(root, root)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func actions(res Result) map[string]string {
	out := map[string]string{}
	for _, f := range res.Files {
		out[f.Path] = f.Action
	}
	return out
}

func TestInit(t *testing.T) {
	all := []string{".rlxp/adapter.yaml", ".rlxp/contract.yaml", ".rlxp/experiments.yaml", ".rlxp/report.md", ".rlxp/ledger.jsonl", ".rlxp/.gitignore", ".rlxp/runs"}
	tests := []struct {
		name    string
		prepare func(t *testing.T, root string)
		kept    []string
	}{
		{"fresh", func(*testing.T, string) {}, nil},
		{"existing, two files kept", func(t *testing.T, root string) {
			if err := os.Mkdir(filepath.Join(root, ".rlxp"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"contract.yaml", "ledger.jsonl"} {
				if err := os.WriteFile(filepath.Join(root, ".rlxp", f), []byte("mine"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}, []string{".rlxp/contract.yaml", ".rlxp/ledger.jsonl"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			tt.prepare(t, root)
			res, err := Init(open(t, root), "demo")
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			for _, p := range all {
				want[p] = Created
			}
			for _, p := range tt.kept {
				want[p] = Kept
			}
			if d := cmp.Diff(want, actions(res)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if res.Schema != Schema || res.Project != "demo" || res.Root != root {
				t.Errorf("result %+v", res)
			}
			b, err := os.ReadFile(filepath.Join(root, ".rlxp", "contract.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if len(tt.kept) == 0 && (!strings.Contains(string(b), "demo") || strings.Contains(string(b), "{{project}}")) {
				t.Errorf("contract.yaml does not name the project:\n%s", b)
			}
			if len(tt.kept) > 0 && string(b) != "mine" {
				t.Errorf("a kept file was overwritten: %q", b)
			}
			again, err := Init(open(t, root), "demo")
			if err != nil {
				t.Fatal(err)
			}
			for p, a := range actions(again) {
				if a != Kept {
					t.Errorf("second init: %s %s", a, p)
				}
			}
		})
	}
}

func TestInitRefusesAFile(t *testing.T) {
	root := filepath.Join(t.TempDir(), "afile")
	if err := os.WriteFile(root, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := state.Open(root, filepath.Dir(root))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Init(r, "demo"); err == nil || err.Error() != "init: afile is not a directory" {
		t.Errorf("err = %v", err)
	}
}
