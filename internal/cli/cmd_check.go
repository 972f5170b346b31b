package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/budget"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/gate"
	"github.com/rlxp/rlxp/internal/guard"
	"github.com/rlxp/rlxp/internal/launch"
	"github.com/rlxp/rlxp/internal/preflight"
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/state"
)

type checkOptions struct {
	root    string
	seeds   []int // the seeds to launch; empty: those without a finished run
	seed    int
	runDir  string
	timeout time.Duration
	json    bool
}

func newCheckCmd() *Command {
	var o checkOptions
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.IntVar(&o.seed, "seed", -1, "seed whose run the preflight checks (default: the experiment's first)")
	fs.StringVar(&o.runDir, "run-dir", "runs/{experiment}/seed{seed}", "the run's directory, a `TEMPLATE` with {experiment} and {seed}")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long the repo's preflight may take")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp check EXPERIMENT [--seed N] [--run-dir TEMPLATE] [--timeout DUR] [--root DIR] [--json]",
		Short:     "say whether it is safe to run an experiment right now",
		Long: `Check answers "is it safe to run right now?" in one table of three layers:

  gate       the contract and the experiment (see 'rlxp gate')
  preflight  the repo's own validation: adapter.yaml commands.preflight, with
             {config} {seed} {run_dir} {params} {experiment} filled in; its
             ✓/⚠/✗/⊘ lines are read, and a non-zero exit without a FATAL line
             means the runner died before its preflight
  live       GPUs the contract needs and who holds them (another user's
             process is a blocker), declared ports, disk and /dev/shm
             headroom, declared imports in the declared interpreter

Blockers: gate closed, FATAL, runner died, foreign GPU process, no GPUs
visible when the contract needs some, port in use, missing import.
Warnings never flip the answer, and there is no flag that does.

EXIT STATUS
  0  SAFE TO RUN: YES
  1  a state file is missing or malformed, or no such experiment
  2  usage error
  3  SAFE TO RUN: NO`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runCheck(ctx, env, &o, args)
		},
	}
}

// A checkRow is one line of the check table.
type checkRow struct {
	Layer  string `json:"layer"`
	State  string `json:"state"` // ok | warn | block | skip
	Detail string `json:"detail"`
}

type checkResult struct {
	Schema     string     `json:"schema"`
	Experiment string     `json:"experiment"`
	Safe       bool       `json:"safe"`
	Blockers   int        `json:"blockers"`
	Warnings   int        `json:"warnings"`
	Rows       []checkRow `json:"rows"`
	Preflight  string     `json:"preflight_command,omitempty"`
	Plan       []string   `json:"plan"` // the train command of every seed, as it would run
	Next       []string   `json:"next"`
}

func (c *checkResult) add(layer, state, format string, args ...any) {
	c.Rows = append(c.Rows, checkRow{layer, state, fmt.Sprintf(format, args...)})
	switch state {
	case "block":
		c.Blockers++
	case "warn":
		c.Warnings++
	}
}

func runCheck(ctx context.Context, env *Env, o *checkOptions, args []string) error {
	if len(args) != 1 {
		return usagef("check takes one experiment ID")
	}
	c, err := evaluateCheck(ctx, env, o, args[0])
	if err != nil {
		return err
	}
	if o.json {
		if err := writeJSON(env.Stdout, c.res); err != nil {
			return err
		}
	} else {
		printCheck(env, &c.res)
		fmt.Fprintln(env.Stdout, "plan:")
		for _, p := range c.res.Plan {
			fmt.Fprintf(env.Stdout, "  %s\n", p)
		}
		printNext(env, c.res.Next)
	}
	if !c.res.Safe {
		return errNegative
	}
	return nil
}

// A checked experiment: the answer, and what it was read from.
type checked struct {
	res      checkResult
	repo     *state.Repo
	contract *contract.Loaded
	exp      *experiment.Experiment
	adapter  *adapter.Adapter
	// freeGPUs are the indices of the GPUs no process holds.
	freeGPUs []string
	// seeds are the ones a launch would start.
	seeds []int
}

