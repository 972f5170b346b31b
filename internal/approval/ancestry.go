package approval

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rlxp/rlxp/internal/probe"
)

// A Process is what the approval check reads about one process.
type Process struct {
	PID  int
	PPID int
	Name string   // the kernel's short name (comm)
	Exe  string   // the executable's path; "" when it cannot be read
	Argv []string // the command line
	Env  []string // KEY=VALUE as the process started; nil when unreadable
	TTY  string   // the controlling terminal, e.g. /dev/pts/3; "" when none
}

// A ProcessTable reads processes. System reads /proc; tests substitute
// their own.
type ProcessTable interface {
	Self() int
	Process(pid int) (Process, error)
}

// maxDepth bounds the walk up the parent chain.
const maxDepth = 64

// An Origin is where an approval comes from.
type Origin struct {
	TTY      string    // the approving process's controlling terminal
	Ancestry []string  // executable names, the approving process first
	Chain    []Process // the processes walked
}

// An AgentError refuses an approval whose process descends from an agent
// host.
type AgentError struct {
	Host     string // "Claude Code" or "Codex"
	PID      int
	Evidence string
}

func (e *AgentError) Error() string {
	return fmt.Sprintf("approval refused: this process descends from %s (pid %d: %s); approval is a human act: run the command yourself in a terminal of your own, outside the agent", e.Host, e.PID, e.Evidence)
}

// Trace walks the approving process's ancestry and refuses it when any
// process in it is an agent host (Claude Code or Codex), recognised by its
// executable, its command line or the environment markers those hosts set
// for the commands they run. A chain that cannot be read is refused too:
// the check fails closed.
func Trace(t ProcessTable) (Origin, error) {
	var o Origin
	pid := t.Self()
	for depth := 0; pid > 0; depth++ {
		if depth == maxDepth {
			return Origin{}, fmt.Errorf("approval refused: the process ancestry is deeper than %d", maxDepth)
		}
		p, err := t.Process(pid)
		if err != nil {
			if depth > 0 && errors.Is(err, fs.ErrNotExist) {
				break // the parent exited meanwhile: the chain ends there
			}
			return Origin{}, fmt.Errorf("approval refused: cannot read the approving process's ancestry: %w", err)
		}
		if depth == 0 {
			o.TTY = p.TTY
		}
		o.Chain = append(o.Chain, p)
		o.Ancestry = append(o.Ancestry, displayName(p))
		if host, why := agentHost(p); host != "" {
			return o, &AgentError{Host: host, PID: p.PID, Evidence: why}
		}
		if p.PPID == pid {
			break
		}
		pid = p.PPID
	}
	return o, nil
}

// displayName is the executable name recorded for p.
func displayName(p Process) string {
	if p.Exe != "" {
		return filepath.Base(p.Exe)
	}
	return p.Name
}

// Agent hosts, as AgentError.Host names them.
const (
	ClaudeCode = "Claude Code"
	Codex      = "Codex"
)

// hostOf is the agent host an executable name belongs to, "" for none.
func hostOf(exe string) string {
	switch exe {
	case "claude", "claude-code":
		return ClaudeCode
	case "codex", "codex-exec", "codex-linux-sandbox":
		return Codex
	}
	return ""
}

// hostPackages are the hosts' npm packages: their launchers run under
// node, so the package paths on the command line count as well.
func hostPackages() [2][2]string {
	return [2][2]string{{"@anthropic-ai/claude-code", ClaudeCode}, {"@openai/codex", Codex}}
}

// markerOf is the host an environment variable marks, "" for none: the
// markers the hosts set for the commands their shell tools run (read from
// the clients themselves). Claude Code sets CLAUDECODE=1, its session and
// entry point, and AI_AGENT; Codex sets its thread id and sandbox flags,
// and its npm launcher CODEX_MANAGED_BY_*. CODEX_HOME is left out: people
// set it themselves.
func markerOf(name string) string {
	switch name {
	case "CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_EXECPATH", "CLAUDE_CODE_CHILD_SESSION":
		return ClaudeCode
	case "AI_AGENT":
		return "an agent host"
	case "CODEX_THREAD_ID", "CODEX_SESSION_ID", "CODEX_SANDBOX", "CODEX_SANDBOX_NETWORK_DISABLED", "CODEX_CI", "CODEX_MANAGED_PACKAGE_ROOT":
		return Codex
	}
	if strings.HasPrefix(name, "CODEX_MANAGED_BY_") {
		return Codex
	}
	return ""
}

// agentHost says which agent host p is or runs under, and the evidence.
func agentHost(p Process) (host, why string) {
	for _, name := range []string{filepath.Base(p.Exe), p.Name, firstWord(p.Argv)} {
		if h := hostOf(strings.ToLower(name)); h != "" {
			return h, fmt.Sprintf("executable %q", name)
		}
	}
	for i, a := range p.Argv {
		if i > 2 {
			break
		}
		for _, p := range hostPackages() {
			if strings.Contains(a, p[0]+"/") || strings.HasSuffix(a, p[0]) {
				return p[1], fmt.Sprintf("command line %q", a)
			}
		}
	}
	for _, kv := range p.Env {
		k, v, _ := strings.Cut(kv, "=")
		if v == "" {
			continue
		}
		if h := markerOf(k); h != "" {
			return h, fmt.Sprintf("environment %s", k)
		}
	}
	return "", ""
}

func firstWord(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	return filepath.Base(argv[0])
}

// System is the process table of this machine, read from /proc.
func System() ProcessTable { return procTable{probe.System()} }

type procTable struct{ h probe.Host }

func (t procTable) Self() int { return t.h.PID() }

func (t procTable) Process(pid int) (Process, error) {
	pr, err := probe.ReadProc(t.h, pid)
	if err != nil {
		return Process{}, err
	}
	p := Process{PID: pr.PID, PPID: pr.PPID, Name: pr.Name, Argv: pr.Cmdline}
	// The executable and environment of a process of another user (a
	// sudo above us) are unreadable; its name and command line still are.
	if exe, err := t.h.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil {
		p.Exe = strings.TrimSuffix(exe, " (deleted)")
	}
	if data, err := t.h.ReadFile(fmt.Sprintf("/proc/%d/environ", pid)); err == nil {
		p.Env = splitNUL(data)
	}
	if data, err := t.h.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		p.TTY = ttyName(data)
	}
	return p, nil
}

func splitNUL(data []byte) []string {
	var out []string
	for _, f := range strings.Split(string(data), "\x00") {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// ttyName reads the controlling terminal from /proc/PID/stat (tty_nr, the
// fifth field after the command name) as a device path.
func ttyName(stat []byte) string {
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 5 {
		return ""
	}
	nr, err := strconv.ParseUint(f[4], 10, 32)
	if err != nil || nr == 0 {
		return ""
	}
	major, minor := (nr>>8)&0xfff, (nr&0xff)|((nr>>12)&0xfff00)
	switch {
	case major >= 136 && major <= 143:
		return fmt.Sprintf("/dev/pts/%d", (major-136)*256+minor)
	case major == 4 && minor < 64:
		return fmt.Sprintf("/dev/tty%d", minor)
	case major == 4:
		return fmt.Sprintf("/dev/ttyS%d", minor-64)
	}
	return fmt.Sprintf("tty %d:%d", major, minor)
}
