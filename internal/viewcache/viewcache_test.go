package viewcache

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/state"
)

type view struct {
	File     string   `json:"file"`
	Approved bool     `json:"approved"`
	Notes    []string `json:"notes,omitempty"`
}

func repo(t testing.TB) *state.Repo {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, state.DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := state.Open(root, root)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func entries(t *testing.T, r *state.Repo) []string {
	t.Helper()
	des, err := os.ReadDir(r.CachePath(cacheName))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func TestLoadStore(t *testing.T) {
	r := repo(t)
	c := Of(r, "contract-status")
	contract := Input{Name: ".rlxp/contract.yaml", Data: []byte("schema: rlxp.contract/v1\n")}
	log := Input{Name: ".rlxp/approvals.jsonl", Missing: true}
	want := view{File: ".rlxp/contract.yaml", Approved: true, Notes: []string{"a", "b"}}

	var got view
	if c.Load(&got, contract, log) {
		t.Fatal("hit in an empty cache")
	}
	c.Store(want, contract, log)
	if !c.Load(&got, contract, log) {
		t.Fatal("miss right after Store")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loaded view differs (-stored +loaded):\n%s", diff)
	}

	changed := contract
	changed.Data = []byte("schema: rlxp.contract/v1 \n")
	empty := Input{Name: log.Name, Data: []byte{}}
	for name, ins := range map[string][]Input{
		"one byte changed":        {changed, log},
		"missing file now empty":  {contract, empty},
		"an input more":           {contract, log, {Name: "x", Missing: true}},
		"inputs in another order": {log, contract},
		"another file shown":      {{Name: "contract.yaml", Data: contract.Data}, log},
	} {
		if Of(r, "contract-status").Load(&view{}, ins...) {
			t.Errorf("%s: hit on an entry computed from other inputs", name)
		}
	}
	if Of(r, "other-view").Load(&view{}, contract, log) {
		t.Error("another view's entry was trusted")
	}

	// A changed input replaces the entry instead of adding one.
	c.Store(view{File: "changed"}, changed, log)
	if es := entries(t, r); len(es) != 1 {
		t.Errorf("%d entries after replacing one: %v", len(es), es)
	}
	if c.Load(&got, contract, log) {
		t.Error("the replaced entry still answers for the old bytes")
	}
	if !c.Load(&got, changed, log) || got.File != "changed" {
		t.Errorf("replacing entry not loaded: %+v", got)
	}
}

func TestForeignOrTornEntry(t *testing.T) {
	r := repo(t)
	c := Of(r, "v")
	in := Input{Name: "f", Data: []byte("x")}
	c.Store(view{File: "f"}, in)
	path, head, ok := c.entry([]Input{in})
	if !ok {
		t.Fatal("no entry path")
	}
	for name, content := range map[string][]byte{
		"empty":           {},
		"torn head":       head[:len(head)/2],
		"torn body":       append(append([]byte{}, head...), `{"file":"f"`...),
		"another format":  append([]byte("rlxp view 0"), head[len("rlxp view 1"):]...),
		"body not a view": append(append([]byte{}, head...), `[1,2]`...),
	} {
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		if c.Load(&view{}, in) {
			t.Errorf("%s entry trusted", name)
		}
	}
}

func TestNoCacheWithoutStateDir(t *testing.T) {
	root := t.TempDir()
	r, err := state.Open(root, root)
	if err != nil {
		t.Fatal(err)
	}
	Of(r, "v").Store(view{}, Input{Name: "f", Data: []byte("x")})
	if _, err := os.Lstat(filepath.Join(root, state.DirName)); !os.IsNotExist(err) {
		t.Errorf("a repository without .rlxp got one: %v", err)
	}
}

func TestCacheDirLinkRefused(t *testing.T) {
	r := repo(t)
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, r.Path(state.Cache)); err != nil {
		t.Fatal(err)
	}
	Of(r, "v").Store(view{}, Input{Name: "f", Data: []byte("x")})
	if des, _ := os.ReadDir(elsewhere); len(des) > 0 {
		t.Errorf("wrote through a link to %s: %v", elsewhere, des)
	}
}

// TestConcurrent: writers of different inputs replace one entry at once;
// every hit a reader gets is the view of its own inputs.
func TestConcurrent(t *testing.T) {
	r := repo(t)
	c := Of(r, "v")
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				data := fmt.Sprintf("%d-%d", w, i%3)
				in := Input{Name: "f", Data: []byte(data)}
				var got view
				if c.Load(&got, in) && got.File != data {
					errs <- fmt.Sprintf("inputs %s loaded the view of %s", data, got.File)
					return
				}
				c.Store(view{File: data}, in)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func BenchmarkLoad(b *testing.B) {
	r := repo(b)
	c := Of(r, "contract-status")
	ins := []Input{
		{Name: ".rlxp/contract.yaml", Data: make([]byte, 1400)},
		{Name: ".rlxp/approvals.jsonl", Data: make([]byte, 8000)},
		{Name: ".rlxp/adapter.yaml", Data: make([]byte, 600)},
		{Name: ".rlxp/experiments.yaml", Data: make([]byte, 2000)},
	}
	c.Store(view{File: ".rlxp/contract.yaml", Notes: []string{"a", "b", "c"}}, ins...)
	for b.Loop() {
		var v view
		if !c.Load(&v, ins...) {
			b.Fatal("miss")
		}
	}
}

// FuzzLoad: whatever an entry holds, Load does not panic, and it answers
// only for an entry that starts with the exact head of its inputs.
func FuzzLoad(f *testing.F) {
	r := repo(f)
	c := Of(r, "v")
	in := Input{Name: ".rlxp/contract.yaml", Data: []byte("schema: rlxp.contract/v1\n")}
	c.Store(view{File: "f", Approved: true, Notes: []string{"n"}}, in)
	path, head, ok := c.entry([]Input{in})
	if !ok {
		f.Fatal("no entry path")
	}
	stored, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(stored)
	f.Add(head)
	f.Add([]byte("rlxp view 1\n"))
	f.Fuzz(func(t *testing.T, entry []byte) {
		if err := os.WriteFile(path, entry, 0o644); err != nil {
			t.Fatal(err)
		}
		var v view
		if c.Load(&v, in) && !bytes.HasPrefix(entry, head) {
			t.Fatalf("trusted an entry without the inputs' head: %q", entry)
		}
	})
}
