// Package slurm talks to a Slurm controller through its client commands
// (sbatch, scontrol, scancel), which read SLURM_CONF from the environment.
package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/rlxp/rlxp/internal/shellenv"
)

// ErrUnknownJob means the controller does not know the job: a wrong id, or
// one finished longer ago than its MinJobAge.
var ErrUnknownJob = errors.New("the controller does not know this job")

// Runner runs a client command and returns its stdout and stderr.
type Runner func(ctx context.Context, name string, args ...string) (stdout, stderr []byte, err error)

// A Client issues Slurm client commands.
type Client struct {
	run Runner
}

// New is a Client that runs the real commands found on PATH.
func New() *Client { return &Client{run: execRun} }

// NewWith is a Client that runs commands through run.
func NewWith(run Runner) *Client { return &Client{run: run} }

func execRun(ctx context.Context, name string, args ...string) ([]byte, []byte, error) {
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	// A user's own SLURM_TIME_FORMAT would change every time field.
	cmd.Env = append(clientEnv(os.Environ()), "SLURM_TIME_FORMAT=standard")
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.Bytes(), errb.Bytes(), err
}

// clientEnv is env without the variables sbatch reads as options
// (SBATCH_TIMELIMIT, SBATCH_GRES, SBATCH_PARTITION, …): they override the
// script's #SBATCH lines, so one set in the launching shell would give a
// job more time or devices than the plan a human confirmed. Nor does it
// pass on those that make bash run other code (shellenv): a job takes its
// environment from sbatch's, and its script is run by bash.
func clientEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "SBATCH_") && !shellenv.Startup(kv) {
			out = append(out, kv)
		}
	}
	return out
}

// Submit runs sbatch with args (the last one the script) and returns the
// job id.
func (c *Client) Submit(ctx context.Context, args ...string) (string, error) {
	out, errb, err := c.run(ctx, "sbatch", append([]string{"--parsable"}, args...)...)
	if err != nil {
		return "", fmt.Errorf("sbatch: %s", reason(err, errb))
	}
	// --parsable prints "jobid" or "jobid;cluster".
	id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return "", fmt.Errorf("sbatch: unexpected output %q", strings.TrimSpace(string(out)))
	}
	return id, nil
}

// Cancel runs scancel on the job.
func (c *Client) Cancel(ctx context.Context, id string) error {
	if _, errb, err := c.run(ctx, "scancel", id); err != nil {
		return fmt.Errorf("scancel %s: %s", id, reason(err, errb))
	}
	return nil
}

// Job reads the job's state with scontrol.
func (c *Client) Job(ctx context.Context, id string) (Job, error) {
	out, errb, err := c.run(ctx, "scontrol", "show", "job", "-o", id)
	if err != nil {
		if strings.Contains(string(errb), "Invalid job id") {
			return Job{ID: id}, fmt.Errorf("job %s: %w", id, ErrUnknownJob)
		}
		return Job{ID: id}, fmt.Errorf("scontrol show job %s: %s", id, reason(err, errb))
	}
	// A job array or heterogeneous job prints one line per component; the
	// first is the job itself.
	line, _, _ := bytes.Cut(out, []byte("\n"))
	j, err := ParseJob(line, time.Local)
	if err != nil {
		return j, fmt.Errorf("scontrol show job %s: %w", id, err)
	}
	return j, nil
}

func reason(err error, stderr []byte) string {
	if s := strings.TrimSpace(string(stderr)); s != "" {
		return s
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.String()
	}
	return err.Error()
}
