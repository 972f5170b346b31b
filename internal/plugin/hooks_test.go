package plugin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGuardHookWiring pins the package's one hook: rlxp guard, through the
// shim, before every call of the shell tool, which both hosts name Bash in
// hook matchers and payloads (Codex for its shell, shell_command and
// exec_command tools alike).
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
	if len(f.Hooks) != 1 || len(groups) != 1 || len(groups[0].Hooks) != 1 {
		t.Fatalf("want one PreToolUse group with one hook, got %s", data)
	}
	g := groups[0]
	if !matcherSelects(g.Matcher, "Bash") {
		t.Errorf("matcher %q does not select the shell tool Bash", g.Matcher)
	}
	for _, other := range []string{"Write", "Edit", "apply_patch", "BashOutput", "mcp__x__y"} {
		if matcherSelects(g.Matcher, other) {
			t.Errorf("matcher %q also selects %s", g.Matcher, other)
		}
	}
	h := g.Hooks[0]
	if diff := cmp.Diff(`"${CLAUDE_PLUGIN_ROOT}/scripts/rlxp" guard`, h.Command); h.Type != "command" || diff != "" {
		t.Errorf("hook type %q, command (-want +got):\n%s", h.Type, diff)
	}
	if h.Timeout <= 0 {
		t.Errorf("timeout %d: a hung hook would hold the agent for the host's default of minutes", h.Timeout)
	}
}

// matcherSelects applies a matcher the way both hosts do: names separated
// by | compare exactly; anything else is a regular expression.
func matcherSelects(matcher, tool string) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	if exactMatcherRe().MatchString(matcher) {
		for _, m := range strings.Split(matcher, "|") {
			if m == tool {
				return true
			}
		}
		return false
	}
	return regexp.MustCompile(matcher).MatchString(tool)
}
