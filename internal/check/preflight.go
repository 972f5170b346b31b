package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/rlxp/rlxp/internal/launch"
	"github.com/rlxp/rlxp/internal/preflight"
	"github.com/rlxp/rlxp/internal/preflight/builtin"
	"github.com/rlxp/rlxp/internal/state"
)

// OwnPreflight runs rlxp's built-in preflight on the resolved train
// command of one seed (negative: the experiment's first), with the
// contract's facts about it and the profiles of the frameworks it knows.
// Runs is how many runs the launch starts (their disk is asked for); live
// says the caller probes ports itself.
func OwnPreflight(ctx context.Context, in Input, seed, runs int, live bool) (builtin.Report, error) {
	if seed < 0 {
		seed = in.Experiment.Seeds[0]
	} else if !slices.Contains(in.Experiment.Seeds, seed) {
		return builtin.Report{}, &SeedError{Seed: seed, Experiment: in.Experiment}
	}
	src := launch.Source{Adapter: in.Adapter, AdapterFile: in.Repo.Show(state.Adapter), Experiment: in.Experiment, RunDir: in.RunDir}
	runDir, cmd, err := src.Command("train", seed)
	if err != nil {
		return builtin.Report{}, err
	}
	ct, ad := in.Contract.Contract, in.Adapter
	rep, err := builtin.Run(ctx, builtin.Input{
		Root: in.Repo.Root, Command: cmd, Seed: seed, RunDir: runDir, Runs: runs,
		Python: ad.Runtime.Python, Config: ad.Config.Default, Override: ad.Config.Override, List: ad.Config.List,
		HeldOut: ct.Evaluation.Seeds, GPUsPerRun: ct.Hardware.GPUsPerRun, Nodes: ct.Hardware.Nodes, Ports: ad.Runtime.Ports,
		Live: live, Env: os.Environ(),
	}, builtin.Profiles()...)
	rep.Experiment = in.Experiment.ID
	return rep, err
}

// checkPreflight runs the repo's own preflight for one seed, or rlxp's
// built-in one when the adapter declares none.
func checkPreflight(ctx context.Context, in Input, src launch.Source, seed, runs int, res *Result) {
	if in.Adapter.Commands["preflight"] == "" {
		rep, err := OwnPreflight(ctx, in, seed, runs, true)
		if err != nil {
			res.add(Row{Layer: LayerPreflight, State: Block, Kind: KindPreflight, Detail: runDirText(err)})
			return
		}
		res.Preflight = "rlxp preflight " + in.Experiment.ID + " --seed " + strconv.Itoa(seed)
		addPreflight(res, Preflight{Command: res.Preflight, Blockers: rep.Messages(preflight.Fatal), Warnings: rep.Messages(preflight.Warn),
			Passed: rep.Count(preflight.OK), Duration: rep.Duration})
		return
	}
	_, cmd, err := src.Command("preflight", seed)
	if err != nil {
		res.add(Row{Layer: LayerPreflight, State: Block, Kind: KindPreflight, Detail: runDirText(err)})
		return
	}
	res.Preflight = cmd
	out, err := preflight.Run(ctx, in.Repo.Root, cmd, nil, in.Timeout)
	if err != nil {
		res.add(Row{Layer: LayerPreflight, State: Block, Kind: KindPreflight, Detail: fmt.Sprintf("%s: %v", cmd, err)})
		return
	}
	v := out.Verdict()
	addPreflight(res, Preflight{Command: cmd, Blockers: v.Blockers, Warnings: v.Warnings, Passed: out.Result.Count(preflight.OK), Duration: out.Duration})
}

func addPreflight(res *Result, p Preflight) {
	for _, b := range p.Blockers {
		res.add(Row{Layer: LayerPreflight, State: Block, Kind: KindPreflight, Detail: b})
	}
	for _, w := range p.Warnings {
		res.addf(LayerPreflight, Warn, "%s", w)
	}
	if len(p.Blockers) == 0 {
		res.addf(LayerPreflight, OK, "%d checks passed (%s, %s)", p.Passed, p.Command, p.Duration.Round(time.Millisecond))
	}
}

// runDirText says what is wrong with a run-directory template the way the
// flag that gave it is named.
func runDirText(err error) string {
	var rd *launch.RunDirError
	if errors.As(err, &rd) {
		return "--run-dir " + rd.Err.Error()
	}
	return err.Error()
}
