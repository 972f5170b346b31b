package plugin

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Paths inside the repository's package.
const (
	pluginDir   = "plugins/rl-experiment-assistant"
	claudeMkt   = ClaudeMarketplaceFile
	codexMkt    = CodexMarketplaceFile
	claudeManif = pluginDir + "/" + ClaudeManifestFile
	codexManif  = pluginDir + "/" + CodexManifestFile
)

// repoRoot is the repository root, two levels above this package.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, claudeMkt)); err != nil {
		t.Fatalf("repository package not found at %s: %v", root, err)
	}
	return root
}

// copyPackage copies the repository's plugin package (both marketplace
// directories and plugins/) into dst, keeping file modes.
func copyPackage(t testing.TB, dst string) {
	t.Helper()
	root := repoRoot(t)
	for _, top := range []string{".claude-plugin", ".agents", "plugins"} {
		if err := copyTree(filepath.Join(root, top), filepath.Join(dst, top)); err != nil {
			t.Fatalf("copy %s: %v", top, err)
		}
	}
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, info.Mode().Perm())
		}
		return nil
	})
}

// packageSkills lists the skill directories of the repository's plugin.
func packageSkills(t testing.TB, root string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(root, pluginDir, "skills"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(root, pluginDir, "skills", e.Name(), "SKILL.md")); err == nil {
				names = append(names, e.Name())
			}
		}
	}
	sort.Strings(names)
	return names
}

// packageCommands lists the command files (without .md) of the repository's plugin.
func packageCommands(t testing.TB, root string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(root, pluginDir, "commands", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, m := range matches {
		names = append(names, strings.TrimSuffix(filepath.Base(m), ".md"))
	}
	sort.Strings(names)
	return names
}

// packageVersion is the version in the repository's Claude Code manifest
// (the validator checks that every other place agrees with it).
func packageVersion(t testing.TB, root string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, claudeManif))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Version string }
	if err := json.Unmarshal(data, &m); err != nil || m.Version == "" {
		t.Fatalf("%s: no version (%v)", claudeManif, err)
	}
	return m.Version
}

// packageAgents lists the agent files (without .md) of the repository's plugin.
func packageAgents(t testing.TB, root string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(root, pluginDir, "agents", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range matches {
		names = append(names, strings.TrimSuffix(filepath.Base(m), ".md"))
	}
	sort.Strings(names)
	return names
}

func readText(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeText(t testing.TB, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// replaceOnce replaces exactly one occurrence of old in the file rel under root.
func replaceOnce(t testing.TB, root, rel, old, new string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	s := readText(t, p)
	if n := strings.Count(s, old); n != 1 {
		t.Fatalf("%s: %q occurs %d times, want 1", rel, old, n)
	}
	writeText(t, p, strings.Replace(s, old, new, 1))
}

// editJSON decodes the file rel under root, lets edit change it and writes it back.
func editJSON(t testing.TB, root, rel string, edit func(m map[string]any)) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	var m map[string]any
	if err := json.Unmarshal([]byte(readText(t, p)), &m); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	edit(m)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeText(t, p, string(b)+"\n")
}

// firstEntry returns plugins[0] of a decoded marketplace.
func firstEntry(m map[string]any) map[string]any {
	return m["plugins"].([]any)[0].(map[string]any)
}
