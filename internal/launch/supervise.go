package launch

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/shellenv"
)

// detach puts the supervisor in its own session: it outlives the terminal
// and the shell that launched it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// Supervise runs a job read from in. It is the subreaper of everything
// its runs start and hands each run to a shepherd of its own (Shepherd, in
// a child process): at most the plan's concurrency at once, output to the
// run's log. It reports each run of the first wave on handshake ("started
// ID PID") and then closes it, so the launching process can return. A run
// still going when its wall-clock allowance is spent is stopped by its
// shepherd, TERM then KILL after the grace, every process it started
// included, and its record says so. When ctx ends (the supervisor was told
// to stop), the running runs are stopped the same way and the queued ones
// never start. With hold, each run is held to the approval the plan was
// confirmed under: a run whose pin differs before it starts is not
// started, and the pin is recomputed after the run's last process ended
// (Record.Held). Messages that fit no record go to stderr.
func Supervise(ctx context.Context, in io.Reader, handshake io.WriteCloser, stderr io.Writer, now func() time.Time, hold Hold) error {
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
	if err := becomeSubreaper(); err != nil {
		return fail(err)
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(fmt.Errorf("find the rlxp binary for the shepherds: %w", err))
	}
	p := job.Plan
	var holder Holder
	if hold != nil {
		if holder, err = hold(p); err != nil {
			return fail(err)
		}
	}
	host, _ := os.Hostname()
	self := os.Getpid()
	selfTicks, _ := probe.StartTicks(probe.System(), self)
	keep := &keeper{dir: job.RunsDir, stderr: stderr, now: now, last: map[string][]byte{}}
	save := keep.save
	recs := make([]runs.Record, len(job.IDs))
	for i, id := range job.IDs {
		if recs[i], err = runs.Read(runs.Path(job.RunsDir, id)); err != nil {
			return fail(err)
		}
		// Every record names its supervisor from now on: a run queued
		// behind one that died is found by the next command that looks.
		recs[i].Host, recs[i].Supervisor, recs[i].SupervisorTicks = host, self, selfTicks
		save(&recs[i])
	}
	sv := &supervisor{exe: exe, stderr: stderr, live: map[int]bool{}, keep: keep}
	stopReaping := sv.reap()
	defer stopReaping()
	var held func(context.Context) []string
	w := &watch{}
	if holder != nil {
		// The check runs programs (git) and waits for them itself: the
		// reaper, which reaps any child, pauses meanwhile.
		held = func(ctx context.Context) []string {
			sv.reaping.Lock()
			defer sv.reaping.Unlock()
			return holder.Changes(ctx)
		}
		// The watch starts before the first check: an edit made after
		// it and undone before the end is seen.
		w = sv.watchPinned(ctx, p.Root, holder)
		defer w.close()
	}

	groups := gpuGroups(p)
	slots := make(chan []string, len(groups))
	for _, g := range groups {
		slots <- g
	}
	var wg sync.WaitGroup
	// One check of the pin holds the runs that start together; a run
	// that waited for a slot is checked again.
	var changes []string
	var checkedAt time.Time
	checked := false
	for i := range recs {
		var gpus []string
		select {
		case gpus = <-slots:
		default:
			// The first wave is running; the rest waits for slots.
			release()
			checked = false
			select {
			case gpus = <-slots:
			case <-ctx.Done():
			}
		}
		if ctx.Err() != nil {
			for j := i; j < len(recs); j++ {
				recs[j].EndedAt = now().UTC().Format(time.RFC3339)
				recs[j].StoppedBy, recs[j].Note = "user", "the supervisor was stopped before this run started"
				save(&recs[j])
			}
			break
		}
		rec := &recs[i]
		rec.StartedAt = now().UTC().Format(time.RFC3339)
		if held != nil && !checked {
			checkedAt = time.Now()
			changes, checked = held(ctx), true
		}
		from := checkedAt
		err := holdStart(p, rec, held != nil, changes)
		if rec.Held != nil {
			rec.Held.Watch = w.watching()
		}
		if err == nil {
			err = makeRunDir(p.Root, p.Runs[i].RunDir)
		}
		var sh *shepherdProc
		if err == nil {
			sh, err = sv.start(p, job.RunsDir, rec, i, gpus)
		}
		if err != nil {
			rec.EndedAt, rec.Note = rec.StartedAt, err.Error()
			fmt.Fprintf(handshake, "failed %s: %v\n", rec.ID, err)
			save(rec)
			slots <- gpus
			continue
		}
		save(rec)
		fmt.Fprintf(handshake, "started %s %d\n", rec.ID, rec.PID)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sv.watch(ctx, p, rec, sh, now)
			checkEnd(ctx, rec, held, sv.seen(ctx, w, holder, from), now)
			save(rec)
			slots <- gpus
		}()
	}
	release()
	wg.Wait()
	return nil
}

// A Hold makes the check a plan's runs are held to. It fails when the
// approval the plan was confirmed under (Plan.Approved) is no longer the
// one in force.
type Hold func(p *Plan) (Holder, error)

