//go:build unix

package plugin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The real Claude Code and Codex CLIs validate, add and install the package.
// They run offline, each with a fresh HOME, against a copy of the package.

const (
	clientTimeout   = 120 * time.Second
	marketplaceName = "rlxp"
	pluginName      = "rl-experiment-assistant"
	pluginID        = pluginName + "@" + marketplaceName
)

const installClientsHint = `install them with:
  mkdir -p ~/.cache/rlxp-clients && cd ~/.cache/rlxp-clients && npm init -y && npm install @anthropic-ai/claude-code@2.1.197 @openai/codex@0.171.0
then set RLXP_CLIENTS_BIN=~/.cache/rlxp-clients/node_modules/.bin (or put claude and codex on PATH)`

// clientBins finds claude and codex in $RLXP_CLIENTS_BIN, else on PATH.
func clientBins(t *testing.T) (claude, codex string) {
	t.Helper()
	find := func(name string) string {
		if dir := os.Getenv("RLXP_CLIENTS_BIN"); dir != "" {
			p := filepath.Join(dir, name)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				return p
			}
			return ""
		}
		p, err := exec.LookPath(name)
		if err != nil {
			return ""
		}
		return p
	}
	claude, codex = find("claude"), find("codex")
	if claude == "" || codex == "" {
		var missing []string
		if claude == "" {
			missing = append(missing, "claude")
		}
		if codex == "" {
			missing = append(missing, "codex")
		}
		msg := fmt.Sprintf("real clients not found: %s; %s", strings.Join(missing, ", "), installClientsHint)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return claude, codex
}

// clientEnv is the environment for a client: the caller's PATH (codex runs
// under node), a fresh HOME and CODEX_HOME, and nothing that points either
// client at other configuration.
func clientEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOME", k == "RUST_BACKTRACE", k == "NO_COLOR", k == "TERM":
		case strings.HasPrefix(k, "CLAUDE"), strings.HasPrefix(k, "ANTHROPIC_"),
			strings.HasPrefix(k, "CODEX_"), strings.HasPrefix(k, "OPENAI_"), strings.HasPrefix(k, "XDG_"):
		default:
			env = append(env, kv)
		}
	}
	return append(env,
		"HOME="+home,
		"CODEX_HOME="+filepath.Join(home, ".codex"),
		"RUST_BACKTRACE=0",
		"NO_COLOR=1",
		"TERM=dumb",
		"DISABLE_AUTOUPDATER=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	)
}

// clientResult is one finished client command.
type clientResult struct {
	stdout, stderr string
	code           int
}

func (r clientResult) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// runClient runs bin with args in dir, bounded by clientTimeout; the whole
// process group is killed on timeout.
func runClient(t *testing.T, dir string, env []string, bin string, args ...string) clientResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	res := clientResult{stdout: stdout.String(), stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s %s: timed out after %s\n%s", filepath.Base(bin), strings.Join(args, " "), clientTimeout, res)
	case errors.As(err, &exitErr):
		res.code = exitErr.ExitCode()
	case err != nil:
		t.Fatalf("%s %s: %v", filepath.Base(bin), strings.Join(args, " "), err)
	}
	return res
}

// mustRun runs a client command that must exit 0 and print want (if set).
func mustRun(t *testing.T, dir string, env []string, want string, bin string, args ...string) clientResult {
	t.Helper()
	res := runClient(t, dir, env, bin, args...)
	if res.code != 0 {
		t.Fatalf("%s %s: want exit 0\n%s", filepath.Base(bin), strings.Join(args, " "), res)
	}
	if want != "" && !strings.Contains(res.stdout+res.stderr, want) {
		t.Fatalf("%s %s: output lacks %q\n%s", filepath.Base(bin), strings.Join(args, " "), want, res)
	}
	return res
}

