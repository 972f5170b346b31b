package pin

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/approval"
)

// TestImportDirs: the directories a site directory's files add to the
// import path: .pth path lines (relative to the site directory) and the
// absolute literals of its import lines, an .egg-link's first line, an
// editable finder's mapping; a missing directory and a comment are not.
func TestImportDirs(t *testing.T) {
	out := t.TempDir()
	for _, d := range []string{"a", "b", "c", "d/pkg"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sp := writeTree(t, map[string]string{
		"x.pth":                        "# a comment\n" + filepath.Join(out, "a") + "\n" + filepath.Join(out, "missing") + "\nlocal\n",
		"local/m.py":                   "",
		"y.pth":                        "import sys; sys.path.insert(0, '" + filepath.Join(out, "b") + "')\n",
		"z.egg-link":                   filepath.Join(out, "c") + "\n.\n",
		"__editable___d_1_0_finder.py": "MAPPING = {'pkg': '" + filepath.Join(out, "d/pkg") + "', 'rel': 'not/absolute'}\n",
		"other.py":                     "X = '" + filepath.Join(out, "a") + "'\n",
	})
	want := []string{filepath.Join(sp, "local"), filepath.Join(out, "a"), filepath.Join(out, "d/pkg"), filepath.Join(out, "b"), filepath.Join(out, "c")}
	got := importDirs(sp)
	sort.Strings(want)
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("importDirs (-want +got):\n%s", diff)
	}
}

// TestStampChanges: an entry whose stamps differ is named once, as
// installed when Installed names it already; an approval before format 4
// has no stamps to compare.
func TestStampChanges(t *testing.T) {
	approved := Material{Version: Version, Env: map[string]string{},
		Installed: map[string]string{"sp/torch-2.3.0.dist-info": "installed"},
		Stamps:    map[string]string{"sp/torch-2.3.0.dist-info": "stat:1", "sp/torch": "stat:2", "sp/six.py": "stat:3", "/src/lib": "stat:4"},
	}
	now := Material{Version: Version,
		Installed: map[string]string{"sp/torch-2.4.0.dist-info": "installed"},
		Stamps:    map[string]string{"sp/torch-2.4.0.dist-info": "stat:5", "sp/torch": "stat:6", "sp/numpy": "stat:7", "/src/lib": "stat:4"},
	}
	want := []string{
		"sp/torch-2.3.0.dist-info: removed since approval",
		"sp/torch-2.4.0.dist-info: installed since approval",
		"sp/numpy: installed since approval",
		"sp/six.py: removed since approval",
		"sp/torch: edited since approval",
	}
	if diff := cmp.Diff(want, Changes(approved, now)); diff != "" {
		t.Errorf("Changes (-want +got):\n%s", diff)
	}
	approved.Version = 3
	want = want[:2]
	if diff := cmp.Diff(want, Changes(approved, now)); diff != "" {
		t.Errorf("Changes of a format 3 approval (-want +got):\n%s", diff)
	}
}

