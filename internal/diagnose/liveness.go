package diagnose

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runs"
)

// A State is where a run is in its life.
type State string

// States.
const (
	Running  State = "running"
	Pending  State = "pending"  // queued, or held by the scheduler
	Finished State = "finished" // ended with exit status 0
	Failed   State = "failed"   // ended with another status, or a signal
	Stopped  State = "stopped"  // stopped on purpose: at its wall-clock allowance, or by a person
	Lost     State = "lost"     // no end recorded, and nothing of it is alive
	Unknown  State = "unknown"
)

// Liveness is a run's state with the evidence for it.
type Liveness struct {
	State    State
	Detail   string   // a few words: "exit 1", "at its wall-clock allowance"
	Evidence []string // what was looked at, one sentence each
	// Alive says whether the run is executing now; Known is false when
	// that could not be told.
	Alive, Known bool
}

// A Job is what a scheduler says about one job.
type Job struct {
	ID        string
	State     string // the scheduler's state name, e.g. RUNNING, COMPLETED, TIMEOUT
	ExitCode  int    // the job's exit status, once it has ended
	Reason    string // why it is pending or why it ended, as the scheduler puts it
	Node      string
	StartTime time.Time // zero before it starts
	EndTime   time.Time // zero until it ends
}

// A Scheduler answers for the jobs of a batch system.
type Scheduler interface {
	// Job returns a job's state; an error matching ErrNoJob means the
	// scheduler has no record of it (for instance, it ended long ago).
	Job(ctx context.Context, id string) (Job, error)
}

// ErrNoJob is what a Scheduler returns for a job it does not know.
var ErrNoJob = errors.New("no such job")

// Check finds out whether a run is alive: from its recorded end when it
// has one, else from the process table (local runs, through h) or the
// scheduler (Slurm runs; nil when it cannot be asked).
func Check(ctx context.Context, h probe.Host, sched Scheduler, rec runs.Record) Liveness {
	if rec.Ended() {
		return endedRun(rec)
	}
	if rec.Backend == runs.Slurm {
		return slurmRun(ctx, sched, rec)
	}
	return localRun(h, rec)
}

func endedRun(rec runs.Record) Liveness {
	l := Liveness{Known: true, Evidence: []string{"run.json records its end at " + rec.EndedAt}}
	switch {
	case rec.StoppedBy == runs.StoppedBudget:
		l.State, l.Detail = Stopped, "at its wall-clock allowance"
		if rec.WallClock != "" {
			l.Detail += " of " + rec.WallClock
		}
	case rec.StoppedBy != "":
		l.State, l.Detail = Stopped, "by "+rec.StoppedBy
	case rec.Signal != "":
		l.State, l.Detail = Failed, "signal "+rec.Signal
	case rec.Exit == nil:
		l.State, l.Detail = Unknown, "ended without an exit status recorded"
	case *rec.Exit == 0:
		l.State, l.Detail = Finished, "exit 0"
	default:
		l.State, l.Detail = Failed, fmt.Sprintf("exit %d", *rec.Exit)
	}
	if rec.Note != "" {
		l.Evidence = append(l.Evidence, "run.json notes: "+rec.Note)
	}
	return l
}

// A presence is what /proc says about one recorded pid.
type presence int

const (
	present presence = iota
	absent
	unsure
)

func localRun(h probe.Host, rec runs.Record) Liveness {
	if rec.PID == 0 && rec.Supervisor == 0 {
		if rec.Backend == runs.Local {
			return Liveness{State: Pending, Detail: "queued", Known: true,
				Evidence: []string{"run.json records no end and no process yet: its supervisor has not started it"}}
		}
		return Liveness{State: Unknown, Detail: "no process or job recorded",
			Evidence: []string{"run.json records no end, no pid and no job id"}}
	}
	var l Liveness
	leader, supervisor := absent, absent
	if rec.PID > 0 {
		var text string
		leader, text = lookProc(h, rec.PID, rec.StartTicks, "process group leader")
		l.Evidence = append(l.Evidence, text)
	}
	if rec.Supervisor > 0 {
		var text string
		supervisor, text = lookProc(h, rec.Supervisor, rec.SupervisorTicks, "supervisor")
		l.Evidence = append(l.Evidence, text)
	}
	switch {
	case leader == present:
		l.State, l.Alive, l.Known = Running, true, true
	case leader == unsure || supervisor == unsure:
		l.State, l.Detail = Unknown, "the process table could not be read"
	case supervisor == present && rec.PID == 0:
		// The supervisor names itself in every record of its job before it
		// starts any, and records a pid when it starts one.
		l.State, l.Detail, l.Known = Pending, "queued", true
	case supervisor == present:
		// The supervisor records the end right after the run exits.
		l.State, l.Alive, l.Known = Running, true, true
		l.Detail = "ending: its supervisor has not recorded the end yet"
	default:
		l.State, l.Known = Lost, true
		l.Detail = "no end recorded and nothing of it is alive"
		l.Evidence = append([]string{"run.json records no end"}, l.Evidence...)
	}
	return l
}