var (
	detailsLineRe = regexp.MustCompile(`(?m)^\s*(Skills|Agents|Hooks) \((\d+)\)[ \t]*(.*)$`)
	// A remark after the hook events: "(harness-only — no model context cost)".
	detailsRemarkRe = regexp.MustCompile(`\s+\(.*\)$`)
)

// parseDetails reads the "Skills (n) a, b", "Agents (n) ..." and "Hooks (n)
// Event, ..." lines of "claude plugin details".
func parseDetails(t *testing.T, out string) (skills, agents, hooks []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range detailsLineRe.FindAllStringSubmatch(out, -1) {
		var names []string
		for _, n := range strings.Split(detailsRemarkRe.ReplaceAllString(m[3], ""), ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		if fmt.Sprint(len(names)) != m[2] {
			t.Errorf("details line %q: count %s but %d names", m[0], m[2], len(names))
		}
		sort.Strings(names)
		seen[m[1]] = true
		switch m[1] {
		case "Skills":
			skills = names
		case "Agents":
			agents = names
		default:
			hooks = names
		}
	}
	if !seen["Skills"] || !seen["Agents"] || !seen["Hooks"] {
		t.Fatalf("plugin details output has no Skills/Agents/Hooks lines:\n%s", out)
	}
	return skills, agents, hooks
}

func TestRealClients(t *testing.T) {
	claude, codex := clientBins(t)
	repo := repoRoot(t)
	wantSkills := packageSkills(t, repo)
	wantAgents := packageAgents(t, repo)
	// Claude Code lists commands with the skills: both are slash commands.
	wantClaudeSkills := append(packageCommands(t, repo), wantSkills...)
	sort.Strings(wantClaudeSkills)
	rep, err := Validate(repo)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Plugins) != 1 || rep.Plugins[0].Version == "" {
		t.Fatalf("package summary: %+v", rep.Plugins)
	}
	wantVersion := rep.Plugins[0].Version
	wantHooks := rep.Plugins[0].Hooks
	if len(wantHooks) == 0 {
		t.Fatalf("the package has no hooks; the guard hook is missing")
	}

	t.Run("claude", func(t *testing.T) {
		t.Parallel()
		root := filepath.Join(t.TempDir(), "pkg")
		copyPackage(t, root)
		// As from GitHub: no binary built; the shim fetches the release.
		if err := os.RemoveAll(filepath.Join(root, pluginDir, "bin")); err != nil {
			t.Fatal(err)
		}
		home := t.TempDir()
		env := clientEnv(home)
		pluginPath := filepath.Join(root, pluginDir)

		// Claude 2.1.197 does not look inside plugins from the marketplace
		// root, so both the plugin dir and the root are validated.
		mustRun(t, root, env, "Validation passed", claude, "plugin", "validate", "--strict", pluginPath)
		mustRun(t, root, env, "Validation passed", claude, "plugin", "validate", "--strict", root)

		// Before installing: does the plugin dir load as a session plugin?
		res := mustRun(t, root, env, "", claude, "--plugin-dir", pluginPath, "plugin", "details", pluginName+"@inline")
		skills, agents, hooks := parseDetails(t, res.stdout)
		if diff := cmp.Diff(wantClaudeSkills, skills); diff != "" {
			t.Errorf("--plugin-dir details skills (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(wantAgents, agents); diff != "" {
			t.Errorf("--plugin-dir details agents (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(wantHooks, hooks); diff != "" {
			t.Errorf("--plugin-dir details hooks (-want +got):\n%s", diff)
		}

		// "./", not ".": Claude rejects a bare "." as a marketplace source.
		mustRun(t, root, env, marketplaceName, claude, "plugin", "marketplace", "add", "./")
		mustRun(t, root, env, pluginID, claude, "plugin", "install", pluginID)
		res = mustRun(t, root, env, wantVersion, claude, "plugin", "details", pluginID)
		skills, agents, hooks = parseDetails(t, res.stdout)
		if diff := cmp.Diff(wantClaudeSkills, skills); diff != "" {
			t.Errorf("installed details skills (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(wantAgents, agents); diff != "" {
			t.Errorf("installed details agents (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(wantHooks, hooks); diff != "" {
			t.Errorf("installed details hooks (-want +got):\n%s", diff)
		}
	})

	t.Run("codex", func(t *testing.T) {
		t.Parallel()
		root := filepath.Join(t.TempDir(), "pkg")
		copyPackage(t, root)
		if err := os.RemoveAll(filepath.Join(root, pluginDir, "bin")); err != nil {
			t.Fatal(err)
		}
		home := t.TempDir()
		// Codex refuses to start when CODEX_HOME does not exist.
		if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o755); err != nil {
			t.Fatal(err)
		}
		env := clientEnv(home)

		mustRun(t, root, env, "Added marketplace `"+marketplaceName+"`", codex, "plugin", "marketplace", "add", ".")
		mustRun(t, root, env, "Added plugin `"+pluginName+"`", codex, "plugin", "add", pluginID)

		res := mustRun(t, root, env, "", codex, "plugin", "list", "--json")
		var list struct {
			Installed []struct {
				PluginID  string `json:"pluginId"`
				Version   string `json:"version"`
				Installed bool   `json:"installed"`
				Enabled   bool   `json:"enabled"`
			} `json:"installed"`
		}
		if err := json.Unmarshal([]byte(res.stdout), &list); err != nil {
			t.Fatalf("codex plugin list --json: %v\n%s", err, res)
		}
		found := false
		for _, p := range list.Installed {
			if p.PluginID != pluginID {
				continue
			}
			found = true
			if !p.Installed || !p.Enabled || p.Version != wantVersion {
				t.Errorf("codex plugin list: %+v, want installed, enabled, version %s", p, wantVersion)
			}
		}
		if !found {
			t.Fatalf("codex plugin list --json does not show %s:\n%s", pluginID, res)
		}

		work := t.TempDir()
		skills, skillErrors := codexSkillsList(t, codex, home, work)
		var got []string
		for _, s := range skills {
			if s.PluginID != pluginID {
				continue
			}
			name, ok := strings.CutPrefix(s.Name, pluginName+":")
			if !ok {
				t.Errorf("skill %q is not namespaced %s:", s.Name, pluginName)
			}
			if !s.Enabled {
				t.Errorf("skill %q is not enabled", s.Name)
			}
			got = append(got, name)
		}
		sort.Strings(got)
		if diff := cmp.Diff(wantSkills, got); diff != "" {
			t.Errorf("codex skills/list (-want +got):\n%s", diff)
		}
		if len(skillErrors) != 0 {
			t.Errorf("codex skills/list errors: %s", skillErrors)
		}

		// plugin/read lists the hooks Codex loaded from the installed
		// plugin, by event, in camelCase (PreToolUse is preToolUse).
		raw := codexRequest(t, codex, home, work, "plugin/read", map[string]any{
			"pluginName": pluginName, "marketplacePath": filepath.Join(root, CodexMarketplaceFile)})
		var read struct {
			Plugin struct {
				Summary struct {
					Installed bool `json:"installed"`
				} `json:"summary"`
				Hooks []struct {
					Key       string `json:"key"`
					EventName string `json:"eventName"`
				} `json:"hooks"`
			} `json:"plugin"`
		}
		if err := json.Unmarshal(raw, &read); err != nil {
			t.Fatalf("plugin/read result: %v\n%s", err, raw)
		}
		if !read.Plugin.Summary.Installed {
			t.Errorf("plugin/read: %s is not installed:\n%s", pluginID, raw)
		}
		// Each handler is listed with a key ending in
		// hooks/hooks.json:<event in snake case>:<group>:<handler>.
		var listed, want []string
		for _, h := range read.Plugin.Hooks {
			listed = append(listed, h.EventName+" "+h.Key[strings.Index(h.Key, ":")+1:])
		}
		for _, e := range wantHooks {
			for gi, n := range hookHandlers(t, repo, e) {
				for hi := 0; hi < n; hi++ {
					want = append(want, fmt.Sprintf("%s hooks/hooks.json:%s:%d:%d", strings.ToLower(e[:1])+e[1:], snakeCase(e), gi, hi))
				}
			}
		}
		sort.Strings(listed)
		sort.Strings(want)
		if diff := cmp.Diff(want, listed); diff != "" {
			t.Errorf("codex plugin/read hooks (-want +got):\n%s", diff)
		}
	})
}

// hookHandlers counts the handlers of each matcher group of an event in
// the package's hooks file.
func hookHandlers(t *testing.T, repo, event string) []int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, hooksFile))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Hooks map[string][]struct {
			Hooks []json.RawMessage `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	var n []int
	for _, g := range f.Hooks[event] {
		n = append(n, len(g.Hooks))
	}
	return n
}

// snakeCase is PreToolUse as pre_tool_use.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if 'A' <= r && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// codexSkill is one entry of the app-server's skills/list answer.
type codexSkill struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	Enabled  bool   `json:"enabled"`
	PluginID string `json:"pluginId"`
}

// codexSkillsList asks "codex app-server" for the skills visible from cwd.
func codexSkillsList(t *testing.T, codex, home, cwd string) ([]codexSkill, json.RawMessage) {
	t.Helper()
	raw := codexRequest(t, codex, home, cwd, "skills/list", map[string]any{"cwds": []string{cwd}})
	var result struct {
		Data []struct {
			Cwd    string          `json:"cwd"`
			Skills []codexSkill    `json:"skills"`
			Errors json.RawMessage `json:"errors"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &result); err != nil {
		t.Fatalf("skills/list result: %v\n%s", err, raw)
	}
	if len(result.Data) != 1 {
		t.Fatalf("skills/list: want one entry for %s, got %s", cwd, raw)
	}
	errs := result.Data[0].Errors
	if string(errs) == "[]" || string(errs) == "null" || len(errs) == 0 {
		errs = nil
	}
	return result.Data[0].Skills, errs
}