// evaluateCheck answers check for experiment arg. The error is for state
// that cannot be read; everything about the run itself is a row.
func evaluateCheck(ctx context.Context, env *Env, o *checkOptions, arg string) (*checked, error) {
	id, err := argID(arg)
	if err != nil {
		return nil, err
	}
	r, l, err := openContract(env, o.root)
	if err != nil {
		return nil, err
	}
	set, e, err := loadExperiment(r, id)
	if err != nil {
		return nil, err
	}
	// Read once: the budget, the seeds left to run and the runs in flight
	// all come from these (and Slurm's answers about them).
	recs, err := loadRuns(ctx, r)
	if err != nil {
		return nil, err
	}
	spend, err := budget.Sum(recs, l.Contract.Budget.MaxRunWallClock.Value())
	if err != nil {
		return nil, err
	}
	data, err := r.Read(state.Adapter)
	if err != nil {
		return nil, err
	}
	ad, err := adapter.Parse(r.Show(state.Adapter), data)
	if err != nil {
		return nil, err
	}
	c := &checked{res: checkResult{Schema: "rlxp.check/v1", Experiment: id}, repo: r, contract: l, exp: e, adapter: ad}
	res := &c.res
	if c.seeds, err = launchSeeds(recs, e, o.seeds); err != nil {
		return nil, err
	}
	if len(c.seeds) == 0 {
		c.seeds = e.Seeds
		res.add("gate", "warn", "every seed of %s has a run that finished with exit status 0; launching again reruns them", id)
	}

	a := gate.Evaluate(gate.Input{Contract: l, Experiments: set, Experiment: e, Spend: spend, Runs: len(c.seeds)})
	for _, c := range a.Conditions {
		if !c.OK {
			res.add("gate", "block", "%s: %s", c.Check, c.Detail)
		}
	}
	if a.Open {
		res.add("gate", "ok", "contract approved and current; experiment approved, in scope and in budget")
	}

	seed := o.seed
	if seed < 0 {
		seed = c.seeds[0]
	}
	checkPreflight(ctx, r, ad, e, seed, o, res)
	c.freeGPUs = checkLive(ctx, r, recs, l.Contract.Hardware, ad, res)
	src := launch.Source{Adapter: ad, AdapterFile: r.Show(state.Adapter), Experiment: e, RunDir: o.runDir}
	if res.Plan, err = src.Commands(c.seeds); err != nil {
		res.Plan = []string{runDirUsage(err).Error()}
	}
	res.Next = nextSteps(*res, id)
	res.Safe = res.Blockers == 0
	return c, nil
}

// launchSeeds are the seeds a launch starts: those asked for, each one of
// the experiment's, or else the experiment's seeds without a run that
// finished cleanly, so a relaunch after a failure picks up where it left.
func launchSeeds(recs []runs.Record, e *experiment.Experiment, asked []int) ([]int, error) {
	for _, s := range asked {
		if !slices.Contains(e.Seeds, s) {
			return nil, usagef("--seed %d: experiment %s runs seeds %v", s, e.ID, e.Seeds)
		}
	}
	if len(asked) > 0 {
		return asked, nil
	}
	done := map[int]bool{}
	for _, rec := range recs {
		if rec.Experiment == e.ID && rec.Seed != nil && rec.Exit != nil && *rec.Exit == 0 && rec.StoppedBy == "" {
			done[*rec.Seed] = true
		}
	}
	var seeds []int
	for _, s := range e.Seeds {
		if !done[s] {
			seeds = append(seeds, s)
		}
	}
	return seeds, nil
}

// printCheck prints the table and the verdict line.
func printCheck(env *Env, res *checkResult) {
	rows := make([][]string, len(res.Rows))
	for i, row := range res.Rows {
		rows[i] = []string{row.Layer, env.paint(map[string]string{"ok": green, "warn": yellow, "block": red, "skip": ""}[row.State], strings.ToUpper(row.State)), row.Detail}
	}
	printTable(env, []string{"LAYER", "STATE", "DETAIL"}, rows)
	answer := env.paint(green, "YES")
	if !res.Safe {
		answer = env.paint(red, "NO")
	}
	fmt.Fprintf(env.Stdout, "SAFE TO RUN: %s — %d blocker%s · %d warning%s\n", answer, res.Blockers, plural(res.Blockers), res.Warnings, plural(res.Warnings))
}

func printNext(env *Env, next []string) {
	fmt.Fprintln(env.Stdout, "next:")
	for i, n := range next {
		fmt.Fprintf(env.Stdout, "  %d. %s\n", i+1, n)
	}
}

