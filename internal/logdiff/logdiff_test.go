package logdiff

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/repotest"
	"github.com/rlxp/rlxp/internal/state"
)

// repo is a git repository with .rlxp/ledger.jsonl holding n entries,
// committed as "base".
func repo(t *testing.T, n int) *state.Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("ledger diff reads the base with git, which is not on PATH")
	}
	r := repotest.Repo(t, nil)
	root := r.Root
	appendN(t, r, n)
	git(t, root, "init", "-q")
	git(t, root, "add", "-A")
	git(t, root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base")
	git(t, root, "tag", "base")
	return r
}

func appendN(t *testing.T, r *state.Repo, n int) {
	t.Helper()
	for i := range n {
		body := map[string]any{"experiment": "e", "verdict": "improved", "primary": map[string]any{"name": "m", "mean": i}}
		if _, err := ledger.Append(r.Path(state.Ledger), body, time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
	}
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, r *state.Repo)
		ok     bool
		base   int
		new    int
		text   string // a line the text holds
	}{{
		name:   "grown by two",
		change: func(t *testing.T, r *state.Repo) { appendN(t, r, 2) },
		ok:     true, base: 2, new: 2,
		text: "### rlxp ledger: 2 new entries",
	}, {
		name:   "unchanged",
		change: func(*testing.T, *state.Repo) {},
		ok:     true, base: 2,
		text: "### rlxp approvals: none added",
	}, {
		name: "an entry removed",
		change: func(t *testing.T, r *state.Repo) {
			data, _ := os.ReadFile(r.Path(state.Ledger))
			first, _, _ := strings.Cut(string(data), "\n")
			if err := os.WriteFile(r.Path(state.Ledger), []byte(first+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		text: ".rlxp/ledger.jsonl:2: the base has 2 lines, the head only 1: entries were removed; the ledger is append-only, but .rlxp/ledger.jsonl does not extend base:.rlxp/ledger.jsonl",
	}, {
		name: "an approvals log that does not verify",
		change: func(t *testing.T, r *state.Repo) {
			if err := os.WriteFile(r.Path(state.Approvals), []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		text: ".rlxp/approvals.jsonl:1: ",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := repo(t, 2)
			tt.change(t, r)
			res, err := Diff(context.Background(), r, "base")
			if err != nil {
				t.Fatal(err)
			}
			got := struct {
				OK, Problem bool
				Base, New   int
			}{res.OK, res.Problem != nil, res.BaseEntries, len(res.New)}
			want := struct {
				OK, Problem bool
				Base, New   int
			}{tt.ok, !tt.ok, tt.base, tt.new}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !strings.Contains(res.Text(), tt.text) {
				t.Errorf("text lacks %q:\n%s", tt.text, res.Text())
			}
		})
	}
}

func TestDiffErrors(t *testing.T) {
	r := repo(t, 1)
	if _, err := Diff(context.Background(), r, "nosuch"); err == nil || !strings.HasPrefix(err.Error(), "base nosuch: git cat-file: ") {
		t.Errorf("unknown ref: %v", err)
	}
	plain, err := state.Open(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(plain.Root))
	if _, err := Diff(context.Background(), plain, "main"); err == nil || !strings.HasPrefix(err.Error(), "git rev-parse: ") {
		t.Errorf("outside git: %v", err)
	}
}