// lookProc says whether pid is still the process run.json recorded: alive,
// not a zombie, and (when ticks is known) started when it did.
func lookProc(h probe.Host, pid int, ticks uint64, role string) (presence, string) {
	who := fmt.Sprintf("%s pid %d", role, pid)
	p, err := probe.ReadProc(h, pid)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return absent, who + " is not running"
	case err != nil:
		return unsure, fmt.Sprintf("%s: %v", who, err)
	case !p.Alive():
		return absent, who + " has exited (a zombie)"
	case ticks == 0:
		return present, who + " is alive (no start time recorded, so a reused pid is not ruled out)"
	}
	t, err := probe.StartTicks(h, pid)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return absent, who + " is not running"
	case err != nil:
		return unsure, fmt.Sprintf("%s: %v", who, err)
	case t != ticks:
		return absent, fmt.Sprintf("%s is now another process (%s, started at tick %d, not %d): the pid was reused", who, p.Name, t, ticks)
	}
	return present, who + " is alive (its start time matches run.json)"
}

func slurmRun(ctx context.Context, sched Scheduler, rec runs.Record) Liveness {
	switch {
	case rec.JobID == "":
		return Liveness{State: Unknown, Detail: "no job id recorded", Evidence: []string{"run.json records no end and no job id"}}
	case sched == nil:
		return Liveness{State: Unknown, Detail: "scheduler not queried",
			Evidence: []string{fmt.Sprintf("Slurm job %s: the scheduler was not asked", rec.JobID)}}
	}
	j, err := sched.Job(ctx, rec.JobID)
	if errors.Is(err, ErrNoJob) {
		return Liveness{State: Lost, Known: true, Detail: "no end recorded and the scheduler has no such job",
			Evidence: []string{"run.json records no end", fmt.Sprintf("the scheduler does not know job %s", rec.JobID)}}
	}
	if err != nil {
		return Liveness{State: Unknown, Detail: "the scheduler did not answer",
			Evidence: []string{fmt.Sprintf("Slurm job %s: %v", rec.JobID, err)}}
	}
	text := fmt.Sprintf("Slurm job %s is %s", rec.JobID, j.State)
	if j.Node != "" {
		text += " on " + j.Node
	}
	if j.Reason != "" && j.Reason != "None" {
		text += " (" + j.Reason + ")"
	}
	l := Liveness{Known: true, Evidence: []string{text}}
	state, _, _ := strings.Cut(strings.ToUpper(strings.TrimSpace(j.State)), " ")
	state = strings.TrimRight(state, "+")
	switch state {
	case "RUNNING", "CONFIGURING", "COMPLETING", "SIGNALING", "STAGE_OUT", "RESIZING":
		l.State, l.Alive = Running, true
	case "PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD", "SUSPENDED", "STOPPED":
		l.State, l.Detail = Pending, strings.ToLower(state)
	case "COMPLETED":
		l.State, l.Detail = Finished, "exit 0"
		if j.ExitCode != 0 {
			l.State, l.Detail = Failed, fmt.Sprintf("exit %d", j.ExitCode)
		}
	case "TIMEOUT":
		// The job's time limit is the run's wall-clock allowance.
		l.State, l.Detail = Stopped, "at its wall-clock allowance"
	case "CANCELLED":
		l.State, l.Detail = Stopped, "cancelled"
	case "FAILED", "NODE_FAIL", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "PREEMPTED", "SPECIAL_EXIT", "REVOKED", "LAUNCH_FAILED":
		l.State, l.Detail = Failed, fmt.Sprintf("%s, exit %d", strings.ToLower(state), j.ExitCode)
	default:
		l.State, l.Known, l.Detail = Unknown, false, "scheduler state "+j.State
	}
	return l
}
