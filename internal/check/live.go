package check

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/guard"
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/state"
)

// Headroom below which the disk and /dev/shm rows warn.
const (
	minDisk = 1 << 30
	minShm  = 512 << 20
)

// checkLive looks at the machine as it is now, and returns the GPUs a run
// may use.
func checkLive(ctx context.Context, in Input, res *Result) []string {
	h, hw, ad := in.Host, in.Contract.Contract.Hardware, in.Adapter
	flying := 0
	var ours []int // processes of runs in flight: their GPUs and trainers are ours
	lives := in.Lives
	if lives == nil {
		lives = diagnose.NewLives(h, nil)
	}
	for _, run := range in.Runs {
		if run.Ended() {
			continue
		}
		if ok, l := InFlight(ctx, lives, run); !ok {
			res.addf(LayerLive, Warn, "run %s of %s is lost (%s): it stays charged its whole allowance; 'rlxp status %[1]s' shows what is known", run.ID, run.Experiment, l.Detail)
			continue
		}
		flying++
		res.add(Row{Layer: LayerLive, State: Block, Kind: KindInFlight, Detail: fmt.Sprintf("run %s of %s is in flight (no end time recorded in %s)", run.ID, run.Experiment, in.Repo.Show(state.Runs))})
		for _, pid := range []int{run.Supervisor, run.PID} {
			if pid > 1 {
				ours = append(ours, pid)
			}
		}
	}
	self := probe.Self(h, ours...)
	flying += checkTrainers(h, in.Repo.Root, self, res)
	if flying == 0 {
		res.addf(LayerLive, OK, "no rlxp run in flight, and no trainer of this repo outside rlxp")
	}

	var free []string
	switch {
	case hw.GPUsPerRun == 0:
		res.addf(LayerLive, OK, "the contract needs no GPUs")
	case hw.Launcher == runs.Slurm:
		// The runs go to compute nodes; this machine's GPUs are not theirs.
		res.addf(LayerLive, OK, "Slurm allocates %d GPU%s per node to each job (--gres=gpu:%[1]d)", hw.GPUsPerRun, plural(hw.GPUsPerRun))
	default:
		free = checkGPUs(ctx, h, self, hw, res)
	}
	for _, p := range probe.Ports(h, ad.Runtime.Ports) {
		st := map[probe.PortStatus]State{probe.PortFree: OK, probe.PortInUse: Block, probe.PortUnknown: Warn}[p.Status]
		res.add(Row{Layer: LayerLive, State: st, Kind: KindPort, Detail: p.String(), PID: p.PID})
	}
	if s, err := probe.Disk(h, in.Repo.Root); err == nil {
		res.addf(LayerLive, least(s.Free, minDisk), "disk %s", s)
	}
	if s, err := probe.Shm(h); err == nil {
		res.addf(LayerLive, least(s.Free, minShm), "%s", s)
	}
	if len(ad.Runtime.Imports) > 0 {
		for _, im := range probe.Imports(ctx, h, ad.Runtime.Python, ad.Runtime.Imports) {
			st := OK
			if im.Status != probe.ImportFound {
				st = Block
			}
			res.add(Row{Layer: LayerLive, State: st, Kind: KindImport, Detail: im.String()})
		}
	}
	return free
}

func least(free, want uint64) State {
	if free < want {
		return Warn
	}
	return OK
}

// checkGPUs reads the GPUs and who holds them, and judges them.
func checkGPUs(ctx context.Context, h probe.Host, self probe.Ancestry, hw contract.Hardware, res *Result) []string {
	gpus, err := probe.GPUs(ctx, h)
	if err != nil && !errors.Is(err, probe.ErrNoGPU) {
		res.add(Row{Layer: LayerLive, State: Block, Kind: KindGPUs, Detail: err.Error()})
		return nil
	}
	var procs []probe.GPUProcess
	if err == nil {
		if procs, err = probe.GPUProcesses(ctx, h); err != nil {
			res.add(Row{Layer: LayerLive, State: Block, Kind: KindGPUs, Detail: err.Error()})
			return nil
		}
	}
	holders := make([]Holder, len(procs))
	for i, p := range procs {
		holders[i] = Holder{Process: p, Owner: probe.Owner(h, p.PID, self)}
		if pr, err := probe.ReadProc(h, p.PID); err == nil {
			holders[i].Command = strings.Join(pr.Cmdline, " ")
		}
	}
	rows, free := JudgeGPUs(gpus, holders, hw.GPUsPerRun, hw.ShareGPUs)
	for _, r := range rows {
		res.add(r)
	}
	return free
}

// A Holder is a process nvidia-smi says holds a GPU, with who owns it and
// its command line where /proc shows it.
type Holder struct {
	Process probe.GPUProcess
	Owner   probe.Ownership
	Command string
}

