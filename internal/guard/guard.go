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
// sandbox: a command that writes a script and runs it later, or builds the
// command from variables, is not followed.
package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/state"
)

// ShellTool is the tool name of the shell tool in both hosts' PreToolUse
// payloads: Claude Code's Bash tool, and every Codex shell tool (shell,
// shell_command, exec_command, local_shell), which Codex reports as Bash.
const ShellTool = "Bash"

// preToolUse is the only hook event the guard decides on.
const preToolUse = "PreToolUse"

// A Decision is the guard's answer for one tool call.
type Decision struct {
	Deny bool
	// Reason is one line for the agent: what was refused, why, and what
	// to do instead. It is empty when the command is allowed.
	Reason string
}

// denyf makes a denial. Line breaks from the command (in a script's name,
// say) are escaped: the reason is one line.
func denyf(format string, args ...any) Decision {
	oneLine := strings.NewReplacer("\n", `\n`, "\r", `\r`)
	return Decision{Deny: true, Reason: oneLine.Replace(fmt.Sprintf(format, args...))}
}

// payload is the part of a PreToolUse hook input the guard reads. Both
// hosts send these fields; the rest (session, transcript, model,
// permission mode, tool_use_id) does not matter here.
type payload struct {
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	CWD           string          `json:"cwd"`
}

// Check decides on one PreToolUse payload as the host wrote it to the
// hook's stdin. dir is the working directory to use when the payload
// names none.
//
// It fails closed on what it cannot read: a payload that is not JSON, or
// a shell tool call without a command string, is denied. A tool other
// than the shell tool, and another hook event, are allowed.
func Check(data []byte, dir string) Decision {
	var p payload
	if err := json.Unmarshal(data, &p); err != nil {
		return denyf("cannot read the hook payload (%s); the guard refuses a command it cannot inspect", jsonProblem(err))
	}
	if p.ToolName == "" {
		return denyf("the hook payload names no tool_name; the guard refuses a command it cannot inspect")
	}
	if p.HookEventName != "" && p.HookEventName != preToolUse {
		return Decision{}
	}
	if p.ToolName != ShellTool {
		return Decision{}
	}
	var in struct {
		Command *string `json:"command"`
	}
	if err := json.Unmarshal(p.ToolInput, &in); err != nil || in.Command == nil {
		return denyf("the hook payload's tool_input holds no command string; the guard refuses a command it cannot inspect")
	}
	cwd := p.CWD
	switch {
	case cwd == "":
		cwd = dir
	case !filepath.IsAbs(cwd):
		cwd = filepath.Join(dir, cwd)
	}
	return LoadPolicy(state.Find(cwd)).Decide(*in.Command, cwd)
}

// A Policy is what the guard enforces in one repository: the commands
// its adapter.yaml declares, on top of the rules that hold everywhere.
type Policy struct {
	root      string    // repository root; "" outside any repository
	preflight []pattern // the declared preflight: allowed
	launches  []pattern // the declared train and eval commands: denied
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
	cmds, err := adapter.ParseCommands(adapterFile, data)
	if err != nil {
		p.note = err.Error()
		return p
	}
	p.declare(cmds)
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

// Decide decides on a shell command run in directory cwd.
func (p *Policy) Decide(command, cwd string) Decision {
	a := analyzer{}
	a.source(command, 0)
	if a.tooDeep != "" {
		return p.withNote(denyf("%s nests shell commands (more than %d levels) or brackets (more than %d) deeper than the guard follows; run the inner command directly", quote(a.tooDeep), maxDepth, maxBrackets))
	}
	for _, c := range a.cmds {
		if d := p.judge(c, cwd); d.Deny {
			return p.withNote(d)
		}
		// Follow cd DIR, so that cd scripts && bash run.sh train finds the
		// script the adapter declares.
		if name := filepath.Base(c.argv[0]); (name == "cd" || name == "pushd") && len(c.argv) == 2 && c.argv[1] != "-" {
			cwd = resolve(c.argv[1], cwd)
		}
	}
	return Decision{}
}

func (p *Policy) withNote(d Decision) Decision {
	if p.note != "" {
		d.Reason += " (note: " + p.note + "; the commands it declares are not checked until it is fixed)"
	}
	return d
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
