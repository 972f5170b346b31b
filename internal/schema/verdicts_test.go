package schema

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/repotest"
	"github.com/rlxp/rlxp/internal/state"
)

// judge stands in for the validator: a document containing "many" has one
// violation; calls counts what it was asked.
type judge struct{ calls int }

func (j *judge) Check(f *document.File, name string) ([]*document.Error, error) {
	j.calls++
	if bytes.Contains(f.Data, []byte("many")) || name != Contract {
		return []*document.Error{{Path: f.Path, Line: 1, Msg: "violation"}}, nil
	}
	return []*document.Error{}, nil
}

func parse(t testing.TB, data []byte) *document.File {
	t.Helper()
	f, err := document.Parse(".rlxp/contract.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func entries(t *testing.T, r *state.Repo) []string {
	t.Helper()
	ents, err := os.ReadDir(r.CachePath(cacheName))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestVerdictsRememberPasses: a pass is remembered once and answered from
// the cache after; the answer is the one validation gives.
func TestVerdictsRememberPasses(t *testing.T) {
	r := repotest.Repo(t, nil)
	j := &judge{}
	v := VerdictsOf(r, j)
	f := parse(t, repotest.Contract(t))
	want := []*document.Error{}
	for i := range 2 {
		got, err := v.Check(f, Contract)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("call %d: verdict differs from validation (-want +got):\n%s", i, diff)
		}
		if n := len(entries(t, r)); n != 1 {
			t.Errorf("call %d: %d verdicts kept, want 1", i, n)
		}
	}
	if j.calls != 1 {
		t.Errorf("validated %d times, want once", j.calls)
	}
	// Verdicts that only look up answer the remembered pass too.
	if got, err := VerdictsOf(r, nil).Check(f, Contract); err != nil || len(got) != 0 {
		t.Errorf("look-up only: %v, %v; want the remembered pass", got, err)
	}
	ignore, err := os.ReadFile(filepath.Join(r.Path(state.Cache), ".gitignore"))
	if err != nil || string(ignore) != "# Derived from the state files: never reviewed, safe to delete.\n*\n" {
		t.Errorf(".rlxp/cache/.gitignore = %q, %v; want it to ignore everything", ignore, err)
	}
	// The same bytes against another schema are another question.
	if errs, _ := v.Check(f, Adapter); len(errs) == 0 {
		t.Error("a contract passes the adapter's schema")
	}
}

// TestVerdictsNeverRememberViolations: a document with violations is
// validated, and its errors reported, on every call.
func TestVerdictsNeverRememberViolations(t *testing.T) {
	r := repotest.Repo(t, nil)
	j := &judge{}
	v := VerdictsOf(r, j)
	f := parse(t, []byte("schema: rlxp.contract/v1\nproject: p\nbudget:\n  max_runs: many\n"))
	want, _ := (&judge{}).Check(f, Contract)
	for i := range 2 {
		got, err := v.Check(f, Contract)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("call %d (-want +got):\n%s", i, diff)
		}
	}
	if names := entries(t, r); len(names) != 0 {
		t.Errorf("verdicts kept for a failing document: %v", names)
	}
	if j.calls != 2 {
		t.Errorf("validated %d times, want every time (2)", j.calls)
	}
	if _, err := VerdictsOf(r, nil).Check(f, Contract); !errors.Is(err, ErrNoVerdict) {
		t.Errorf("look-up only: %v; want ErrNoVerdict", err)
	}
}

// TestVerdictsDistrustDamagedEntries: an entry whose content is not the
// verdict it is named for (torn, or written for other bytes) is no pass.
func TestVerdictsDistrustDamagedEntries(t *testing.T) {
	r := repotest.Repo(t, nil)
	v := VerdictsOf(r, &judge{})
	good := parse(t, repotest.Contract(t))
	if _, err := v.Check(good, Contract); err != nil {
		t.Fatal(err)
	}
	bad := parse(t, []byte("schema: rlxp.contract/v1\nproject: p\nbudget:\n  max_runs: many\n"))
	key, _, err := v.key(bad.Data, Contract)
	if err != nil {
		t.Fatal(err)
	}
	_, goodLine, _ := v.key(good.Data, Contract)
	for _, content := range [][]byte{nil, []byte("torn"), goodLine, goodLine[:len(goodLine)-1]} {
		if err := os.WriteFile(filepath.Join(r.CachePath(cacheName), key), content, 0o644); err != nil {
			t.Fatal(err)
		}
		if errs, err := v.Check(bad, Contract); err != nil || len(errs) == 0 {
			t.Errorf("entry %q: the bad contract passes (%v, %v)", content, errs, err)
		}
	}
}

// TestVerdictsNeedState: without .rlxp nothing is created, and a cache
// directory that is a link elsewhere is not written through.
func TestVerdictsNeedState(t *testing.T) {
	root := t.TempDir()
	r, err := state.Open(root, root)
	if err != nil {
		t.Fatal(err)
	}
	f := parse(t, repotest.Contract(t))
	if errs, err := VerdictsOf(r, &judge{}).Check(f, Contract); err != nil || len(errs) != 0 {
		t.Fatalf("check without .rlxp: %v, %v", errs, err)
	}
	if _, err := os.Stat(r.Dir()); !os.IsNotExist(err) {
		t.Errorf("checking created %s (%v)", r.Dir(), err)
	}

	r = repotest.Repo(t, nil)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, r.Path(state.Cache)); err != nil {
		t.Fatal(err)
	}
	if _, err := VerdictsOf(r, &judge{}).Check(f, Contract); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("wrote through the linked cache: %v", ents)
	}
}
