package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/state"
)

const experiments = `schema: rlxp.experiments/v1
experiments:
  - id: wide
    status: proposed
    seeds: [0, 1]
    wall_clock: 20m
`

func repo(t *testing.T, files map[string]string) *state.Repo {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, state.DirName, state.Runs), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(root, state.DirName, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := state.Open(root, root)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestContractUnapprovedWithoutLog(t *testing.T) {
	data, err := os.ReadFile("../../examples/drafts/cartpole/contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := repo(t, map[string]string{state.Contract: string(data)})
	l, err := Contract(r)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Decoded {
		t.Errorf("example contract does not decode: %v", l.Findings)
	}
	// Approvals come from the log alone: with no log, nothing is approved.
	st := l.Status()
	if st.Approved || len(st.Sections) == 0 {
		t.Errorf("approved %v with %d sections, want unapproved", st.Approved, len(st.Sections))
	}
	for _, s := range st.Sections {
		if s.State != contract.Unapproved {
			t.Errorf("section %s is %s without an approvals log, want %s", s.Section, s.State, contract.Unapproved)
		}
	}
}

func TestExperimentsRoundTrip(t *testing.T) {
	r := repo(t, map[string]string{state.Experiments: experiments})
	set, e, err := Experiment(r, "wide")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{0, 1}, e.Seeds); diff != "" {
		t.Errorf("seeds (-want +got):\n%s", diff)
	}
	if err := SaveExperiments(r, set); err != nil {
		t.Fatal(err)
	}
	again, err := Experiments(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Experiments) != 1 || again.Experiments[0].ID != "wide" {
		t.Errorf("after save: %+v", again.Experiments)
	}
	if _, _, err := Experiment(r, "narrow"); err == nil || !strings.Contains(err.Error(), "narrow") {
		t.Errorf("unknown id: err %v", err)
	}
}

func TestMissingFilesNameTheFile(t *testing.T) {
	r := repo(t, nil)
	for name, read := range map[string]func() error{
		state.Contract:    func() error { _, err := Contract(r); return err },
		state.Experiments: func() error { _, err := Experiments(r); return err },
	} {
		if err := read(); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("missing %s: err %v", name, err)
		}
	}
}

func TestRunsEmpty(t *testing.T) {
	recs, err := Runs(context.Background(), repo(t, nil))
	if err != nil || len(recs) != 0 {
		t.Errorf("no runs: %v, %v", recs, err)
	}
}
