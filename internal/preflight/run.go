package preflight

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// MaxOutput caps the output Run keeps: the first and the last MaxOutput/2
// bytes. A preflight's verdict lives in its first lines (the checks) and its
// last (the summary, or the error that killed it).
const MaxOutput = 1 << 20

// drainGrace bounds the wait for the output pipe to close once the command
// has exited and its process group is killed; only a process that left the
// group (setsid) can hold it open that long.
const drainGrace = time.Second

// Outcome is one run of a preflight command.
type Outcome struct {
	Command  string        `json:"command"`
	Dir      string        `json:"dir"`
	ExitCode int           `json:"exit_code"`        // -1 if killed by a signal or never exited
	Signal   string        `json:"signal,omitempty"` // the signal that killed it, e.g. "killed"
	TimedOut bool          `json:"timed_out"`
	Canceled bool          `json:"canceled"`
	Timeout  time.Duration `json:"timeout"`
	Duration time.Duration `json:"duration"`
	// Output is stdout and stderr merged in arrival order. When Truncated,
	// it is the head and the tail joined by a line saying how much was
	// omitted.
	Output      []byte `json:"-"`
	OutputBytes int64  `json:"output_bytes"` // bytes the command wrote in all
	Truncated   bool   `json:"truncated"`
	Result      Result `json:"result"`
}

// Run runs command with "bash -c" in dir and reads its preflight lines.
//
// env is the command's whole environment; nil inherits this process's.
// Stdin is empty. The command runs in its own process group: on timeout
// (timeout <= 0 means none) or when ctx is done the whole group is killed,
// and so is whatever the command left running when it exited, so a
// background process holding the output open cannot hang Run.
//
// A command that ran, whatever its exit status, returns a nil error: its
// verdict is Outcome.Verdict. The error is non-nil when the command could not
// start, or when ctx ended it (the partial Outcome is returned too).
func Run(ctx context.Context, dir, command string, env []string, timeout time.Duration) (Outcome, error) {
	o := Outcome{Command: command, Dir: dir, ExitCode: -1, Timeout: timeout}
	if err := ctx.Err(); err != nil {
		return o, fmt.Errorf("preflight %q not started: %w", command, err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return o, fmt.Errorf("preflight %q: output pipe: %w", command, err)
	}
	defer pr.Close()

	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = dir
	cmd.Env = env
	// One *os.File for both streams: the child writes to a single pipe, so
	// stdout and stderr lines keep their order.
	cmd.Stdout, cmd.Stderr = pw, pw
	SetGroup(cmd)
	start := time.Now()
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return o, fmt.Errorf("preflight %q in %s: start: %w", command, dir, err)
	}

	buf := newCapBuffer(MaxOutput)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		b := make([]byte, 32<<10)
		for {
			n, err := pr.Read(b)
			buf.write(b[:n])
			if err != nil {
				return
			}
		}
	}()
	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	var waitErr error
	select {
	case waitErr = <-waitDone:
	case <-expired:
		o.TimedOut = true
		KillGroup(cmd.Process)
		waitErr = <-waitDone
	case <-ctx.Done():
		o.Canceled = true
		KillGroup(cmd.Process)
		waitErr = <-waitDone
	}
	o.Duration = time.Since(start)
	KillGroup(cmd.Process)
	if err := pr.SetReadDeadline(time.Now().Add(drainGrace)); err != nil {
		// Without deadlines, closing the pipe is what ends the read.
		select {
		case <-readDone:
		case <-time.After(drainGrace):
		}
		pr.Close()
	}
	<-readDone

	if ps := cmd.ProcessState; ps != nil {
		o.ExitCode = ps.ExitCode()
		o.Signal = signalOf(ps)
	}
	o.Output, o.OutputBytes, o.Truncated = buf.contents()
	o.Result = Parse(o.Output)

	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return o, fmt.Errorf("preflight %q: wait: %w", command, waitErr)
	}
	if o.Canceled {
		return o, fmt.Errorf("preflight %q: %w", command, context.Cause(ctx))
	}
	return o, nil
}

// capBuffer keeps the first and the last limit/2 bytes written to it.
type capBuffer struct {
	half  int
	head  []byte
	ring  []byte // allocated once the head is full
	pos   int    // next write position in ring
	full  bool   // ring has wrapped
	total int64
}

func newCapBuffer(limit int) *capBuffer {
	return &capBuffer{half: limit / 2}
}

func (c *capBuffer) write(p []byte) {
	c.total += int64(len(p))
	if n := min(c.half-len(c.head), len(p)); n > 0 {
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	if len(p) == 0 || c.half == 0 {
		return
	}
	if c.ring == nil {
		c.ring = make([]byte, c.half)
	}
	if len(p) >= c.half {
		copy(c.ring, p[len(p)-c.half:])
		c.pos, c.full = 0, true
		return
	}
	n := copy(c.ring[c.pos:], p)
	if n < len(p) {
		c.pos = copy(c.ring, p[n:])
		c.full = true
		return
	}
	c.pos += n
	if c.pos == c.half {
		c.pos, c.full = 0, true
	}
}

// contents returns the kept bytes, the total written and whether any were
// dropped. The omission marker shares a line with the tail's first, partial
// line, so that fragment never reads as a check line.
func (c *capBuffer) contents() ([]byte, int64, bool) {
	var tail []byte
	if c.full {
		tail = append(append(tail, c.ring[c.pos:]...), c.ring[:c.pos]...)
	} else {
		tail = c.ring[:c.pos]
	}
	kept := int64(len(c.head) + len(tail))
	out := make([]byte, 0, kept+64)
	out = append(out, c.head...)
	if c.total > kept {
		out = fmt.Appendf(out, "\n[… %d bytes omitted …] ", c.total-kept)
	}
	out = append(out, tail...)
	return out, c.total, c.total > kept
}
