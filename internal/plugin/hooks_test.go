package plugin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGuardHookWiring pins the package's one hook: rlxp guard, through the
// shim, before every call of the shell tool, which both hosts name Bash in
// hook matchers and payloads (Codex for its shell, shell_command and
// exec_command tools alike), and of the file-writing tools.
func TestGuardHookWiring(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot(t), hooksFile))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	groups := f.Hooks["PreToolUse"]
	if len(f.Hooks) != 1 || len(groups) == 0 {
		t.Fatalf("want PreToolUse groups only, got %s", data)
	}
	selects := func(tool string) bool {
		for _, g := range groups {
			if matcherSelects(g.Matcher, tool) {
				return true
			}
		}
		return false
	}
	for _, tool := range guardTools {
		if !selects(tool) {
			t.Errorf("no matcher selects %s", tool)
		}
	}
	// Tools that neither run commands nor write files cost a process start
	// for nothing.
	for _, other := range []string{"Read", "Grep", "Glob", "BashOutput", "WebFetch", "mcp__x__y"} {
		if selects(other) {
			t.Errorf("a matcher also selects %s", other)
		}
	}
	for _, g := range groups {
		if len(g.Hooks) != 1 {
			t.Fatalf("group %q: want one hook, got %d", g.Matcher, len(g.Hooks))
		}
		h := g.Hooks[0]
		if diff := cmp.Diff(`"${CLAUDE_PLUGIN_ROOT}/scripts/rlxp" guard`, h.Command); h.Type != "command" || diff != "" {
			t.Errorf("hook type %q, command (-want +got):\n%s", h.Type, diff)
		}
		if h.Timeout <= 0 {
			t.Errorf("timeout %d: a hung hook would hold the agent for the host's default of minutes", h.Timeout)
		}
	}
}
