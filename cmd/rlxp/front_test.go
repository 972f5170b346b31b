package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/repotest"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
)

// TestFrontLinksLittle: the front binary links none of what makes the
// core slow to start (docs/performance.md).
func TestFrontLinksLittle(t *testing.T) {
	goTool(t)
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	// protowire: its internal/detrand hashes the executable at start-up.
	for _, heavy := range []string{"github.com/xeipuuv/gojsonschema", "net/http", "crypto/tls", "github.com/schollz/progressbar/v3", "github.com/spf13/pflag", "google.golang.org/protobuf/encoding/protowire", "github.com/rlxp/rlxp/internal/cli"} {
		for _, d := range deps {
			if d == heavy {
				t.Errorf("cmd/rlxp links %s", heavy)
			}
		}
	}
}

func goTool(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build rlxp with")
	}
}

type answer struct {
	Code           int
	Stdout, Stderr string
}

func runBin(t *testing.T, dir, bin string, args ...string) answer {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	return answer{cmd.ProcessState.ExitCode(), out.String(), errb.String()}
}

// TestFrontAnswersAsCore: the front answers every command line as the
// core does, byte for byte and with the same exit status, whether it
// serves it (a remembered verdict) or hands it over; and it serves
// contract status from remembered verdicts without the core.
func TestFrontAnswersAsCore(t *testing.T) {
	goTool(t)
	bin := t.TempDir()
	for _, c := range [][2]string{{"rlxp", "."}, {"rlxp-core", "../rlxp-core"}} {
		build := exec.Command("go", "build", "-ldflags", "-X main.version=v9.9.9-test", "-o", filepath.Join(bin, c[0]), c[1])
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", c[1], err, out)
		}
	}
	front, core := filepath.Join(bin, "rlxp"), filepath.Join(bin, "rlxp-core")
	alone := t.TempDir() // the front without its core
	data, err := os.ReadFile(front)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(alone, "rlxp"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	frontAlone := filepath.Join(alone, "rlxp")

	contract := string(repotest.Contract(t))
	adapterYAML, err := os.ReadFile("../../examples/drafts/cartpole/adapter.yaml")
	if err != nil {
		t.Fatal(err)
	}
	approved := func(t *testing.T) *state.Repo {
		r := repotest.Repo(t, map[string]string{".rlxp/contract.yaml": contract, ".rlxp/adapter.yaml": string(adapterYAML)})
		l, err := workspace.Contract(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := approval.ApproveSections(r, l, []string{"task", "metrics", "budget"}, approval.Request{By: "tester", Now: time.Now()}, nil); err != nil {
			t.Fatal(err)
		}
		return r
	}
	editAdapter := func(t *testing.T, r *state.Repo) {
		repotest.Write(t, r.Root, map[string]string{".rlxp/adapter.yaml": string(adapterYAML) + "# edited\n"})
	}
	for _, tc := range []struct {
		name string
		repo func(t *testing.T) *state.Repo
		args []string
		// served: the front answers alone, from the verdicts the core
		// remembered in a first run, before edit changes the repository.
		served bool
		edit   func(t *testing.T, r *state.Repo)
		check  func(t *testing.T, core answer) // what the core's answer shows
	}{
		{name: "version", args: []string{"--version"}, served: true},
		{name: "status", repo: approved, args: []string{"contract", "status"}, served: true},
		{name: "status json", repo: approved, args: []string{"contract", "status", "--json"}, served: true},
		{name: "status root", repo: approved, args: []string{"contract", "status", "--root=.", "--json"}, served: true},
		{name: "status uncached", repo: approved, args: []string{"contract", "status"}},
		{name: "status json uncached", repo: approved, args: []string{"contract", "status", "--json"}},
		{name: "status adapter edited", repo: approved, args: []string{"contract", "status", "--json"}, edit: editAdapter, check: func(t *testing.T, core answer) {
			if core.Code != 3 || !strings.Contains(core.Stdout, `"digest": "sha256:`) {
				t.Errorf("edited adapter: %+v; want its material read", core)
			}
		}},
		{name: "status stale", repo: approved, args: []string{"contract", "status", "--json"}, served: true, edit: func(t *testing.T, r *state.Repo) {
			edited := strings.Replace(contract, "  gpu_hours: 2\n", "  gpu_hours: 20\n", 1)
			if edited == contract {
				t.Fatal("the fixture has no gpu_hours: 2")
			}
			repotest.Write(t, r.Root, map[string]string{".rlxp/contract.yaml": edited})
			runBin(t, r.Root, core, "contract", "status") // remembers the edited contract's pass
		}, check: func(t *testing.T, core answer) {
			if core.Code != 3 || !strings.Contains(core.Stdout, `"state": "stale"`) {
				t.Errorf("stale section: %+v; want exit 3 and a stale section", core)
			}
		}},
		{name: "status no adapter", repo: func(t *testing.T) *state.Repo {
			return repotest.Repo(t, map[string]string{".rlxp/contract.yaml": contract})
		}, args: []string{"contract", "status"}, served: true},
		{name: "status bad yaml", repo: func(t *testing.T) *state.Repo {
			return repotest.Repo(t, map[string]string{".rlxp/contract.yaml": contract + "budget: [\n"})
		}, args: []string{"contract", "status", "--json"}, check: func(t *testing.T, core answer) {
			if core.Code != 1 || !strings.HasPrefix(core.Stderr, "rlxp: .rlxp/contract.yaml:") {
				t.Errorf("bad YAML: %+v; want exit 1 and the file's position", core)
			}
		}},
		{name: "status violation", repo: func(t *testing.T) *state.Repo {
			return repotest.Repo(t, map[string]string{".rlxp/contract.yaml": strings.Replace(contract, "  gpu_hours: 2\n", "  gpu_hours: many\n", 1)})
		}, args: []string{"contract", "status"}},
		{name: "status unknown flag", repo: approved, args: []string{"contract", "status", "--bogus"}},
		{name: "status argument", repo: approved, args: []string{"contract", "status", "extra"}},
		{name: "status help", repo: approved, args: []string{"contract", "status", "--help"}},
		{name: "run status", repo: approved, args: []string{"status"}},
		{name: "approve refused", repo: approved, args: []string{"contract", "approve", "nosuch"}},
		{name: "help", args: []string{"help"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var r *state.Repo
			if tc.repo != nil {
				r = tc.repo(t)
				dir = r.Root
			}
			if tc.served {
				runBin(t, dir, core, tc.args...) // remembers the verdicts
			}
			if tc.edit != nil {
				tc.edit(t, r)
			}
			alone := runBin(t, dir, frontAlone, tc.args...)
			forget := func() {
				if !tc.served {
					if err := os.RemoveAll(filepath.Join(dir, ".rlxp", "cache")); err != nil {
						t.Fatal(err)
					}
				}
			}
			forget()
			got := runBin(t, dir, front, tc.args...)
			forget()
			want := runBin(t, dir, core, tc.args...)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("rlxp %s: the front answers otherwise than the core (-core +front):\n%s", strings.Join(tc.args, " "), diff)
			}
			if tc.check != nil {
				tc.check(t, want)
			}
			if tc.served {
				if diff := cmp.Diff(want, alone); diff != "" {
					t.Errorf("rlxp %s without its core (-core +front alone):\n%s", strings.Join(tc.args, " "), diff)
				}
				return
			}
			wantErr := "rlxp: cannot run " + filepath.Join(filepath.Dir(frontAlone), "rlxp-core")
			if alone.Code != 1 || alone.Stdout != "" || !strings.HasPrefix(alone.Stderr, wantErr) || strings.Count(alone.Stderr, "\n") != 1 || !strings.Contains(alone.Stderr, "go install github.com/rlxp/rlxp/cmd/...@latest") {
				t.Errorf("without its core: %+v; want exit 1 and one line naming where it looked and how to install", alone)
			}
		})
	}
}
