package probe

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestImportsPython(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got := Imports(ctx, System(), python, []string{"json", "no_such_module_xyz", "os.path", "json.no_such_sub", "bad-name", "json"})
	want := []ImportStatus{ImportFound, ImportMissing, ImportFound, ImportMissing, ImportError, ImportFound}
	if len(got) != len(want) {
		t.Fatalf("Imports = %+v", got)
	}
	for i, w := range want {
		if got[i].Status != w {
			t.Errorf("%s: %+v, want %s", got[i].Module, got[i], w)
		}
	}
	if !strings.Contains(got[0].Detail, "json") || got[1].Detail != "no module named 'no_such_module_xyz'" || got[4].Detail != "not a module name" {
		t.Errorf("details: %+v", got)
	}
}

func TestImportsNoInterpreter(t *testing.T) {
	got := Imports(context.Background(), System(), "/nonexistent/bin/python3", []string{"json", "os"})
	for _, s := range got {
		if s.Status != ImportError || s.Detail != "interpreter /nonexistent/bin/python3 not found" {
			t.Errorf("%+v", s)
		}
	}
	got = Imports(context.Background(), &fakeHost{}, "", []string{"json"})
	if got[0].Status != ImportError || got[0].Detail != "interpreter python3 not found" {
		t.Errorf("%+v", got[0])
	}
}

func TestImportsFake(t *testing.T) {
	var ran [][]string
	h := &fakeHost{run: func(name string, args []string) ([]byte, []byte, error) {
		ran = append(ran, append([]string{name}, args...))
		// Answers two of three, with noise around, then dies.
		out := "site noise\nrlxp-import\t1\tmissing\tno module named 'b'\nrlxp-import\t0\tfound\t/x/a.py\n" +
			"rlxp-import\t0\tmissing\tduplicate ignored\nrlxp-import\t9\tfound\tout of range\nrlxp-import\t2\tweird\tbad status\n"
		return []byte(out), []byte("Traceback (most recent call last):\n  ...\nMemoryError: boom\n"), exitError(1)
	}}
	got := Imports(context.Background(), h, "/venv/bin/python", []string{"a", "-c", "b", "c.d"})
	want := []ImportState{
		{"a", ImportFound, "/x/a.py"},
		{"-c", ImportError, "not a module name"},
		{"b", ImportMissing, "no module named 'b'"},
		{"c.d", ImportError, "/venv/bin/python failed: MemoryError: boom (exit status 1)"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if len(ran) != 1 || ran[0][0] != "/venv/bin/python" || ran[0][1] != "-c" || ran[0][2] != importScript ||
		!cmp.Equal(ran[0][3:], []string{"a", "b", "c.d"}) {
		t.Errorf("ran %q", ran)
	}
	if s := got[2].String(); s != "import b: missing (no module named 'b')" {
		t.Errorf("String = %q", s)
	}

	// Nothing valid to ask: the interpreter is not run.
	ran = nil
	if got := Imports(context.Background(), h, "python3", []string{"", "a..b", "1x"}); len(ran) != 0 || got[2].Status != ImportError {
		t.Errorf("ran %q for %+v", ran, got)
	}
	if got := Imports(context.Background(), h, "python3", nil); len(got) != 0 || len(ran) != 0 {
		t.Errorf("no modules: %+v", got)
	}

	// A clean exit that forgets a module.
	h.run = func(string, []string) ([]byte, []byte, error) { return nil, nil, nil }
	if got := Imports(context.Background(), h, "py", []string{"a"}); got[0].Detail != "py gave no answer" {
		t.Errorf("%+v", got[0])
	}
}

func TestModuleName(t *testing.T) {
	for s, want := range map[string]bool{
		"json": true, "os.path": true, "_x.y_2": true, "données": true,
		"": false, ".a": false, "a.": false, "a..b": false, "2a": false, "a-b": false, "-c": false, "a b": false, "a.1": false,
	} {
		if got := moduleName(s); got != want {
			t.Errorf("moduleName(%q) = %v", s, got)
		}
	}
}

// Run from the repository, the probe finds the repository's own modules as
// the program would, but never runs one named like a module the probe
// itself imports.
func TestImportsRunNothingFromTheWorkingDirectory(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	dir := t.TempDir()
	for name, body := range map[string]string{
		"importlib/__init__.py": "open('imported-importlib', 'w').write('ran')\n",
		"localpkg/__init__.py":  "open('imported-localpkg', 'w').write('ran')\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got := Imports(ctx, System(), python, []string{"localpkg", "json"})
	if len(got) != 2 || got[0].Status != ImportFound || got[1].Status != ImportFound {
		t.Errorf("Imports = %+v, want both found", got)
	}
	if ran, _ := filepath.Glob(filepath.Join(dir, "imported-*")); len(ran) != 0 {
		t.Errorf("modules of the working directory ran: %v", ran)
	}
}