// checkPreflight runs the repo's own preflight for one seed of e.
func checkPreflight(ctx context.Context, r *state.Repo, ad *adapter.Adapter, e *experiment.Experiment, seed int, o *checkOptions, res *checkResult) {
	tmpl := ad.Commands["preflight"]
	if tmpl == "" {
		res.add("preflight", "warn", "adapter.yaml declares no commands.preflight: nothing validates the run before it starts")
		return
	}
	_, cmd, err := launch.Source{Adapter: ad, AdapterFile: r.Show(state.Adapter), Experiment: e, RunDir: o.runDir}.Command("preflight", seed)
	if err != nil {
		res.add("preflight", "block", "%v", runDirUsage(err))
		return
	}
	res.Preflight = cmd
	out, err := preflight.Run(ctx, r.Root, cmd, nil, o.timeout)
	if err != nil {
		res.add("preflight", "block", "%s: %v", cmd, err)
		return
	}
	v := out.Verdict()
	for _, b := range v.Blockers {
		res.add("preflight", "block", "%s", b)
	}
	for _, w := range v.Warnings {
		res.add("preflight", "warn", "%s", w)
	}
	if !v.Blocked {
		res.add("preflight", "ok", "%d checks passed (%s, %s)", out.Result.Count(preflight.OK), cmd, out.Duration.Round(time.Millisecond))
	}
}

// checkLive looks at the machine as it is now, and returns the GPUs that
// are free.
func checkLive(ctx context.Context, r *state.Repo, recs []runs.Record, hw contract.Hardware, ad *adapter.Adapter, res *checkResult) []string {
	h := probe.System()
	flying := 0
	var ours []int // processes of runs in flight: their GPUs and trainers are ours
	for _, run := range recs {
		if run.Ended() {
			continue
		}
		if ok, l := inFlight(ctx, h, run); !ok {
			res.add("live", "warn", "run %s of %s is lost (%s): it stays charged its whole allowance; 'rlxp status %[1]s' shows what is known", run.ID, run.Experiment, l.Detail)
			continue
		}
		flying++
		res.add("live", "block", "run %s of %s is in flight (no end time recorded in %s)", run.ID, run.Experiment, r.Show(state.Runs))
		for _, pid := range []int{run.Supervisor, run.PID} {
			if pid > 1 {
				ours = append(ours, pid)
			}
		}
	}
	self := probe.Self(h, ours...)
	flying += checkTrainers(h, r.Root, self, res)
	if flying == 0 {
		res.add("live", "ok", "no rlxp run in flight, and no trainer of this repo outside rlxp")
	}

	var free []string
	switch {
	case hw.GPUsPerRun == 0:
		res.add("live", "ok", "the contract needs no GPUs")
	case hw.Launcher == runs.Slurm:
		// The runs go to compute nodes; this machine's GPUs are not theirs.
		res.add("live", "ok", "Slurm allocates %d GPU%s per node to each job (--gres=gpu:%[1]d)", hw.GPUsPerRun, plural(hw.GPUsPerRun))
	default:
		free = checkGPUs(ctx, h, self, hw.GPUsPerRun, res)
	}
	for _, p := range probe.Ports(h, ad.Runtime.Ports) {
		state := map[probe.PortStatus]string{probe.PortFree: "ok", probe.PortInUse: "block", probe.PortUnknown: "warn"}[p.Status]
		res.add("live", state, "%s", p)
	}
	if s, err := probe.Disk(h, r.Root); err == nil {
		state := "ok"
		if s.Free < 1<<30 {
			state = "warn"
		}
		res.add("live", state, "disk %s", s)
	}
	if s, err := probe.Shm(h); err == nil {
		state := "ok"
		if s.Free < 512<<20 {
			state = "warn"
		}
		res.add("live", state, "%s", s)
	}
	if len(ad.Runtime.Imports) > 0 {
		for _, im := range probe.Imports(ctx, h, ad.Runtime.Python, ad.Runtime.Imports) {
			state := "ok"
			if im.Status != probe.ImportFound {
				state = "block"
			}
			res.add("live", state, "%s", im)
		}
	}
	return free
}