// JudgeGPUs decides the GPU rows from the GPUs visible and who holds them,
// for runs that need `need` GPUs each; share says whether the contract lets
// a run use a GPU another process holds. It returns the rows and the GPUs
// a run may use, by index. No GPU visible, and fewer usable GPUs than one
// run needs, block: a run would start without the GPUs it was approved
// for, or on top of another process.
func JudgeGPUs(gpus []probe.GPU, holders []Holder, need int, share bool) ([]Row, []string) {
	var rows []Row
	if len(gpus) == 0 {
		rows = append(rows, Row{Layer: LayerLive, State: Block, Kind: KindNoGPU,
			Detail: fmt.Sprintf("no NVIDIA GPUs visible (no nvidia-smi, or no devices), and the contract needs %d per run", need)})
		return rows, nil
	}
	busy := map[string]bool{}   // held by anyone: not free for a run of its own
	closed := map[string]bool{} // held by a run in flight or another user: not even shared
	for _, hd := range holders {
		p, o := hd.Process, hd.Owner
		busy[p.GPUUUID] = true
		switch o.Class {
		case probe.Ours:
			// A run in flight already blocks; its GPUs are not free either.
			closed[p.GPUUUID] = true
			rows = append(rows, Row{Layer: LayerLive, State: OK, Detail: fmt.Sprintf("GPU held by this repo's run in flight: %s", p)})
		case probe.Foreign:
			closed[p.GPUUUID] = true
			rows = append(rows, Row{Layer: LayerLive, State: Block, Kind: KindForeignGPU, PID: p.PID, Command: hd.Command,
				Detail: fmt.Sprintf("foreign GPU process: %s, %s", p, o)})
		case probe.SameUser:
			rows = append(rows, Row{Layer: LayerLive, State: Warn, Kind: KindOwnGPU, PID: p.PID, Command: hd.Command,
				Detail: fmt.Sprintf("your own process outside rlxp holds a GPU: %s, %s%s", p, o, commandText(hd.Command))})
		case probe.Unknown:
			rows = append(rows, Row{Layer: LayerLive, State: Warn, PID: p.PID,
				Detail: fmt.Sprintf("GPU process not visible here (another container?): %s, %s", p, o)})
		}
	}
	var free []string
	for _, g := range gpus {
		if !busy[g.UUID] || (share && !closed[g.UUID]) {
			free = append(free, strconv.Itoa(g.Index))
		}
	}
	st := OK
	if len(free) < need {
		st = Block
	}
	what := "free"
	if share {
		what = "usable (the contract lets runs share a GPU)"
	}
	rows = append(rows, Row{Layer: LayerLive, State: st, Kind: KindGPUs,
		Detail: fmt.Sprintf("%d of %d GPUs %s, %d needed per run", len(free), len(gpus), what, need)})
	return rows, free
}

func commandText(cmd string) string {
	if cmd == "" {
		return ""
	}
	return ": " + clipText(cmd, 120)
}

// InFlight says whether a run with no end recorded still holds the
// machine. A local run whose processes are all gone will never record its
// end: status calls it lost, and it holds nothing.
func InFlight(ctx context.Context, lives *diagnose.Lives, rec runs.Record) (bool, diagnose.Liveness) {
	if rec.Ended() {
		return false, diagnose.Liveness{}
	}
	if rec.Backend != runs.Local {
		return true, diagnose.Liveness{}
	}
	l := lives.Of(ctx, rec)
	return l.State != diagnose.Lost, l
}

// checkTrainers finds training processes by their command line. One of
// this user's running in this repository outside rlxp is a run in flight;
// another user's is a warning (the GPU rows say whether it is in the way).
// It returns how many block.
func checkTrainers(h probe.Host, root string, self probe.Ancestry, res *Result) int {
	procs, err := probe.Procs(h)
	if err != nil {
		res.addf(LayerLive, Warn, "cannot list processes to look for trainers: %v", err)
		return 0
	}
	blocked := 0
	for _, p := range procs {
		cwd, _ := h.Readlink(fmt.Sprintf("/proc/%d/cwd", p.PID))
		what := guard.Trainer(p.Cmdline, cwd)
		if what == "" {
			continue
		}
		o := probe.Owner(h, p.PID, self)
		cmd := strings.Join(p.Cmdline, " ")
		switch {
		case o.Class == probe.SameUser && cwd != "" && within(root, cwd):
			blocked++
			res.add(Row{Layer: LayerLive, State: Block, Kind: KindTrainer, PID: p.PID, Command: cmd,
				Detail: fmt.Sprintf("a trainer runs in this repo outside rlxp: pid %d, %s: %s", p.PID, what, clipText(cmd, 120))})
		case o.Class == probe.Foreign:
			res.addf(LayerLive, Warn, "another user's trainer runs here: pid %d (%s), %s: %s", p.PID, o, what, clipText(cmd, 120))
		}
	}
	return blocked
}

func within(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