// FuzzImportDirs: any .pth, .egg-link or editable finder text is read
// without failing, and every directory it yields exists.
func FuzzImportDirs(f *testing.F) {
	// setuptools' distutils-precedence.pth, an editable finder and an
	// .egg-link as pip and setuptools write them.
	f.Add("import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os.environ.get(var, 'local') == 'local'; enabled and __import__('_distutils_hack').add_shim(); \n")
	f.Add("import __editable___mylib_0_1_finder; __editable___mylib_0_1_finder.install()\n")
	f.Add("MAPPING: dict[str, str] = {'mylib': '/tmp/src/mylib'}\nNAMESPACES: dict[str, list[str]] = {}\nPATH_PLACEHOLDER = '__editable__.mylib-0.1.finder' + \".__path_hook__\"\n")
	f.Add("/tmp\n.\n")
	f.Fuzz(func(t *testing.T, text string) {
		sp := t.TempDir()
		for _, n := range []string{"a.pth", "b.egg-link", "__editable___b_1_finder.py"} {
			if err := os.WriteFile(filepath.Join(sp, n), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range importDirs(sp) {
			if st, err := os.Stat(d); err != nil || !st.IsDir() {
				t.Errorf("importDirs yielded %q, not a directory", d)
			}
		}
	})
}

// TestContentsMoved: an entry whose stamps moved with its content as
// approved (touch, a copy moved over a file) is not a change when the
// approval recorded its content (format 6), and is when it did not; an
// edit that restores size and modification time is a change either way,
// and only the entries whose stamps moved are read.
func TestContentsMoved(t *testing.T) {
	root := writeTree(t, map[string]string{
		".venv/pyvenv.cfg": "home = /usr/bin\n",
		".venv/lib/python3.12/site-packages/torch/nn.py":    "LR = 1\n",
		".venv/lib/python3.12/site-packages/torch/sub/a.py": "A = 1\n",
		".venv/lib/python3.12/site-packages/six.py":         "x = 1\n",
		".venv/lib/python3.12/site-packages/numpy/core.py":  "N = 1\n",
	})
	sp := filepath.Join(root, ".venv/lib/python3.12/site-packages")
	none := func(string) (string, bool) { return "", false }
	pin := func() Material {
		t.Helper()
		var m Material
		if err := m.pinInstalled(root, root, &adapter.Adapter{}, none); err != nil {
			t.Fatal(err)
		}
		return m
	}
	changes := func(approved Material) []string {
		now := pin()
		now.contentsMoved(approved)
		return stampChanges(approved, now)
	}
	approved := pin()
	if err := approved.pinContents(nil); err != nil {
		t.Fatal(err)
	}
	old := approved
	old.Contents = nil
	nn := filepath.Join(sp, "torch/nn.py")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(nn, later, later); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(sp, "six.py"))
	if err := os.WriteFile(filepath.Join(sp, "six.tmp"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(sp, "six.tmp"), filepath.Join(sp, "six.py")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string(nil), changes(approved)); diff != "" {
		t.Errorf("stamps moved, content as approved (-want +got):\n%s", diff)
	}
	want := []string{".venv/lib/python3.12/site-packages/six.py: edited since approval", ".venv/lib/python3.12/site-packages/torch: edited since approval"}
	if diff := cmp.Diff(want, changes(old)); diff != "" {
		t.Errorf("an approval without contents (-want +got):\n%s", diff)
	}
	st, _ := os.Stat(nn)
	if err := os.WriteFile(nn, []byte("LR = 9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(nn, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	now := pin()
	now.contentsMoved(approved)
	if diff := cmp.Diff(want[1:], stampChanges(approved, now)); diff != "" {
		t.Errorf("a byte edited, modification time restored (-want +got):\n%s", diff)
	}
	// The entries whose stamps moved, and no other.
	var read []string
	for k := range now.Contents {
		read = append(read, k)
	}
	sort.Strings(read)
	if diff := cmp.Diff([]string{".venv/lib/python3.12/site-packages/six.py", ".venv/lib/python3.12/site-packages/torch"}, read); diff != "" {
		t.Errorf("entries read (-want +got):\n%s", diff)
	}
}

// TestReuseContents: approving another experiment takes an entry's content
// digest from an earlier approval only where its stamps are the ones
// recorded with it; a moved stamp, a section's record and a book that does
// not verify give nothing, so those entries are read again.
func TestReuseContents(t *testing.T) {
	plan := `{"stamps":{"numpy":"s1","torch":"s2","gym":"s3"},"contents":{"numpy":"c1","torch":"c2"}}`
	book := approval.Book{Records: []approval.Record{
		{Kind: approval.Section, Plan: json.RawMessage(`{"stamps":{"numpy":"s1"},"contents":{"numpy":"forged"}}`)},
		{Kind: approval.Experiment, Plan: json.RawMessage(plan)},
	}}
	keys := []string{"numpy", "torch", "gym", "new"}
	stamps := map[string]string{"numpy": "s1", "torch": "moved", "gym": "s3", "new": "s4"}
	for _, tc := range []struct {
		name     string
		book     approval.Book
		read     []string
		contents map[string]string
	}{
		{"stamps as recorded", book, []string{"torch", "gym", "new"}, map[string]string{"numpy": "c1"}},
		{"book does not verify", approval.Book{Records: book.Records, Problem: errors.New("broken")}, keys, map[string]string{}},
	} {
		m := Material{Stamps: stamps}
		want := m.reuseContents(tc.book)
		var read []string
		for _, k := range keys {
			if want(k) {
				read = append(read, k)
			}
		}
		if diff := cmp.Diff(tc.read, read); diff != "" {
			t.Errorf("%s: entries read (-want +got):\n%s", tc.name, diff)
		}
		if diff := cmp.Diff(tc.contents, m.Contents); diff != "" {
			t.Errorf("%s: contents (-want +got):\n%s", tc.name, diff)
		}
	}
}
