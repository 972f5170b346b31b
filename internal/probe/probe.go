// Package probe gathers live host facts for `rlxp check`: GPUs and the
// processes holding them, who owns those processes, ports, disk and
// /dev/shm headroom, and whether declared modules import in the declared
// interpreter. It reports facts only; deciding what blocks a launch is the
// caller's job.
//
// Every probe reads the machine through a Host, so tests can replay
// recorded output instead of touching the real one.
package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// A Host is the machine the probes look at.
type Host interface {
	// Run runs a program and returns what it wrote to stdout and stderr.
	// A non-zero exit is an error, with the output still returned; a
	// program that cannot be found is an error matching exec.ErrNotFound
	// or fs.ErrNotExist.
	Run(ctx context.Context, name string, args ...string) (stdout, stderr []byte, err error)
	ReadFile(path string) ([]byte, error)
	ReadDir(path string) ([]fs.DirEntry, error)
	Readlink(path string) (string, error)
	// Statfs reports the bytes available to an unprivileged user and the
	// size of the filesystem holding path.
	Statfs(path string) (free, total uint64, err error)
	// Listen binds a TCP address and releases it at once; the error says
	// why it could not be bound.
	Listen(network, address string) error
	UID() int
	PID() int
}

// CommandTimeout bounds each command System runs when the caller's context
// has no earlier deadline: a wedged GPU driver can hang nvidia-smi for minutes.
const CommandTimeout = 30 * time.Second

// outputLimit caps what System keeps of a command's output, so a runaway
// program cannot exhaust memory.
const outputLimit = 4 << 20

// System returns the Host for the machine rlxp runs on.
func System() Host { return system{} }

type system struct{}

func (system) Run(ctx context.Context, name string, args ...string) ([]byte, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, CommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A child that inherits the pipes must not keep Run waiting after the
	// program itself has been stopped.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("did not finish: %w", ctx.Err())
	}
	return stdout.Bytes(), stderr.Bytes(), err
}

func (system) ReadFile(path string) ([]byte, error)       { return os.ReadFile(path) }
func (system) ReadDir(path string) ([]fs.DirEntry, error) { return os.ReadDir(path) }
func (system) Readlink(path string) (string, error)       { return os.Readlink(path) }
func (system) Statfs(path string) (uint64, uint64, error) { return statfs(path) }
func (system) UID() int                                   { return os.Getuid() }
func (system) PID() int                                   { return os.Getpid() }

func (system) Listen(network, address string) error {
	ln, err := net.Listen(network, address)
	if err != nil {
		return err
	}
	return ln.Close()
}

// capped is a buffer that keeps the first outputLimit bytes and drops the rest.
type capped struct{ bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := outputLimit - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// A Reading is a number a tool may decline to give ("[N/A]",
// "[Not Supported]"). Such a reading is unknown, never zero.
type Reading struct {
	Value int64
	Known bool
	Raw   string // the text as reported
}

func (r Reading) String() string {
	switch {
	case r.Known:
		return strconv.FormatInt(r.Value, 10)
	case r.Raw != "":
		return r.Raw
	}
	return "unknown"
}

// parseReading reads a non-negative integer, tolerating a unit suffix
// ("4093 MiB", "100 %") for output captured without nounits.
func parseReading(s string) (Reading, error) {
	s = strings.TrimSpace(s)
	r := Reading{Raw: s}
	if s == "" || strings.HasPrefix(s, "[") {
		return r, nil
	}
	num := strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(s, "MiB"), "%"))
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v < 0 {
		return r, fmt.Errorf("%q is not a count", s)
	}
	r.Value, r.Known = v, true
	return r, nil
}

// notFound says whether a Run error means the program is not there.
func notFound(err error) bool {
	return errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist)
}

// firstLine returns the first non-blank line of the first output that has
// one, trimmed and cut to a readable length.
func firstLine(outputs ...[]byte) string {
	for _, out := range outputs {
		for _, line := range strings.Split(string(out), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				return clip(line)
			}
		}
	}
	return ""
}

// lastLine is firstLine from the end: a Python traceback ends with the
// line that says what went wrong.
func lastLine(outputs ...[]byte) string {
	for _, out := range outputs {
		lines := strings.Split(string(out), "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			if line := strings.TrimSpace(lines[i]); line != "" {
				return clip(line)
			}
		}
	}
	return ""
}

func clip(s string) string {
	const max = 240
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
