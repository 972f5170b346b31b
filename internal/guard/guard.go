// Package guard decides whether an agent's shell command may run. It is
// the logic of 'rlxp guard', the PreToolUse hook that Claude Code and Codex
// call before their shell tool runs a command.
//
// The guard refuses two things: a training launch that bypasses
// 'rlxp launch' (the train and eval commands declared in
// .rlxp/adapter.yaml, and well-known trainer entry points such as torchrun,
// accelerate launch, sbatch or python train.py), and an agent's attempt to
// approve the contract or an experiment, which is a human act. Everything
// else is allowed. It parses the command as bash does, so a launch hidden
// behind env assignments, nohup, timeout, sudo, uv run, bash -c '...' and
// the like is still seen.
//
// It is a guardrail against a well-meaning agent taking a shortcut, not a
// sandbox: see docs/guard.md for the threat model.
package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlxp/rlxp/internal/state"
)

// ShellTool is the tool name of the shell tool in both hosts' PreToolUse
// payloads: Claude Code's Bash tool, and every Codex shell tool (shell,
// shell_command, exec_command, local_shell), which Codex reports as Bash.
const ShellTool = "Bash"

// PatchTool is Codex's file-editing tool; its tool_input.command is a
// patch, not shell.
const PatchTool = "apply_patch"

// preToolUse is the only hook event the guard decides on.
const preToolUse = "PreToolUse"

// A Decision is the guard's answer for one tool call.
type Decision struct {
	Deny bool
	// Ask means the host should ask the human before the tool call runs
	// (Claude Code's permissionDecision "ask"); Reason is the question.
	Ask bool
	// Reason is one line: for a denial, what was refused, why, and what
	// to do instead. It is empty when the command is allowed.
	Reason string
}

// denyf makes a denial. Line breaks from the command (in a script's name,
// say) are escaped: the reason is one line.
func denyf(format string, args ...any) Decision {
	return Decision{Deny: true, Reason: oneLine(fmt.Sprintf(format, args...))}
}

func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\n", `\n`), "\r", `\r`)
}

// payload is the part of a PreToolUse hook input the guard reads. Both
// hosts send these fields; the rest (session, transcript, model,
// permission mode, tool_use_id) does not matter here, except that only
// Codex sends turn_id.
type payload struct {
	HookEventName string                     `json:"hook_event_name"`
	ToolName      string                     `json:"tool_name"`
	ToolInput     map[string]json.RawMessage `json:"tool_input"`
	CWD           string                     `json:"cwd"`
	TurnID        *string                    `json:"turn_id"`
}

// An Invocation is an rlxp command line as rlxp itself reads it.
type Invocation struct {
	// Command is the command path ("contract approve", "launch"); "" when
	// rlxp would only print help or its version, or refuse the line as a
	// usage error: nothing runs.
	Command string
	Flags   map[string]string // the flags given, by long name
	Args    []string          // the positional arguments
}

// A Guard decides on tool calls. Rlxp reads rlxp's own command lines with
// rlxp's command table and flag definitions, so that the guard never reads
// one differently from rlxp; without it, every rlxp command inside a
// repository is refused.
type Guard struct {
	Rlxp func(args []string) Invocation
	Home string // $HOME, for ~
	// Find returns the repository above dir, or "" (the nearest directory
	// with a .rlxp directory, as state.Find, when nil).
	Find func(dir string) string
	// Load reads a repository's policy (LoadPolicy when nil).
	Load func(root string) *Policy

	found    map[string]string
	policies map[string]*Policy
	known    []string // roots met so far, in order
}

// Check decides on one PreToolUse payload as the host wrote it to the
// hook's stdin. dir is the hook's working directory, used when the payload
// names none.
//
// Outside a directory tree with .rlxp/ everything is allowed; inside one,
// a payload the guard cannot read is refused. Any payload with a
// tool_input.command is inspected, whatever the tool is called; the hosts'
// file-writing tools are refused writes to the files rlxp alone writes.
func (g *Guard) Check(data []byte, dir string) Decision {
	var p payload
	if err := json.Unmarshal(data, &p); err != nil {
		return g.unreadable(dir, "cannot read the hook payload (%s)", jsonProblem(err))
	}
	cwd := p.CWD
	switch {
	case cwd == "":
		cwd = dir
	case !filepath.IsAbs(cwd):
		cwd = filepath.Join(dir, cwd)
	}
	if p.HookEventName != "" && p.HookEventName != preToolUse {
		return Decision{}
	}
	if p.ToolName == "" {
		return g.unreadable(cwd, "the hook payload names no tool_name")
	}
	raw, hasCommand := p.ToolInput["command"]
	if !hasCommand {
		if d := g.fileTool(p, cwd); d.Deny {
			return d
		}
		if p.ToolName == ShellTool {
			return g.unreadable(cwd, "the hook payload's tool_input holds no command")
		}
		return Decision{}
	}
	command, ok := commandString(raw)
	if string(raw) == "null" {
		ok = false
	}
	if !ok {
		return g.unreadable(cwd, "the hook payload's tool_input.command is neither a string nor a list of strings")
	}
	if p.ToolName == PatchTool {
		return g.patch(command, cwd)
	}
	return g.decide(command, cwd, p.TurnID == nil)
}

