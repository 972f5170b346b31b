package check

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rlxp/rlxp/internal/launch"
	"github.com/rlxp/rlxp/internal/preflight"
)

// checkPreflight runs the repo's own preflight for one seed, or rlxp's
// built-in one when the adapter declares none.
func checkPreflight(ctx context.Context, in Input, src launch.Source, seed int, res *Result) {
	if in.Adapter.Commands["preflight"] == "" {
		if in.Builtin == nil {
			res.addf(LayerPreflight, Warn, "adapter.yaml declares no commands.preflight: nothing validates the run before it starts")
			return
		}
		p, err := in.Builtin(ctx, seed)
		if err != nil {
			res.add(Row{Layer: LayerPreflight, State: Block, Kind: KindPreflight, Detail: runDirText(err)})
			return
		}
		res.Preflight = p.Command
		addPreflight(res, p)
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
