//go:build unix

package ledger_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/rlxp/rlxp/internal/cli"
)

// The ledger review action (action.yml, composite) and the example
// pull-request workflow that uses it (examples/ci/rlxp-ledger.yml) cannot
// run on GitHub from here, so these tests check their shape and run the
// action's steps locally: the shell steps under bash against a real git
// repository with this test binary as rlxp, and the github-script step under
// node with the GitHub API mocked.

const asRlxp = "RLXP_LEDGER_TEST_AS_RLXP"

func TestMain(m *testing.M) {
	if os.Getenv(asRlxp) == "1" {
		os.Exit(cli.Main(os.Args[1:], cli.SystemEnv("test")))
	}
	os.Exit(m.Run())
}

const (
	workflowFile = "../../examples/ci/rlxp-ledger.yml"
	actionFile   = "../../action.yml"
)

type action struct {
	Name        string         `yaml:"name"`
	Description string         `yaml:"description"`
	Author      string         `yaml:"author"`
	Branding    map[string]any `yaml:"branding"`
	Inputs      map[string]struct {
		Description string `yaml:"description"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]map[string]string `yaml:"outputs"`
	Runs    struct {
		Using string `yaml:"using"`
		Steps []step `yaml:"steps"`
	} `yaml:"runs"`
}

// loadAction reads action.yml; its steps run as one job's.
func loadAction(t *testing.T) (action, job) {
	t.Helper()
	data, err := os.ReadFile(actionFile)
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.UnmarshalWithOptions(data, &a, yaml.Strict()); err != nil {
		t.Fatalf("%s: %v", actionFile, err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("%s: runs.using = %q, want composite", actionFile, a.Runs.Using)
	}
	return a, job{Steps: a.Runs.Steps}
}

type workflow struct {
	Name        string            `yaml:"name"`
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Concurrency map[string]any    `yaml:"concurrency"`
	Jobs        map[string]job    `yaml:"jobs"`
}

type job struct {
	RunsOn string            `yaml:"runs-on"`
	Env    map[string]string `yaml:"env"`
	Steps  []step            `yaml:"steps"`
}

type step struct {
	Name            string            `yaml:"name"`
	ID              string            `yaml:"id"`
	If              string            `yaml:"if"`
	Uses            string            `yaml:"uses"`
	Shell           string            `yaml:"shell"`
	Run             string            `yaml:"run"`
	Env             map[string]string `yaml:"env"`
	With            map[string]any    `yaml:"with"`
	ContinueOnError bool              `yaml:"continue-on-error"`
}

func loadWorkflow(t *testing.T) (workflow, job) {
	t.Helper()
	data, err := os.ReadFile(workflowFile)
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.UnmarshalWithOptions(data, &w, yaml.Strict()); err != nil {
		t.Fatalf("%s: %v", workflowFile, err)
	}
	j, ok := w.Jobs["ledger"]
	if !ok || len(w.Jobs) != 1 {
		t.Fatalf("want one job named ledger, have %v", w.Jobs)
	}
	return w, j
}

func findStep(t *testing.T, j job, name string) step {
	t.Helper()
	for _, s := range j.Steps {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no step %q", name)
	return step{}
}

func TestWorkflowShape(t *testing.T) {
	w, j := loadWorkflow(t)
	if _, ok := w.On["pull_request"]; !ok || len(w.On) != 1 {
		t.Errorf("on = %v, want pull_request only", w.On)
	}
	if w.Permissions["pull-requests"] != "write" || w.Permissions["contents"] != "read" || len(w.Permissions) != 2 {
		t.Errorf("permissions = %v, want contents: read and pull-requests: write only", w.Permissions)
	}
	co := j.Steps[0]
	if !strings.HasPrefix(co.Uses, "actions/checkout@") || co.With["fetch-depth"] != uint64(0) {
		t.Errorf("first step = %+v, want actions/checkout with fetch-depth: 0", co)
	}
	if len(j.Steps) != 2 || !strings.HasPrefix(j.Steps[1].Uses, "rlxp/rlxp@") {
		t.Errorf("steps = %+v, want the checkout, then the rlxp action (rlxp/rlxp@...)", j.Steps)
	}
}

func TestActionShape(t *testing.T) {
	a, j := loadAction(t)
	if a.Name == "" || a.Description == "" {
		t.Errorf("name %q, description %q: both are required to publish an action", a.Name, a.Description)
	}
	for _, in := range []string{"version", "base-ref", "github-token"} {
		if a.Inputs[in].Description == "" || a.Inputs[in].Default == "" {
			t.Errorf("input %s = %+v, want a description and a default", in, a.Inputs[in])
		}
	}
	if s := findStep(t, j, "Verify the ledger"); s.Run != "rlxp ledger verify" || !s.ContinueOnError || s.ID != "verify" {
		t.Errorf("verify step = %+v", s)
	}
	if s := findStep(t, j, "Verify the approvals log"); s.Run != "rlxp approvals verify" || !s.ContinueOnError || s.ID != "approvals" {
		t.Errorf("approvals step = %+v", s)
	}
	d := findStep(t, j, "Diff against the base branch")
	if !strings.Contains(d.Run, `rlxp ledger diff --base "origin/$BASE_REF" --json`) || d.Env["BASE_REF"] != "${{ inputs.base-ref }}" {
		t.Errorf("diff step = %+v", d)
	}
	c := findStep(t, j, "Comment on the pull request")
	script, _ := c.With["script"].(string)
	if !strings.HasPrefix(c.Uses, "actions/github-script@") || !strings.Contains(script, "<!-- rlxp-ledger -->") ||
		!strings.Contains(script, "updateComment") || !strings.Contains(script, "createComment") ||
		c.With["github-token"] != "${{ inputs.github-token }}" {
		t.Errorf("comment step = %+v", c)
	}
	for _, s := range j.Steps {
		// A composite action's run steps must name their shell.
		if s.Run != "" && s.Shell != "bash" {
			t.Errorf("step %q: shell %q, want bash", s.Name, s.Shell)
		}
		// Expressions reach scripts only through env, never spliced into code.
		if strings.Contains(s.Run, "${{") || strings.Contains(script, "${{") {
			t.Errorf("step %q puts an expression into its script; pass it through env", s.Name)
		}
	}
}

// ci is a pull request's checkout, with the target branch's ledger
// committed and the branch's ledger on top.
type ci struct {
	t    *testing.T
	repo string
	tmp  string
	env  []string
	out  map[string]string // step id → outcome
}

func newCI(t *testing.T, base, head []byte) *ci {
	t.Helper()
	for _, tool := range []string{"git", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	root := t.TempDir()
	c := &ci{t: t, repo: filepath.Join(root, "repo"), tmp: filepath.Join(root, "runner-temp"), out: map[string]string{}}
	bin := filepath.Join(root, "bin")
	for _, d := range []string{c.repo, c.tmp, bin, filepath.Join(c.repo, ".rlxp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	wrapper := "#!/bin/sh\n" + asRlxp + "=1 exec '" + exe + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "rlxp"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	c.env = append(os.Environ(),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CEILING_DIRECTORIES="+root, "HOME="+root,
		"RUNNER_TEMP="+c.tmp,
		"GITHUB_OUTPUT="+filepath.Join(c.tmp, "output"),
		"GITHUB_STEP_SUMMARY="+filepath.Join(c.tmp, "summary"),
	)
	c.git("init", "-q")
	c.git("config", "user.name", "ci")
	c.git("config", "user.email", "ci@example.com")
	c.write(base)
	c.git("add", "-A")
	c.git("commit", "-q", "-m", "base")
	c.git("update-ref", "refs/remotes/origin/main", "HEAD")
	c.write(head)
	c.git("commit", "-q", "--allow-empty", "-a", "-m", "branch")
	return c
}

func (c *ci) git(args ...string) {
	c.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = c.repo, c.env
	if out, err := cmd.CombinedOutput(); err != nil {
		c.t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

func (c *ci) write(ledger []byte) {
	c.t.Helper()
	if err := os.WriteFile(filepath.Join(c.repo, ".rlxp", "ledger.jsonl"), ledger, 0o644); err != nil {
		c.t.Fatal(err)
	}
}

// expand evaluates the few expressions the workflow uses.
func (c *ci) expand(s string) string {
	re := regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)
	return re.ReplaceAllStringFunc(s, func(m string) string {
		expr := re.FindStringSubmatch(m)[1]
		switch {
		case expr == "github.base_ref" || expr == "inputs.base-ref":
			return "main"
		case expr == "runner.temp":
			return c.tmp
		case strings.HasPrefix(expr, "steps.") && strings.HasSuffix(expr, ".outcome"):
			return c.out[strings.TrimSuffix(strings.TrimPrefix(expr, "steps."), ".outcome")]
		}
		c.t.Fatalf("unknown expression %s", m)
		return ""
	})
}

func (c *ci) stepEnv(j job, s step) []string {
	env := append([]string(nil), c.env...)
	for k, v := range j.Env {
		env = append(env, k+"="+c.expand(v))
	}
	for k, v := range s.Env {
		env = append(env, k+"="+c.expand(v))
	}
	return env
}

// run runs a shell step as GitHub's default bash shell does and records
// its outcome; it returns the exit code and the output.
func (c *ci) run(j job, s step) (int, string) {
	c.t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
	cmd.Dir, cmd.Env = c.repo, c.stepEnv(j, s)
	out, err := cmd.CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatalf("%s: %v", s.Name, err)
	}
	if s.ID != "" {
		c.out[s.ID] = map[bool]string{true: "success", false: "failure"}[code == 0]
	}
	return code, string(out)
}

// The github-script step under node, with the API mocked: it prints the
// calls the script made.
const harness = `
const fs = require('fs');
const calls = [];
const existing = JSON.parse(process.env.MOCK_COMMENTS || '[]');
const github = {
  paginate: async (fn, args) => { calls.push(['list', args.issue_number]); return existing; },
  rest: { issues: {
    listComments: () => { throw new Error('listComments is called through paginate'); },
    updateComment: async (a) => { calls.push(['update', a.comment_id, a.body]); },
    createComment: async (a) => { calls.push(['create', a.issue_number, a.body]); return { data: { id: 99 } }; },
  } },
};
const context = { repo: { owner: 'o', repo: 'r' }, payload: { pull_request: { number: 7 } } };
const core = {
  info: () => {},
  warning: (m) => calls.push(['warning', m]),
  summary: { addRaw(b) { calls.push(['summary', b]); return this; }, async write() {} },
};
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
new AsyncFunction('require', 'github', 'context', 'core', fs.readFileSync(process.argv[2], 'utf8'))(require, github, context, core)
  .then(() => console.log(JSON.stringify(calls)), (e) => { console.error(e); process.exit(1); });
`

func (c *ci) script(j job, s step, comments string) [][]any {
	c.t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		c.t.Log("node is not installed; the github-script step is not run")
		return nil
	}
	dir := c.t.TempDir()
	h, js := filepath.Join(dir, "harness.js"), filepath.Join(dir, "script.js")
	os.WriteFile(h, []byte(harness), 0o644)
	os.WriteFile(js, []byte(s.With["script"].(string)), 0o644)
	cmd := exec.Command(node, h, js)
	cmd.Dir, cmd.Env = c.repo, append(c.stepEnv(j, s), "MOCK_COMMENTS="+comments)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		c.t.Fatalf("github-script: %v: %s", err, stderr)
	}
	var calls [][]any
	if err := json.Unmarshal(out, &calls); err != nil {
		c.t.Fatalf("github-script output %q: %v", out, err)
	}
	return calls
}

func fixture(t *testing.T, name string, lines int) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "cmd", "rlxp", "testdata", "fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	if lines < 0 {
		return data
	}
	parts := strings.SplitAfter(string(data), "\n")
	return []byte(strings.Join(parts[:lines], ""))
}

func TestActionRuns(t *testing.T) {
	_, j := loadAction(t)
	verify := findStep(t, j, "Verify the ledger")
	approvals := findStep(t, j, "Verify the approvals log")
	diff := findStep(t, j, "Diff against the base branch")
	comment := findStep(t, j, "Comment on the pull request")
	fail := findStep(t, j, "Fail on findings")
	const marker = "<!-- rlxp-ledger -->"

	t.Run("new entries", func(t *testing.T) {
		c := newCI(t, fixture(t, "ledger.jsonl", 4), fixture(t, "ledger.jsonl", -1))
		if code, out := c.run(j, approvals); code != 0 {
			t.Fatalf("approvals (none recorded): exit %d: %s", code, out)
		}
		if code, out := c.run(j, verify); code != 0 || !strings.Contains(out, "12 entries, chain verifies") {
			t.Fatalf("verify: exit %d: %s", code, out)
		}
		if code, out := c.run(j, diff); code != 0 {
			t.Fatalf("diff: exit %d: %s", code, out)
		}
		var res struct {
			OK       bool              `json:"ok"`
			New      []json.RawMessage `json:"new"`
			Markdown string            `json:"markdown"`
		}
		data, _ := os.ReadFile(filepath.Join(c.tmp, "rlxp-ledger-diff.json"))
		if err := json.Unmarshal(data, &res); err != nil || !res.OK || len(res.New) != 8 {
			t.Fatalf("diff JSON: ok %v, %d new, %v", res.OK, len(res.New), err)
		}
		if calls := c.script(j, comment, "[]"); calls != nil {
			last := calls[len(calls)-1]
			body, _ := last[2].(string)
			if last[0] != "create" || last[1] != float64(7) || body != marker+"\n"+res.Markdown {
				t.Errorf("without a comment: calls %v, want create with the marker and the Markdown", calls)
			}
		}
		existing := `[{"id": 5, "user": {"type": "User"}, "body": "` + marker + ` quoted by a person"}, {"id": 6, "user": {"type": "Bot"}, "body": "` + marker + `\nold"}]`
		if calls := c.script(j, comment, existing); calls != nil {
			last := calls[len(calls)-1]
			if last[0] != "update" || last[1] != float64(6) {
				t.Errorf("with a comment: calls %v, want the bot's comment 6 updated", calls)
			}
		}
		if code, out := c.run(j, fail); code != 0 {
			t.Errorf("fail step: exit %d: %s", code, out)
		}
	})

	t.Run("rewritten history", func(t *testing.T) {
		c := newCI(t, fixture(t, "ledger.jsonl", 4), fixture(t, "ledger-rewritten.jsonl", -1))
		c.run(j, approvals)
		if code, _ := c.run(j, verify); code != 0 {
			t.Fatalf("verify: exit %d (the rewritten chain verifies on its own)", code)
		}
		if code, out := c.run(j, diff); code != 3 {
			t.Fatalf("diff: exit %d, want 3: %s", code, out)
		}
		if calls := c.script(j, comment, "[]"); calls != nil {
			last := calls[len(calls)-1]
			body, _ := last[2].(string)
			if last[0] != "create" || !strings.HasPrefix(body, marker+"\n### rlxp ledger: refused\n") ||
				!strings.Contains(body, "`.rlxp/ledger.jsonl:3`: differs from the same line of the base: history was rewritten") {
				t.Errorf("calls %v", calls)
			}
		}
		if code, out := c.run(j, fail); code != 1 || !strings.Contains(out, "verify: success, approvals: success, diff: failure") {
			t.Errorf("fail step: exit %d: %s", code, out)
		}
	})

	t.Run("torn ledger", func(t *testing.T) {
		c := newCI(t, fixture(t, "ledger.jsonl", 4), fixture(t, "ledger-torn.jsonl", -1))
		c.run(j, approvals)
		if code, out := c.run(j, verify); code != 3 || !strings.Contains(out, ".rlxp/ledger.jsonl:13: torn last line") {
			t.Fatalf("verify: exit %d: %s", code, out)
		}
		if code, _ := c.run(j, diff); code != 3 {
			t.Fatalf("diff: exit %d, want 3", code)
		}
		if code, _ := c.run(j, fail); code != 1 {
			t.Errorf("fail step: exit %d, want 1", code)
		}
	})

	t.Run("approvals log edited by hand", func(t *testing.T) {
		c := newCI(t, fixture(t, "ledger.jsonl", 4), fixture(t, "ledger.jsonl", -1))
		line := `{"seq":1,"prev":"","hash":"sha256:0000000000000000000000000000000000000000000000000000000000000000","kind":"contract","by":"someone"}` + "\n"
		if err := os.WriteFile(filepath.Join(c.repo, ".rlxp", "approvals.jsonl"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, out := c.run(j, approvals); code != 3 || !strings.Contains(out, ".rlxp/approvals.jsonl:1") {
			t.Fatalf("approvals: exit %d, want 3 naming line 1: %s", code, out)
		}
		c.run(j, verify)
		c.run(j, diff)
		if code, out := c.run(j, fail); code != 1 || !strings.Contains(out, "approvals: failure") {
			t.Errorf("fail step: exit %d: %s", code, out)
		}
	})

	t.Run("no new entries", func(t *testing.T) {
		c := newCI(t, fixture(t, "ledger.jsonl", 4), fixture(t, "ledger.jsonl", 4))
		c.run(j, verify)
		if code, out := c.run(j, diff); code != 0 {
			t.Fatalf("diff: exit %d: %s", code, out)
		}
		if calls := c.script(j, comment, "[]"); calls != nil {
			for _, call := range calls {
				if call[0] == "create" || call[0] == "update" {
					t.Errorf("commented on a pull request that adds nothing: %v", calls)
				}
			}
		}
	})

	t.Run("base branch unknown", func(t *testing.T) {
		c := newCI(t, fixture(t, "ledger.jsonl", 4), fixture(t, "ledger.jsonl", -1))
		c.git("update-ref", "-d", "refs/remotes/origin/main")
		if code, out := c.run(j, diff); code != 1 || !strings.Contains(out, "rlxp: base origin/main: git cat-file: ") {
			t.Fatalf("diff: exit %d: %s", code, out)
		}
		if calls := c.script(j, comment, "[]"); calls != nil {
			last := calls[len(calls)-1]
			body, _ := last[2].(string)
			if last[0] != "create" || !strings.Contains(body, "### rlxp ledger: could not run\n\n```\nrlxp: base origin/main: git cat-file: ") {
				t.Errorf("calls %v", calls)
			}
		}
	})
}