func checkGPUs(ctx context.Context, h probe.Host, self probe.Ancestry, need int, res *checkResult) []string {
	gpus, err := probe.GPUs(ctx, h)
	if errors.Is(err, probe.ErrNoGPU) {
		res.add("live", "warn", "no NVIDIA GPUs visible (no nvidia-smi, or no devices), and the contract needs %d per run", need)
		return nil
	}
	if err != nil {
		res.add("live", "block", "%v", err)
		return nil
	}
	procs, err := probe.GPUProcesses(ctx, h)
	if err != nil {
		res.add("live", "block", "%v", err)
		return nil
	}
	busy := map[string]bool{}
	for _, p := range procs {
		o := probe.Owner(h, p.PID, self)
		switch o.Class {
		case probe.Ours:
			// A run in flight already blocks; its GPUs are not free either.
			busy[p.GPUUUID] = true
			res.add("live", "ok", "GPU held by this repo's run in flight: %s", p)
		case probe.Foreign:
			busy[p.GPUUUID] = true
			res.add("live", "block", "foreign GPU process: %s, %s", p, o)
		case probe.SameUser:
			busy[p.GPUUUID] = true
			res.add("live", "warn", "your own process outside rlxp holds a GPU: %s, %s", p, o)
		case probe.Unknown:
			busy[p.GPUUUID] = true
			res.add("live", "warn", "GPU process not visible here (another container?): %s, %s", p, o)
		}
	}
	var free []string
	for _, g := range gpus {
		if !busy[g.UUID] {
			free = append(free, strconv.Itoa(g.Index))
		}
	}
	state := "ok"
	if len(free) < need {
		state = "warn"
	}
	res.add("live", state, "%d of %d GPUs free, %d needed per run", len(free), len(gpus), need)
	return free
}

// inFlight says whether a run with no end recorded still holds the
// machine. A local run whose processes are all gone will never record its
// end: status calls it lost, and it holds nothing.
func inFlight(ctx context.Context, h probe.Host, rec runs.Record) (bool, diagnose.Liveness) {
	if rec.Ended() {
		return false, diagnose.Liveness{}
	}
	if rec.Backend != runs.Local {
		return true, diagnose.Liveness{}
	}
	l := diagnose.Check(ctx, h, nil, rec)
	return l.State != diagnose.Lost, l
}

// checkTrainers finds training processes by their command line. One of
// this user's running in this repository outside rlxp is a run in flight;
// another user's is a warning (the GPU rows say whether it is in the way).
// It returns how many block.
func checkTrainers(h probe.Host, root string, self probe.Ancestry, res *checkResult) int {
	procs, err := probe.Procs(h)
	if err != nil {
		res.add("live", "warn", "cannot list processes to look for trainers: %v", err)
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
			res.add("live", "block", "a trainer runs in this repo outside rlxp: pid %d, %s: %s", p.PID, what, clipText(cmd, 120))
		case o.Class == probe.Foreign:
			res.add("live", "warn", "another user's trainer runs here: pid %d (%s), %s: %s", p.PID, o, what, clipText(cmd, 120))
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

// nextSteps turns the blockers into what to do, in the order to do it.
func nextSteps(res checkResult, id string) []string {
	var next []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			next = append(next, s)
		}
	}
	for _, row := range res.Rows {
		if row.State != "block" {
			continue
		}
		switch {
		case row.Layer == "gate":
			add("open the gate: 'rlxp gate " + id + "' lists what a human must approve or fix")
		case row.Layer == "preflight":
			add("fix what the repo's preflight refuses, then check again")
		case strings.Contains(row.Detail, "in flight"), strings.Contains(row.Detail, "outside rlxp"):
			add("wait for the run in flight to end ('rlxp status'), or stop it yourself")
		case strings.Contains(row.Detail, "foreign GPU"):
			add("wait for the other user's GPU process to finish, or agree on GPUs with them")
		case strings.Contains(row.Detail, "import"):
			add("install the missing modules in the declared interpreter")
		default:
			add("resolve: " + row.Detail)
		}
	}
	if len(next) == 0 {
		add("safe to launch: a human confirms 'rlxp launch " + id + "'")
	}
	return next
}

// runDirUsage makes a --run-dir template that cannot be filled a usage
// error.
func runDirUsage(err error) error {
	var rd *launch.RunDirError
	if errors.As(err, &rd) {
		return usagef("--run-dir %v", rd.Err)
	}
	return err
}
