package launch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runs"
)

// A shepherdJob is what the supervisor hands the shepherd of one run.
type shepherdJob struct {
	ID         string        `json:"id"`
	RunsDir    string        `json:"runs_dir"`
	Log        string        `json:"log"` // absolute
	Command    string        `json:"command"`
	Dir        string        `json:"dir"`
	Env        []string      `json:"env"`
	Grace      time.Duration `json:"grace"`
	Supervisor int           `json:"supervisor"`
}

// An outcome is how a run ended, as its shepherd saw it.
type outcome struct {
	Exit   *int   `json:"exit,omitempty"`
	Signal string `json:"signal,omitempty"`
	// Stop says what the shepherd sent the run's processes, when it had to.
	Stop string `json:"stop,omitempty"`
	// Orphaned is set when the supervisor died and the shepherd stopped
	// the run on its own.
	Orphaned bool `json:"orphaned,omitempty"`
}

// OrphanGrace bounds TERM-to-KILL when the supervisor has died: a run
// nobody supervises must end within seconds, whatever the plan's grace.
const OrphanGrace = time.Second

// killEvery is how often the KILL phase sweeps for processes forked since
// the last sweep.
const killEvery = 20 * time.Millisecond

// Shepherd runs one run for its supervisor: it becomes the subreaper of
// everything the run starts, so double forks and new sessions stay its
// descendants; it reports "started PID TICKS" and, at the end, "ended
// OUTCOME" on out. TERM stops the run: every descendant gets TERM, then KILL
// after the grace. The end of in (the supervisor died, however it died)
// does the same with at most OrphanGrace, and the shepherd records the end
// in run.json itself. It exits only when none of the run's processes is
// left.
func Shepherd(in io.Reader, out io.Writer, now func() time.Time) error {
	var job shepherdJob
	dec := json.NewDecoder(in)
	if err := dec.Decode(&job); err != nil {
		return fmt.Errorf("read run: %w", err)
	}
	// The supervisor holds the other end of in open as long as it lives:
	// end of file is its death, however it died.
	orphaned := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, io.MultiReader(dec.Buffered(), in))
		close(orphaned)
	}()
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGCHLD)
	defer signal.Stop(sigs)
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT)
	if err := becomeSubreaper(); err != nil {
		fmt.Fprintf(out, "error %v\n", err)
		return err
	}
	log, err := os.OpenFile(job.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintf(out, "error open run log: %v\n", err)
		return err
	}
	fmt.Fprintf(log, "[rlxp] run %s: %s\n", job.ID, job.Command)
	cmd := exec.Command(bash(), "-c", job.Command)
	cmd.Dir, cmd.Env = job.Dir, job.Env
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = runAttr()
	err = cmd.Start()
	log.Close()
	if err != nil {
		fmt.Fprintf(out, "error start %q: %v\n", job.Command, err)
		return err
	}
	leader := cmd.Process.Pid
	ticks, _ := probe.StartTicks(probe.System(), leader)
	fmt.Fprintf(out, "started %d %d\n", leader, ticks)

	o := tend(leader, job, sigs, orphaned)
	if !o.Orphaned {
		if _, err := fmt.Fprintf(out, "ended %s\n", mustJSON(o)); err == nil {
			return nil
		}
		// The supervisor is gone after all: nobody else will record it.
		o.Orphaned = true
	}
	return recordOrphan(job, o, now)
}

// tend waits for the run's whole process tree to end, stopping it when
// told to, and says how it ended.
func tend(leader int, job shepherdJob, sigs <-chan os.Signal, orphaned <-chan struct{}) outcome {
	var o outcome
	var status *syscall.WaitStatus
	var deadline, sweep <-chan time.Time
	grace := job.Grace
	stopping := false
	poll := time.NewTicker(time.Second) // SIGCHLDs coalesce; never rely on one alone
	defer poll.Stop()
	pgid := func() int {
		if status == nil {
			return leader
		}
		return 0 // the group may be gone and its id reused
	}
	stop := func(why string) {
		stopping = true
		signalTree(syscall.SIGTERM, pgid(), nil)
		if why != "" {
			o.Stop = fmt.Sprintf("sent TERM to process group %d and every process the run started", leader)
		}
		deadline = time.After(grace)
	}
	for {
		if reapAll(leader, &status) {
			break
		}
		if status != nil && !stopping {
			// The run's first process ended: what it left behind goes too.
			stop("")
		}
		select {
		case s := <-sigs:
			if s == syscall.SIGTERM && !stopping {
				stop("told")
			}
		case <-orphaned:
			orphaned = nil
			o.Orphaned = true
			if grace > OrphanGrace || !stopping {
				grace = min(grace, OrphanGrace)
				stop("orphaned")
			}
		case <-deadline:
			deadline = nil
			if o.Stop != "" {
				o.Stop += fmt.Sprintf(", then KILL after %s", grace)
			}
			signalTree(syscall.SIGKILL, pgid(), nil)
			t := time.NewTicker(killEvery)
			defer t.Stop()
			sweep = t.C
		case <-sweep:
			signalTree(syscall.SIGKILL, pgid(), nil)
		case <-poll.C:
		}
	}
	switch {
	case status == nil:
		// Reaped elsewhere: cannot happen in a shepherd, said rather than guessed.
		o.Signal = "unknown"
	case status.Signaled():
		o.Signal = status.Signal().String()
	default:
		code := status.ExitStatus()
		o.Exit = &code
	}
	return o
}

// reapAll reaps every child that has exited, noting the leader's status;
// it says whether no child is left at all.
func reapAll(leader int, status **syscall.WaitStatus) bool {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.ECHILD):
			return true
		case err != nil || pid <= 0:
			return false
		}
		if pid == leader {
			*status = &ws
		}
	}
}

// recordOrphan writes the end of a run whose supervisor died.
func recordOrphan(job shepherdJob, o outcome, now func() time.Time) error {
	rec, err := runs.Read(runs.Path(job.RunsDir, job.ID))
	if err != nil {
		return err
	}
	rec.StoppedBy = runs.StoppedWatchdog
	rec.Note = fmt.Sprintf("its supervisor (pid %d) died", job.Supervisor)
	finish(&rec, o, now)
	return runs.Write(job.RunsDir, rec)
}

// finish fills in a run's end from its shepherd's outcome; the caller has
// set why it was stopped, if it was.
func finish(rec *runs.Record, o outcome, now func() time.Time) {
	rec.EndedAt = now().UTC().Format(time.RFC3339)
	rec.Exit, rec.Signal = o.Exit, o.Signal
	switch {
	case o.Stop != "" && rec.Note != "":
		rec.Note += ": " + o.Stop
	case o.Stop != "":
		rec.Note = o.Stop
	}
	if rec.Note != "" {
		appendLog(rec.Log, "[rlxp] "+rec.Note)
	}
	appendLog(rec.Log, fmt.Sprintf("[rlxp] run %s ended: %s", rec.ID, endWords(rec)))
}

// bash is the shell a run's command is given to: the system's, not the
// first one the launching shell's PATH names.
func bash() string {
	for _, p := range []string{"/bin/bash", "/usr/bin/bash"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
	}
	return "bash"
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