// A Holder holds runs to an approval: each call of Changes names every
// difference between what the runs would run now and the approval; Paths
// are the files it pins, by absolute path, watched while the runs run;
// Covers names those of paths, created and removed while a run ran, it
// would have pinned.
type Holder interface {
	Changes(ctx context.Context) []string
	Paths(ctx context.Context) ([]string, error)
	Covers(ctx context.Context, paths []string) ([]string, error)
}

// maxWatches bounds the directories a supervisor watches (watchLimit).
const maxWatches = 8192

// An UnapprovedError is a run not started because what it would run is
// not what was approved.
type UnapprovedError struct{ Changes []string }

func (e *UnapprovedError) Error() string {
	return "not started: what it would run differs from its approval: " + strings.Join(e.Changes, "; ")
}

// holdStart holds a run to its approval just before it starts, with the
// changes a check found just now: an edit between launch's check and now
// (or while the run waited for a slot) keeps it from starting.
func holdStart(p *Plan, rec *runs.Record, holding bool, changes []string) error {
	if !holding {
		return nil
	}
	rec.Held = &runs.Held{Approval: p.Approved, Start: rec.StartedAt, Changes: changes}
	if len(changes) > 0 {
		rec.StoppedBy = runs.StoppedUnapproved
		return &UnapprovedError{changes}
	}
	return nil
}

// endCheckTimeout bounds the recomputation of a run's pin at its end.
const endCheckTimeout = 5 * time.Minute

// checkEnd recomputes the pin of a run whose processes have all ended:
// a file it read late (a module imported lazily, a config read at step
// N) that was edited while it ran is named. So is each pinned file the
// watch saw changed while it ran (seen), edited and undone before the end
// included, unless the recomputation names it already. It runs even when
// the supervisor was told to stop.
func checkEnd(ctx context.Context, rec *runs.Record, held func(context.Context) []string, seen []string, now func() time.Time) {
	if held == nil || rec.Held == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endCheckTimeout)
	defer cancel()
	rec.Held.Changes = held(ctx)
	named := map[string]bool{}
	for _, c := range rec.Held.Changes {
		p, _, _ := strings.Cut(c, ": ")
		named[p] = true
	}
	for _, c := range seen {
		if p, _, _ := strings.Cut(c, ": "); !named[p] {
			rec.Held.Changes = append(rec.Held.Changes, c)
		}
	}
	rec.Held.End = now().UTC().Format(time.RFC3339)
	if len(rec.Held.Changes) > 0 {
		appendLog(rec.Log, "[rlxp] changed since approval when the run ended: "+strings.Join(rec.Held.Changes, "; "))
	}
}

// watchPinned watches the files the approval pins; a watch that cannot be
// kept says why (Held.Watch).
func (sv *supervisor) watchPinned(ctx context.Context, root string, h Holder) *watch {
	sv.reaping.Lock()
	paths, err := h.Paths(ctx)
	sv.reaping.Unlock()
	if err != nil {
		return &watch{note: fmt.Sprintf("not watched: %v", err)}
	}
	return watchFiles(root, paths, watchLimit(maxWatches))
}

// seen names what the watch saw change while a run ran, from from to
// now: pinned files changed, and files the pin would have covered that
// were created and are gone.
func (sv *supervisor) seen(ctx context.Context, w *watch, h Holder, from time.Time) []string {
	changed, gone := w.since(from)
	if len(gone) == 0 {
		return changed
	}
	at := map[string]time.Time{}
	var paths []string
	for _, c := range gone {
		at[c.path], paths = c.at, append(paths, c.path)
	}
	sv.reaping.Lock()
	covered, err := h.Covers(ctx, paths)
	sv.reaping.Unlock()
	if err != nil {
		return append(changed, fmt.Sprintf("files created while the run ran: %v", err))
	}
	for _, p := range covered {
		changed = append(changed, fmt.Sprintf("%s: created and removed while the run ran (at %s)", w.name(p), at[p].UTC().Format(time.RFC3339)))
	}
	return changed
}

// A supervisor holds what its runs share: the binary its shepherds run and
// the shepherds alive.
type supervisor struct {
	exe    string
	stderr io.Writer
	mu     sync.Mutex
	live   map[int]bool // shepherd pids
	keep   *keeper
	// reaping is held while the reaper reaps, and by whoever waits for a
	// child of its own.
	reaping sync.Mutex
}

// reap collects every child that exits — shepherds and the orphans of a
// shepherd that was killed — until the returned function is called.
func (sv *supervisor) reap() func() {
	chld := make(chan os.Signal, 16)
	signal.Notify(chld, syscall.SIGCHLD)
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			var none *syscall.WaitStatus
			sv.reaping.Lock()
			reapAll(0, &none)
			sv.reaping.Unlock()
			select {
			case <-chld:
			case <-tick.C:
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(chld)
		close(done)
	}
}

// A shepherdProc is a running shepherd, its report pipe and the pipe
// whose end tells it the supervisor died.
type shepherdProc struct {
	pid   int
	lines <-chan string
	life  *os.File
}

