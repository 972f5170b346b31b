//go:build unix

package plugin

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// The plugin's scripts/rlxp gets the released binary: the test builds a
// release archive with the layout .goreleaser.yaml gives it (rlxp, rlxp-core
// and rlxp-guard at the top of rlxp_VERSION_OS_ARCH.tar.gz, a real rlxp built with the version
// stamped), serves it from 127.0.0.1 and runs the shim of a plugin that has
// no bin/rlxp.

const shimVersion = "9.8.7"

// releaseArchive builds rlxp with the version stamped as the release does
// and packs it; it returns the archive's name and bytes.
func releaseArchive(t *testing.T) (string, []byte) {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	build := func(pkg string, flags ...string) []byte {
		bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
		// Only the version flag differs from make test's CGO_ENABLED=0 go
		// build, so this links from the build cache.
		cmd := exec.Command(goTool, append(append([]string{"build"}, flags...), "-o", bin, pkg)...)
		cmd.Dir = repoRoot(t)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v: %s", pkg, err, out)
		}
		exe, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		return exe
	}
	exe := build("./cmd/rlxp", "-ldflags", "-X main.version="+shimVersion)
	core := build("./cmd/rlxp-core", "-ldflags", "-X main.version="+shimVersion)
	guard := build("./cmd/rlxp-guard")
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{"README.md", 0o644, []byte("# rlxp\n")}, {"rlxp", 0o755, exe}, {"rlxp-core", 0o755, core}, {"rlxp-guard", 0o755, guard}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("rlxp_%s_%s_%s.tar.gz", shimVersion, runtime.GOOS, runtime.GOARCH), buf.Bytes()
}

