package contractstatus

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/schema"
	"github.com/rlxp/rlxp/internal/schema/validate"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/viewcache"
)

const experiments = `schema: rlxp.experiments/v1
experiments:
  - id: lr-sweep
    status: approved
    category: hyperparameter
    hypothesis: a smaller learning rate is steadier
    params: {lr: 1e-3, gamma: 0.99}
    seeds: [0, 1, 2]
  - id: reward-shape
    status: proposed
    category: reward
    seeds: [0, 1]
`

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "cmd", "rlxp", "testdata", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// newRepo is an initialised repository with the fixture contract and
// adapter and two experiments, nothing approved.
func newRepo(t testing.TB) *state.Repo {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, state.DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := state.Open(root, root)
	if err != nil {
		t.Fatal(err)
	}
	write(t, r, state.Contract, fixture(t, "contract.yaml"))
	write(t, r, state.Adapter, fixture(t, "adapter.yaml"))
	write(t, r, state.Experiments, []byte(experiments))
	return r
}

func write(t testing.TB, r *state.Repo, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(r.Path(name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func edit(t testing.TB, r *state.Repo, name, old, new string) {
	t.Helper()
	data, err := os.ReadFile(r.Path(name))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(old)) {
		t.Fatalf("%s has no %q", name, old)
	}
	write(t, r, name, bytes.Replace(data, []byte(old), []byte(new), 1))
}

func appendApproval(t testing.TB, r *state.Repo, kind, subject, digest string) {
	t.Helper()
	rec := approval.Record{Kind: kind, Subject: subject, Digest: digest, By: "alice", How: approval.Terminal, TTY: "/dev/pts/1", Ancestry: []string{"rlxp", "bash"}}
	if _, err := approval.LogOf(r).Append(rec, time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
}

// approveAll approves every section of the contract as it is, and the
// approved experiment as it is.
func approveAll(t testing.TB, r *state.Repo) {
	t.Helper()
	l, err := contract.Parse(validate.Schemas{}, "contract.yaml", fixture(t, "contract.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	digests, err := l.Digests(contract.Sections())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range contract.Sections() {
		appendApproval(t, r, approval.Section, s, digests[s])
	}
	set, err := experiment.Parse(validate.Schemas{}, "experiments.yaml", []byte(experiments))
	if err != nil {
		t.Fatal(err)
	}
	appendApproval(t, r, approval.Experiment, "lr-sweep", set.Experiments[0].Digest())
}

// TestRemembered: the report remembered for a repository's files is the
// report computed from them, in every state the report can show.
func TestRemembered(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, r *state.Repo)
	}{
		{"nothing approved, no log", func(t *testing.T, r *state.Repo) {}},
		{"approved", func(t *testing.T, r *state.Repo) { approveAll(t, r) }},
		{"stale section", func(t *testing.T, r *state.Repo) {
			approveAll(t, r)
			edit(t, r, state.Contract, "max_runs: 12", "max_runs: 13")
		}},
		{"schema findings", func(t *testing.T, r *state.Repo) {
			edit(t, r, state.Contract, "max_runs: 12", "max_runs: twelve")
		}},
		{"legacy approvals block", func(t *testing.T, r *state.Repo) {
			approveAll(t, r)
			edit(t, r, state.Contract, "project: cartpole\n", "project: cartpole\napprovals:\n  task: {by: bob, at: \"2026-01-01T00:00:00Z\", digest: \"sha256:"+strings.Repeat("0", 64)+"\", interactive: true}\n")
		}},
		{"log that does not verify", func(t *testing.T, r *state.Repo) {
			approveAll(t, r)
			edit(t, r, state.Approvals, `"by":"alice"`, `"by":"mallory"`)
		}},
		{"adapter failing its schema", func(t *testing.T, r *state.Repo) {
			approveAll(t, r)
			edit(t, r, state.Adapter, "python: python3", "python: [python3]")
		}},
		{"experiment edited after approval", func(t *testing.T, r *state.Repo) {
			approveAll(t, r)
			edit(t, r, state.Experiments, "lr: 1e-3", "lr: 2e-3")
		}},
		{"experiments not YAML", func(t *testing.T, r *state.Repo) {
			approveAll(t, r)
			write(t, r, state.Experiments, []byte("experiments: [\n"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			tt.setup(t, r)
			want, err := compute(read(r), validate.Schemas{})
			if err != nil {
				t.Fatal(err)
			}
			for i, how := range []string{"computed", "remembered"} {
				got, err := Of(r, validate.Cached(r))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s report (-want +got):\n%s", how, diff)
				}
				inputs, ok := read(r).inputs()
				if remembered := ok && viewcache.Of(r, view).Load(&Report{}, inputs...); !remembered {
					t.Fatalf("call %d left no report remembered", i+1)
				}
			}
		})
	}
}

// TestChangedFileComputed: a change to any file the report reads, however
// small, is reported, never the report remembered before it.
func TestChangedFileComputed(t *testing.T) {
	changes := []struct{ file, old, new string }{
		{state.Contract, "max_runs: 12", "max_runs: 13"},
		{state.Contract, "# A complete", "#A complete"}, // a comment: same report, other bytes
		{state.Approvals, "\n", "\n\n"},
		{state.Adapter, "python: python3", "python: python3.12"},
		{state.Experiments, "lr: 1e-3", "lr: 1e-2"},
	}
	for _, c := range changes {
		t.Run(c.file+" "+c.new, func(t *testing.T) {
			r := newRepo(t)
			approveAll(t, r)
			if _, err := Of(r, validate.Cached(r)); err != nil {
				t.Fatal(err)
			}
			edit(t, r, c.file, c.old, c.new)
			want, err := compute(read(r), validate.Schemas{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Of(r, validate.Cached(r))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("after the edit (-computed +reported):\n%s", diff)
			}
		})
	}
}

// TestErrorsNotRemembered: a contract that cannot be read gives its one
// positioned error on every call, and nothing is remembered for it.
func TestErrorsNotRemembered(t *testing.T) {
	r := newRepo(t)
	write(t, r, state.Contract, []byte("schema: rlxp.contract/v1\ntask: [\n"))
	for range 2 {
		_, err := Of(r, validate.Cached(r))
		if err == nil || !strings.HasPrefix(err.Error(), r.Show(state.Contract)+":") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("want one line naming %s, got %v", r.Show(state.Contract), err)
		}
	}
	if _, err := os.Stat(r.CachePath("views")); !os.IsNotExist(err) {
		t.Errorf("a report was remembered for a contract that does not parse: %v", err)
	}

	r = newRepo(t)
	if err := os.Remove(r.Path(state.Adapter)); err != nil {
		t.Fatal(err)
	}
	rep, err := Of(r, validate.Cached(r))
	if err != nil || !strings.Contains(rep.Adapter.Problem, "file is missing") {
		t.Fatalf("want the adapter's problem reported, got %+v, %v", rep.Adapter, err)
	}
	if _, err := os.Stat(r.CachePath("views")); !os.IsNotExist(err) {
		t.Errorf("a report was remembered with a file that could not be read: %v", err)
	}
}

// TestFailedCheckNotRemembered: a report computed while a schema check
// could not answer (here: verdicts that only look up, with none
// remembered for the adapter) holds that failure, and is not remembered:
// the next report, with a checker that validates, is the files' own.
func TestFailedCheckNotRemembered(t *testing.T) {
	r := newRepo(t)
	approveAll(t, r)
	if _, err := Of(r, validate.Cached(r)); err != nil { // remembers the verdicts
		t.Fatal(err)
	}
	os.RemoveAll(r.CachePath("views"))
	edit(t, r, state.Adapter, "schema: rlxp.adapter/v1", "# edited\nschema: rlxp.adapter/v1")
	rep, err := Of(r, schema.VerdictsOf(r, nil))
	if err != nil || !strings.Contains(rep.Adapter.Problem, schema.ErrNoVerdict.Error()) {
		t.Fatalf("look-up only: %+v, %v; want the miss as the adapter's problem", rep.Adapter, err)
	}
	if _, err := os.Stat(r.CachePath("views")); !os.IsNotExist(err) {
		t.Errorf("a report was remembered with a check that failed: %v", err)
	}
	rep, err = Of(r, validate.Cached(r))
	if err != nil || rep.Adapter.Problem != "" || rep.Adapter.Digest == "" {
		t.Errorf("after the miss: %+v, %v; want the adapter's material", rep.Adapter, err)
	}
}

// BenchmarkOf is the report of an approved repository, remembered.
func BenchmarkOf(b *testing.B) {
	r := newRepo(b)
	approveAll(b, r)
	if _, err := Of(r, validate.Cached(r)); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Of(r, validate.Cached(r)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompute is the same report computed from the files (the
// schema verdicts remembered), as the first call after a change does.
func BenchmarkCompute(b *testing.B) {
	r := newRepo(b)
	approveAll(b, r)
	c := validate.Cached(r)
	if _, err := compute(read(r), c); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := compute(read(r), c); err != nil {
			b.Fatal(err)
		}
	}
}
