package launch

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rlxp/rlxp/internal/runs"
)

// A Job is what a supervisor is handed on stdin: the plan and the ids its
// runs were recorded under.
type Job struct {
	Plan    *Plan    `json:"plan"`
	IDs     []string `json:"ids"`
	RunsDir string   `json:"runs_dir"`
}

// A Started run is one the supervisor reported running.
type Started struct {
	ID  string
	PID int
}

// handshakeTimeout bounds how long StartLocal waits for the supervisor to
// report its first runs started.
const handshakeTimeout = 30 * time.Second

// StartLocal starts a detached supervisor (exe, run with argv, in its own
// session) for job, whose records are already written, and returns once
// the first wave of runs has started; the rest are queued behind the
// plan's concurrency. A run that failed to start is in the error, and its
// record says why. When the supervisor dies before reporting, the records
// it never took up are removed: nothing was launched. The supervisor's own
// messages go to supervisor.log in the first run's directory.
func StartLocal(exe string, argv []string, job Job) ([]Started, error) {
	in, err := json.Marshal(job)
	if err != nil {
		return nil, fmt.Errorf("encode job: %w", err)
	}
	logPath := filepath.Join(job.RunsDir, job.IDs[0], "supervisor.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", logPath, err)
	}
	defer logf.Close()
	hr, hw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("handshake pipe: %w", err)
	}
	defer hr.Close()

	cmd := &exec.Cmd{Path: exe, Args: argv}
	cmd.Dir = job.Plan.Root
	cmd.Stdin = strings.NewReader(string(in))
	cmd.Stdout = hw
	cmd.Stderr = logf
	detach(cmd)
	err = cmd.Start()
	hw.Close()
	if err != nil {
		return nil, fmt.Errorf("start supervisor %s: %w", exe, err)
	}
	// The supervisor outlives this process; it is reaped by init.
	defer cmd.Process.Release()

	type result struct {
		started []Started
		errs    []error
		ok      bool // the supervisor took the job up
	}
	done := make(chan result, 1)
	go func() {
		var res result
		sc := bufio.NewScanner(hr)
		for sc.Scan() {
			kind, rest, _ := strings.Cut(sc.Text(), " ")
			switch kind {
			case "started":
				id, pid, _ := strings.Cut(rest, " ")
				n, _ := strconv.Atoi(pid)
				res.started = append(res.started, Started{ID: id, PID: n})
				res.ok = true
			case "failed":
				res.errs = append(res.errs, errors.New(rest))
				res.ok = true
			case "error":
				res.errs = append(res.errs, errors.New(rest))
			}
		}
		done <- res
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(handshakeTimeout):
		return nil, fmt.Errorf("supervisor (pid %d) did not report within %s; see %s", cmd.Process.Pid, handshakeTimeout, logPath)
	}
	if !res.ok {
		removeRecords(job.RunsDir, untaken(job))
		if len(res.errs) == 0 {
			res.errs = append(res.errs, fmt.Errorf("supervisor exited before starting a run; see %s", logPath))
		}
	}
	return res.started, errors.Join(res.errs...)
}

// untaken are the runs of a job its supervisor never took up.
func untaken(job Job) []string {
	var ids []string
	for _, id := range job.IDs {
		rec, err := runs.Read(runs.Path(job.RunsDir, id))
		if err == nil && rec.PID == 0 && !rec.Ended() {
			ids = append(ids, id)
		}
	}
	return ids
}

// removeRecords deletes the records of runs that never started: they were
// written for this launch alone.
func removeRecords(runsDir string, ids []string) {
	for _, id := range ids {
		_ = os.RemoveAll(filepath.Join(runsDir, id))
	}
}

// readJob decodes a supervisor's job and checks it is whole.
func readJob(r io.Reader) (Job, error) {
	var j Job
	if err := json.NewDecoder(r).Decode(&j); err != nil {
		return j, fmt.Errorf("read job: %w", err)
	}
	if j.Plan == nil || len(j.IDs) != len(j.Plan.Runs) || len(j.IDs) == 0 {
		return j, errors.New("read job: plan and run ids do not match")
	}
	return j, nil
}