// shimPlugin is a copy of the plugin without bin/, stamped with version
// shimVersion and checksums.txt recording sum for the archive.
func shimPlugin(t *testing.T, archive string, sum [32]byte) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "plugin")
	if err := copyTree(filepath.Join(repoRoot(t), pluginDir), dst); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dst, "bin")); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dst, ClaudeManifestFile)
	data, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["version"] = shimVersion
	data, _ = json.MarshalIndent(m, "", "  ")
	if err := os.WriteFile(manifest, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sums := fmt.Sprintf("%x  rlxp_%s_other_arch.tar.gz\n%s  %s\n", sha256.Sum256(nil), shimVersion, hex.EncodeToString(sum[:]), archive)
	if err := os.WriteFile(filepath.Join(dst, "checksums.txt"), []byte(sums), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// release serves archives under /vVERSION/ and counts the requests.
type release struct {
	srv      *httptest.Server
	requests atomic.Int64
	files    map[string][]byte
}

func serveRelease(t *testing.T, files map[string][]byte) *release {
	r := &release{files: files}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.requests.Add(1)
		data, ok := r.files[strings.TrimPrefix(req.URL.Path, "/v"+shimVersion+"/")]
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Write(data)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

type shimRun struct {
	code           int
	stdout, stderr string
}

// runShim runs the plugin's shim with only the system's tools on PATH (no
// rlxp there), its cache under cache.
func runShim(t *testing.T, plugin, cache, baseURL, stdin string, args ...string) shimRun {
	t.Helper()
	cmd := exec.Command(filepath.Join(plugin, "scripts", "rlxp"), args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + filepath.Dir(cache), "RLXP_CACHE_DIR=" + cache, "RLXP_RELEASE_URL=" + baseURL}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return shimRun{code, out.String(), errb.String()}
}

func oneLine(t *testing.T, r shimRun, want string) {
	t.Helper()
	if strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("stderr = %q, want one line containing %q", r.stderr, want)
	}
}

func TestShimDownloadsVerifiesAndCaches(t *testing.T) {
	for _, tool := range []string{"curl", "tar", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	name, archive := releaseArchive(t)
	plugin := shimPlugin(t, name, sha256.Sum256(archive))
	cacheBin := func(cache string) string {
		return filepath.Join(cache, shimVersion, runtime.GOOS+"_"+runtime.GOARCH, "rlxp")
	}

	t.Run("first call downloads, later calls use the cache", func(t *testing.T) {
		rel := serveRelease(t, map[string][]byte{name: archive})
		cache := filepath.Join(t.TempDir(), "cache")
		r := runShim(t, plugin, cache, rel.srv.URL, "", "--version")
		if r.code != 0 || r.stdout != "rlxp "+shimVersion+"\n" || r.stderr != "" {
			t.Fatalf("first call: %+v, want rlxp %s", r, shimVersion)
		}
		if n := rel.requests.Load(); n != 1 {
			t.Errorf("first call made %d requests, want 1", n)
		}
		if fi, err := os.Stat(cacheBin(cache)); err != nil || fi.Mode().Perm() != 0o755 {
			t.Fatalf("cached binary: %v, %v", fi, err)
		}
		if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(cacheBin(cache)), ".download.*")); len(leftovers) != 0 {
			t.Errorf("temporary files left in the cache: %v", leftovers)
		}
		rel.srv.Close()
		// The front hands other commands to the rlxp-core installed beside it.
		r = runShim(t, plugin, cache, rel.srv.URL, "", "help", "exit-codes")
		if r.code != 0 || !strings.HasPrefix(r.stdout, "Every rlxp command exits with one of:") {
			t.Errorf("a command of rlxp-core through the cache: %+v", r)
		}
		r = runShim(t, plugin, cache, rel.srv.URL, "", "--version")
		if n := rel.requests.Load(); n != 1 {
			t.Errorf("second call made a request (%d in all)", n)
		}
		if r.code != 0 || r.stdout != "rlxp "+shimVersion+"\n" || r.stderr != "" {
			t.Errorf("second call, server down: %+v, want the cached binary's answer", r)
		}
		// As the hook, the cached binary gets the payload.
		repo := t.TempDir()
		if err := os.Mkdir(filepath.Join(repo, ".rlxp"), 0o755); err != nil {
			t.Fatal(err)
		}
		launch := `{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":"` + repo + `","tool_input":{"command":"torchrun train.py"}}`
		r = runShim(t, plugin, cache, rel.srv.URL, launch, "guard")
		if r.code != 2 || !strings.HasPrefix(r.stderr, "rlxp guard: \"torchrun train.py\" starts training directly") {
			t.Errorf("guard through the cached binary: %+v", r)
		}
		// The hook is answered by the cached rlxp-guard alone: without
		// the cached rlxp (and the server down) it still decides.
		if err := os.Remove(cacheBin(cache)); err != nil {
			t.Fatal(err)
		}
		r = runShim(t, plugin, cache, rel.srv.URL, launch, "guard")
		if r.code != 2 || !strings.HasPrefix(r.stderr, "rlxp guard: \"torchrun train.py\" starts training directly") {
			t.Errorf("guard through the cached rlxp-guard: %+v", r)
		}
	})

	t.Run("a tampered archive is refused and nothing is installed", func(t *testing.T) {
		bad := bytes.Clone(archive)
		bad[len(bad)/2] ^= 0xff
		rel := serveRelease(t, map[string][]byte{name: bad})
		cache := filepath.Join(t.TempDir(), "cache")
		r := runShim(t, plugin, cache, rel.srv.URL, "", "--version")
		if r.code != 127 || r.stdout != "" {
			t.Errorf("tampered: %+v, want exit 127", r)
		}
		oneLine(t, r, "does not match the sha256 the plugin records for it")
		oneLine(t, r, "go install github.com/rlxp/rlxp/cmd/...@v"+shimVersion)
		if _, err := os.Stat(cacheBin(cache)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a binary was installed from a tampered archive: %v", err)
		}
	})

	t.Run("server down", func(t *testing.T) {
		rel := serveRelease(t, nil)
		url := rel.srv.URL
		rel.srv.Close()
		r := runShim(t, plugin, filepath.Join(t.TempDir(), "cache"), url, "", "--version")
		if r.code != 127 {
			t.Errorf("server down: exit %d", r.code)
		}
		oneLine(t, r, "rlxp: cannot download "+url+"/v"+shimVersion+"/"+name)
	})

	t.Run("no checksum recorded for this platform", func(t *testing.T) {
		rel := serveRelease(t, map[string][]byte{name: archive})
		other := shimPlugin(t, "rlxp_"+shimVersion+"_plan9_mips.tar.gz", sha256.Sum256(archive))
		r := runShim(t, other, filepath.Join(t.TempDir(), "cache"), rel.srv.URL, "", "--version")
		if r.code != 127 || rel.requests.Load() != 0 {
			t.Errorf("%+v, %d requests; want exit 127 and no download", r, rel.requests.Load())
		}
		oneLine(t, r, "no released rlxp "+shimVersion+" for "+runtime.GOOS+"/"+runtime.GOARCH+" is recorded in the plugin's checksums.txt")
	})
}

// With no binary to be had, the plugin's hook, run through its command line
// in hooks.json as the hosts run it (sh -c), refuses a command in a
// repository that has .rlxp/ (its contract cannot be checked) and allows one
// elsewhere.
func TestHookFailsClosedWithoutBinary(t *testing.T) {
	plugin := filepath.Join(t.TempDir(), "plugin")
	if err := copyTree(filepath.Join(repoRoot(t), pluginDir), plugin); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(plugin, "bin"))
	os.Remove(filepath.Join(plugin, "checksums.txt"))
	var hooks struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	data, err := os.ReadFile(filepath.Join(plugin, "hooks", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &hooks); err != nil {
		t.Fatal(err)
	}
	var command string
	for _, group := range hooks.Hooks["PreToolUse"] {
		for _, h := range group.Hooks {
			if strings.Contains(h.Command, " guard") {
				command = h.Command
			}
		}
	}
	if command == "" {
		t.Fatal("hooks.json has no PreToolUse command running rlxp guard")
	}
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".rlxp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	payload := func(cwd, command string) string {
		p, _ := json.Marshal(map[string]any{
			"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": cwd,
			"tool_input": map[string]string{"command": command},
		})
		return string(p)
	}
	tests := []struct {
		name, hookDir, cwd, command string
		code                        int
		stderr                      string
	}{
		{"in a repository with .rlxp/", elsewhere, repo, "python train.py", 2, "rlxp guard: refused: this repository has .rlxp/ but the rlxp binary is not available"},
		{"in a subdirectory of it", elsewhere, filepath.Join(repo, "src"), "ls", 2, "rlxp guard: refused:"},
		{"the host's directory in it", repo, elsewhere, "ls", 2, "rlxp guard: refused:"},
		{"elsewhere", elsewhere, elsewhere, "ls", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", command)
			cmd.Dir = tt.hookDir
			cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "CLAUDE_PLUGIN_ROOT=" + plugin, "RLXP_RELEASE_URL=http://127.0.0.1:1"}
			cmd.Stdin = strings.NewReader(payload(tt.cwd, tt.command))
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code || out.Len() != 0 {
				t.Errorf("exit %d, stdout %q; want exit %d and no output", code, out.String(), tt.code)
			}
			if tt.stderr == "" && errb.Len() != 0 || tt.stderr != "" && (!strings.HasPrefix(errb.String(), tt.stderr) || strings.Count(errb.String(), "\n") != 1) {
				t.Errorf("stderr %q, want one line starting %q", errb.String(), tt.stderr)
			}
		})
	}
}