// start hands run i to a new shepherd and waits for it to start the run.
func (sv *supervisor) start(p *Plan, runsDir string, rec *runs.Record, i int, gpus []string) (*shepherdProc, error) {
	in, err := json.Marshal(shepherdJob{
		ID: rec.ID, RunsDir: runsDir, Log: filepath.Join(p.Root, rec.Log), Command: rec.Command,
		Dir: p.Root, Env: append(shellenv.Clean(os.Environ()), p.Env(rec.ID, i, gpus)...), Grace: p.Grace.Value(),
		Supervisor: os.Getpid(),
	})
	if err != nil {
		return nil, fmt.Errorf("encode run %s: %w", rec.ID, err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("shepherd pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("shepherd pipe: %w", err)
	}
	cmd := &exec.Cmd{Path: sv.exe, Args: []string{"rlxp", "supervise", "--run"}, Dir: p.Root, Stdin: inR, Stdout: outW}
	if f, ok := sv.stderr.(*os.File); ok {
		cmd.Stderr = f
	}
	sv.mu.Lock()
	err = cmd.Start()
	if err == nil {
		sv.live[cmd.Process.Pid] = true
	}
	sv.mu.Unlock()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("start a shepherd for %s: %w", rec.ID, err)
	}
	// inW stays open while the shepherd runs: its end is the
	// supervisor's death.
	_, _ = inW.Write(in)
	lines := make(chan string, 4)
	go func() {
		defer outR.Close()
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	sh := &shepherdProc{pid: cmd.Process.Pid, lines: lines, life: inW}
	first, ok := <-lines
	kind, rest, _ := strings.Cut(first, " ")
	if !ok || kind != "started" {
		sv.gone(sh.pid)
		inW.Close()
		if kind == "error" {
			return nil, errors.New(rest)
		}
		return nil, fmt.Errorf("the shepherd of %s exited before starting it", rec.ID)
	}
	pid, ticks, _ := strings.Cut(rest, " ")
	rec.PID, _ = strconv.Atoi(pid)
	// Recorded so that a recycled pid is never taken for the run.
	rec.StartTicks, _ = strconv.ParseUint(ticks, 10, 64)
	return sh, nil
}

func (sv *supervisor) gone(pid int) {
	sv.mu.Lock()
	delete(sv.live, pid)
	sv.mu.Unlock()
}

// watch waits for a run's shepherd to report its end, telling it to stop
// the run when its allowance is spent or ctx ends, and fills in how it
// ended.
func (sv *supervisor) watch(ctx context.Context, p *Plan, rec *runs.Record, sh *shepherdProc, now func() time.Time) {
	allowance := time.NewTimer(p.WallClock.Value())
	defer allowance.Stop()
	stopped := ctx.Done()
	recheck := time.NewTicker(keepEvery)
	defer recheck.Stop()
	var o *outcome
	for o == nil {
		select {
		case <-recheck.C:
			if sv.keep.rewritten(rec) {
				sv.keep.save(rec)
			}
		case line, ok := <-sh.lines:
			if !ok {
				o = sv.shepherdKilled(sh.pid)
				if rec.StoppedBy == "" {
					rec.StoppedBy = runs.StoppedWatchdog
				}
				break
			}
			if body, found := strings.CutPrefix(line, "ended "); found {
				o = &outcome{}
				if err := json.Unmarshal([]byte(body), o); err != nil {
					fmt.Fprintf(sv.stderr, "run %s: shepherd report %q: %v\n", rec.ID, body, err)
				}
			}
		case <-allowance.C:
			rec.StoppedBy = runs.StoppedBudget
			rec.Note = fmt.Sprintf("wall-clock allowance %s spent", p.WallClock.Value())
			_ = syscall.Kill(sh.pid, syscall.SIGTERM)
			stopped = nil
		case <-stopped:
			rec.StoppedBy = "user"
			rec.Note = "the supervisor was told to stop"
			_ = syscall.Kill(sh.pid, syscall.SIGTERM)
			stopped = nil
		}
	}
	sv.gone(sh.pid)
	sh.life.Close()
	finish(rec, *o, now)
}

// shepherdKilled handles a shepherd that died without reporting: killed
// from outside. The run's first process died with it (its parent-death
// signal); anything else it started is now this supervisor's child, and
// is killed: orphans here belong to no live shepherd.
func (sv *supervisor) shepherdKilled(pid int) *outcome {
	sv.gone(pid)
	n := 0
	for range int(5 * time.Second / killEvery) {
		sv.mu.Lock()
		prune := maps.Clone(sv.live)
		sv.mu.Unlock()
		k := signalTree(syscall.SIGKILL, 0, prune)
		if k == 0 {
			break
		}
		n += k
		time.Sleep(killEvery)
	}
	return &outcome{Stop: fmt.Sprintf("its shepherd (pid %d) was killed; the supervisor sent KILL to the %d processes the run left", pid, n)}
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

func endWords(rec *runs.Record) string {
	switch {
	case rec.Signal != "":
		return "killed by signal " + rec.Signal
	case rec.Exit == nil:
		return "exit status unknown"
	}
	return fmt.Sprintf("exit status %d", *rec.Exit)
}

// appendLog adds a line to a run's log; its path is relative to the
// repository, where supervisors and shepherds run.
func appendLog(log, line string) {
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}
