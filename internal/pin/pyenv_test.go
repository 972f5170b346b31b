package pin

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
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
