package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rlxp/rlxp/internal/launch"
)

func printPlan(env *Env, p *launch.Plan) {
	gpus := "no GPUs"
	if p.GPUsPerRun > 0 {
		gpus = fmt.Sprintf("%d GPU%s per node", p.GPUsPerRun, plural(p.GPUsPerRun))
		if len(p.GPUs) > 0 {
			gpus += " from " + strings.Join(p.GPUs, ",")
		}
	}
	fmt.Fprintf(env.Stdout, "plan %s: %d run%s of %s on %s, %d at a time, %s, %d node%s, %s wall clock each (then TERM, KILL after %s)\n",
		p.Short(), len(p.Runs), plural(len(p.Runs)), p.Experiment, p.Backend, p.Concurrency,
		gpus, p.Nodes, plural(p.Nodes), p.WallClock.Value(), p.Grace.Value())
	rows := make([][]string, len(p.Runs))
	for i, r := range p.Runs {
		rows[i] = []string{strconv.Itoa(r.Seed), r.RunDir, r.Command}
	}
	printTable(env, []string{"SEED", "RUN DIR", "COMMAND"}, rows)
}
