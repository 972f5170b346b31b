package launch

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runs"
)

// detach puts the supervisor in its own session: it outlives the terminal
// and the shell that launched it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// Supervise runs a job read from in: every run in its own process group,
// output to its log, at most the plan's concurrency at once. It reports each
// run of the first wave on handshake ("started ID PID") and then closes it,
// so the launching process can return. A run still going when its
// wall-clock allowance is spent gets TERM, then KILL after the grace, and
// its record says so. When ctx ends (the supervisor was told to stop), the
// running runs are stopped the same way and the queued ones never start.
// Messages that fit no record go to stderr.
func Supervise(ctx context.Context, in io.Reader, handshake io.WriteCloser, stderr io.Writer, now func() time.Time) error {
	var once sync.Once
	release := func() { once.Do(func() { handshake.Close() }) }
	defer release()
	fail := func(err error) error {
		fmt.Fprintf(handshake, "error %v\n", err)
		return err
	}
	job, err := readJob(in)
	if err != nil {
		return fail(err)
	}
	p := job.Plan
	recs := make([]runs.Record, len(job.IDs))
	for i, id := range job.IDs {
		if recs[i], err = runs.Read(runs.Path(job.RunsDir, id)); err != nil {
			return fail(err)
		}
	}
	host, _ := os.Hostname()
	self := os.Getpid()
	selfTicks, _ := probe.StartTicks(probe.System(), self)
	save := func(rec runs.Record) {
		if err := runs.Write(job.RunsDir, rec); err != nil {
			fmt.Fprintln(stderr, err)
		}
	}

	groups := gpuGroups(p)
	slots := make(chan []string, len(groups))
	for _, g := range groups {
		slots <- g
	}
	var wg sync.WaitGroup
	for i := range recs {
		var gpus []string
		select {
		case gpus = <-slots:
		default:
			// The first wave is running; the rest waits for slots.
			release()
			select {
			case gpus = <-slots:
			case <-ctx.Done():
			}
		}
		if ctx.Err() != nil {
			for j := i; j < len(recs); j++ {
				recs[j].EndedAt = now().UTC().Format(time.RFC3339)
				recs[j].StoppedBy, recs[j].Note = "user", "the supervisor was stopped before this run started"
				save(recs[j])
			}
			break
		}
		rec := &recs[i]
		rec.Host, rec.Supervisor, rec.SupervisorTicks = host, self, selfTicks
		rec.StartedAt = now().UTC().Format(time.RFC3339)
		cmd, err := startRun(p, job.RunsDir, rec, i, gpus)
		if err != nil {
			rec.EndedAt, rec.Note = rec.StartedAt, err.Error()
			fmt.Fprintf(handshake, "failed %s: %v\n", rec.ID, err)
			save(*rec)
			slots <- gpus
			continue
		}
		rec.PID = cmd.Process.Pid
		// Recorded so that a recycled pid is never taken for the run.
		rec.StartTicks, _ = probe.StartTicks(probe.System(), rec.PID)
		save(*rec)
		fmt.Fprintf(handshake, "started %s %d\n", rec.ID, rec.PID)
		wg.Add(1)
		go func() {
			defer wg.Done()
			watch(ctx, p, rec, cmd, now)
			save(*rec)
			slots <- gpus
		}()
	}
	release()
	wg.Wait()
	return nil
}

// gpuGroups are the slots runs take: disjoint device sets when the plan
// names devices, else just the concurrency.
func gpuGroups(p *Plan) [][]string {
	n := max(p.Concurrency, 1)
	if p.GPUsPerRun == 0 || len(p.GPUs) < p.GPUsPerRun {
		return make([][]string, n)
	}
	var groups [][]string
	for i := 0; i+p.GPUsPerRun <= len(p.GPUs) && len(groups) < n; i += p.GPUsPerRun {
		groups = append(groups, p.GPUs[i:i+p.GPUsPerRun])
	}
	return groups
}

// startRun starts run i in its own process group, appending to its log.
func startRun(p *Plan, runsDir string, rec *runs.Record, i int, gpus []string) (*exec.Cmd, error) {
	log, err := os.OpenFile(filepath.Join(runsDir, rec.ID, "log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open run log: %w", err)
	}
	defer log.Close()
	fmt.Fprintf(log, "[rlxp] run %s: %s\n", rec.ID, rec.Command)
	cmd := exec.Command("bash", "-c", rec.Command)
	cmd.Dir = p.Root
	cmd.Env = append(os.Environ(), p.Env(rec.ID, i, gpus)...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %q: %w", rec.Command, err)
	}
	return cmd, nil
}

// watch waits for a run to end, stopping it when its allowance is spent or
// ctx ends, and fills in how it ended.
func watch(ctx context.Context, p *Plan, rec *runs.Record, cmd *exec.Cmd, now func() time.Time) {
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	allowance := time.NewTimer(p.WallClock.Value())
	defer allowance.Stop()
	pgid := cmd.Process.Pid
	select {
	case <-exited:
	case <-allowance.C:
		rec.StoppedBy = runs.StoppedBudget
		rec.Note = stop(pgid, exited, p.Grace.Value(), fmt.Sprintf("wall-clock allowance %s spent", p.WallClock.Value()))
	case <-ctx.Done():
		rec.StoppedBy = "user"
		rec.Note = stop(pgid, exited, p.Grace.Value(), "the supervisor was told to stop")
	}
	// Whatever the run left behind in its group goes with it.
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	rec.EndedAt = now().UTC().Format(time.RFC3339)
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		rec.Signal = ws.Signal().String()
	} else {
		code := cmd.ProcessState.ExitCode()
		rec.Exit = &code
	}
	if rec.Note != "" {
		appendLog(rec, "[rlxp] "+rec.Note)
	}
	appendLog(rec, fmt.Sprintf("[rlxp] run %s ended: %s", rec.ID, endWords(rec)))
}

// stop sends the process group TERM and, if it outlives grace, KILL.
func stop(pgid int, exited <-chan struct{}, grace time.Duration, why string) string {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-exited:
		return fmt.Sprintf("%s: sent TERM to process group %d", why, pgid)
	case <-time.After(grace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-exited
		return fmt.Sprintf("%s: sent TERM to process group %d, then KILL after %s", why, pgid, grace)
	}
}

func endWords(rec *runs.Record) string {
	if rec.Signal != "" {
		return "killed by signal " + rec.Signal
	}
	return fmt.Sprintf("exit status %d", *rec.Exit)
}

func appendLog(rec *runs.Record, line string) {
	// The log's path is the record's; the supervisor runs in the root.
	f, err := os.OpenFile(rec.Log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}
