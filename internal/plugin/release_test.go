//go:build unix

package plugin

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sums is a checksums.txt as goreleaser writes it for version.
func sums(version string) string {
	var b strings.Builder
	for i, p := range platforms {
		b.WriteString(strings.Repeat(string(rune('a'+i)), 64) + "  " + archiveName(version, p) + "\n")
	}
	return b.String()
}

// scripts/stamp-release.sh makes the plugin follow a release: every
// manifest at the version, the checksums copied in, and the package still
// valid.
func TestStampRelease(t *testing.T) {
	dir := t.TempDir()
	copyPackage(t, dir)
	os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
	script, err := os.ReadFile(filepath.Join(repoRoot(t), "scripts", "stamp-release.sh"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "scripts", "stamp-release.sh"), script, 0o755)
	dist := filepath.Join(dir, "checksums.txt")
	os.WriteFile(dist, []byte(sums("1.4.0")+strings.Repeat("f", 64)+"  rlxp_1.4.0_windows_amd64.zip\n"), 0o644)

	stamp := func(args ...string) (string, error) {
		out, err := exec.Command("bash", append([]string{filepath.Join(dir, "scripts", "stamp-release.sh")}, args...)...).CombinedOutput()
		return string(out), err
	}
	if out, err := stamp("1.4.0", dist); err == nil || !strings.Contains(out, "1.4.0: not a version tag") {
		t.Errorf("a tag without v: %v: %s", err, out)
	}
	if out, err := stamp("v1.5.0", dist); err == nil || !strings.Contains(out, "no checksum for rlxp_1.5.0_linux_amd64.tar.gz") {
		t.Errorf("checksums of another version: %v: %s", err, out)
	}
	if out, err := stamp("v1.4.0", dist); err != nil {
		t.Fatalf("stamp: %v: %s", err, out)
	}
	for _, f := range []string{claudeManif, codexManif} {
		var m struct{ Version string }
		data, _ := os.ReadFile(filepath.Join(dir, f))
		if err := json.Unmarshal(data, &m); err != nil || m.Version != "1.4.0" {
			t.Errorf("%s: version %q, %v; want 1.4.0", f, m.Version, err)
		}
	}
	got, _ := os.ReadFile(filepath.Join(dir, pluginDir, ChecksumsFile))
	if d := cmp.Diff(sums("1.4.0"), string(got)); d != "" {
		t.Errorf("plugin checksums.txt (-want +got):\n%s", d)
	}
	rep, err := Validate(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Severity == SeverityError || strings.Contains(f.File, ChecksumsFile) {
			t.Errorf("after stamping: %s", f)
		}
	}
}

func TestChecksumsFindings(t *testing.T) {
	tests := []struct {
		name, content string
		want          []string
	}{
		{"another version", strings.SplitAfter(sums("0.9.0"), "\n")[0], []string{
			"plugins/rl-experiment-assistant/checksums.txt:1: error: rlxp_0.9.0_linux_amd64.tar.gz is not the plugin's version 0.1.0: the shim would find no checksum to verify a download against (scripts/stamp-release.sh stamps both)",
		}},
		{"not goreleaser's format", "abc rlxp.tar.gz\n", []string{
			"plugins/rl-experiment-assistant/checksums.txt:1: error: want \"<sha256>  rlxp_<version>_<os>_<arch>.tar.gz\" (goreleaser's checksums.txt), have \"abc rlxp.tar.gz\"",
		}},
		{"a platform missing", strings.Join(strings.SplitAfter(sums("0.1.0"), "\n")[:3], ""), []string{
			"plugins/rl-experiment-assistant/checksums.txt: warning: no checksum for rlxp_0.1.0_darwin_arm64.tar.gz: the shim cannot install rlxp on darwin/arm64",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			copyPackage(t, dir)
			for _, f := range []string{claudeManif, codexManif} {
				data, _ := os.ReadFile(filepath.Join(dir, f))
				var m map[string]any
				json.Unmarshal(data, &m)
				m["version"] = "0.1.0"
				data, _ = json.Marshal(m)
				os.WriteFile(filepath.Join(dir, f), data, 0o644)
			}
			os.WriteFile(filepath.Join(dir, pluginDir, ChecksumsFile), []byte(tt.content), 0o644)
			rep, err := Validate(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range rep.Findings {
				if strings.Contains(f.File, ChecksumsFile) {
					got = append(got, f.String())
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
		})
	}
}