// codexRequest makes one JSON-RPC request of "codex app-server" in cwd,
// over stdio after initialize and initialized, and returns its result.
// The server is killed afterwards.
func codexRequest(t *testing.T, codex, home, cwd, method string, params any) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "app-server")
	cmd.Dir = cwd
	cmd.Env = clientEnv(home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = stdin.Close()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	}()

	lines := make(chan []byte)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
		for sc.Scan() {
			select {
			case lines <- append([]byte(nil), sc.Bytes()...):
			case <-ctx.Done():
				return
			}
		}
	}()
	send := func(msg string) {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatalf("write to codex app-server: %v\nstderr:\n%s", err, stderr.String())
		}
	}
	// await reads messages until the response with the given id.
	await := func(id int) json.RawMessage {
		for {
			select {
			case <-ctx.Done():
				t.Fatalf("codex app-server: no response to request %d within %s\nstderr:\n%s", id, clientTimeout, stderr.String())
			case line, ok := <-lines:
				if !ok {
					t.Fatalf("codex app-server exited before answering request %d\nstderr:\n%s", id, stderr.String())
				}
				var msg struct {
					ID     *int            `json:"id"`
					Result json.RawMessage `json:"result"`
					Error  json.RawMessage `json:"error"`
				}
				if json.Unmarshal(line, &msg) != nil || msg.ID == nil || *msg.ID != id {
					continue // notifications and unrelated lines
				}
				if len(msg.Error) != 0 && string(msg.Error) != "null" {
					t.Fatalf("codex app-server request %d failed: %s", id, msg.Error)
				}
				return msg.Result
			}
		}
	}

	send(`{"id":0,"method":"initialize","params":{"clientInfo":{"name":"rlxp-test","version":"0"}}}`)
	await(0)
	send(`{"method":"initialized"}`)
	req, err := json.Marshal(map[string]any{"id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	send(string(req))
	return await(1)
}