// unreadable refuses what the guard cannot read inside a repository, and
// allows it outside one.
func (g *Guard) unreadable(dir, format string, args ...any) Decision {
	if g.root(dir) == "" {
		return Decision{}
	}
	return denyf(format+"; the guard refuses a command it cannot inspect", args...)
}

// commandString reads tool_input.command: a string, or an argv list that
// is joined with shell quoting as Codex does.
func commandString(raw json.RawMessage) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, true
	}
	var argv []string
	if err := json.Unmarshal(raw, &argv); err != nil {
		return "", false
	}
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " "), true
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// root is the repository above dir. Every directory looked at is
// remembered, so that the paths of one command, which share their
// ancestors, cost one stat per directory.
func (g *Guard) root(dir string) string {
	if dir == "" {
		return ""
	}
	if r, ok := g.found[dir]; ok {
		return r
	}
	if g.found == nil {
		g.found = map[string]string{}
	}
	var r string
	if g.Find != nil {
		r = g.Find(dir)
	} else if fi, err := os.Stat(filepath.Join(dir, state.DirName)); err == nil && fi.IsDir() {
		r = dir
	} else if parent := filepath.Dir(dir); parent != dir {
		r = g.root(parent)
	}
	g.found[dir] = r
	if r != "" {
		if _, seen := g.policies[r]; !seen {
			g.known = append(g.known, r)
			g.policy(r)
		}
	}
	return r
}

// policy is the repository's policy, read once.
func (g *Guard) policy(root string) *Policy {
	if p, ok := g.policies[root]; ok {
		return p
	}
	load := g.Load
	if load == nil {
		load = LoadPolicy
	}
	p := load(root)
	if g.policies == nil {
		g.policies = map[string]*Policy{}
	}
	g.policies[root] = p
	return p
}

// A Policy is what the guard enforces in one repository: the commands
// its adapter.yaml declares, on top of the rules that hold everywhere.
type Policy struct {
	root      string    // repository root; "" outside any repository
	preflight []pattern // the declared preflight: allowed
	launches  []pattern // the declared train and eval commands: denied
	allow     []string  // guard.allow: scripts that are not trainers, relative to root
	// note says which part of adapter.yaml is not enforced and why; it
	// is added to every denial so that someone notices.
	note string
}

// adapterFile is adapter.yaml relative to the repository root.
const adapterFile = state.DirName + "/" + state.Adapter

// LoadPolicy reads the commands that root's .rlxp/adapter.yaml declares.
// root "" (no repository) gives the rules that hold everywhere. A missing
// adapter.yaml declares nothing. An unreadable or malformed one is not an
// error: the rules that hold everywhere still apply, and the policy notes
// that the file's commands are not checked.
func LoadPolicy(root string) *Policy {
	p := &Policy{root: root}
	if root == "" {
		return p
	}
	data, err := os.ReadFile(filepath.Join(root, adapterFile))
	if errors.Is(err, fs.ErrNotExist) {
		return p
	}
	if err != nil {
		p.note = fmt.Sprintf("cannot read %s: %v", adapterFile, unwrapPath(err))
		return p
	}
	cmds, allow, err := parseAdapter(adapterFile, data)
	if err != nil {
		p.note = err.Error()
		return p
	}
	p.declare(cmds)
	p.allow = allow
	return p
}

// NewPolicy is the policy of a repository at root whose adapter.yaml
// declares cmds (name to command template).
func NewPolicy(root string, cmds map[string]string) *Policy {
	p := &Policy{root: root}
	p.declare(cmds)
	return p
}

// declare turns the adapter's train, eval and preflight templates into
// patterns. Other command names are not launches and are ignored.
func (p *Policy) declare(cmds map[string]string) {
	var bad []string
	for _, name := range []string{"preflight", "train", "eval"} {
		tmpl := strings.TrimSpace(cmds[name])
		if tmpl == "" {
			continue
		}
		pat, ok := compile(name, tmpl, p.root)
		if !ok {
			bad = append(bad, "commands."+name)
			continue
		}
		if name == "preflight" {
			p.preflight = append(p.preflight, pat)
		} else {
			p.launches = append(p.launches, pat)
		}
	}
	if len(bad) > 0 {
		p.note = fmt.Sprintf("%s: %s names no command the guard can recognise", adapterFile, strings.Join(bad, " and "))
	}
}

// jsonProblem says what is wrong with a payload in the payload's terms.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	switch {
	case !errors.As(err, &te):
		return err.Error()
	case te.Field == "":
		return "a JSON " + te.Value + ", not an object"
	default:
		return te.Field + " is a JSON " + te.Value + ", not a " + te.Type.Kind().String()
	}
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
