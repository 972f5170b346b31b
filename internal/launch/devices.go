package launch

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// A DevicesError is a plan that would give a run other GPUs than the
// contract approves: fewer free than a run needs, or a command that picks
// its devices itself or asks the scheduler for more.
type DevicesError struct{ Reason string }

func (e *DevicesError) Error() string { return e.Reason }

// deviceVars choose which GPUs a process sees, and in what order its
// indices count them: the plan sets them, a command does not.
var deviceVars = []string{"CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"}

// slurmGPUs matches the options srun and salloc take for a number of GPUs:
// --gres=gpu[:type]:N, --gpus[-per-node|-per-task]=N (or a space). The
// processes torchrun, accelerate and deepspeed ask for are read by the
// built-in preflight, which check runs before every launch.
var slurmGPUs = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|\s)(--gres[= ]gpu(?::[A-Za-z0-9_-]+)?:(\d+)|--gpus(?:-per-node|-per-task)?[= ](?:[A-Za-z0-9_-]+:)?(\d+))(?:\s|$)`)
})

// deviceSetter names the device variable a command sets itself: as an
// assignment (NAME=… cmd, export NAME=…, declare) or an argument of env.
// A command that does not parse sets none here; the gate refuses it.
func deviceSetter(cmd string) string {
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil {
		return ""
	}
	found := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil && slices.Contains(deviceVars, n.Name.Value) {
				found = n.Name.Value
			}
		case *syntax.Word:
			name, _, ok := strings.Cut(n.Lit(), "=")
			if ok && slices.Contains(deviceVars, name) {
				found = name
			}
		}
		return found == ""
	})
	return found
}

// checkDevices refuses a plan whose runs would not see exactly the GPUs
// the contract approves. free is nil for a scheduler that allocates them.
func checkDevices(p *Plan, free []string, local bool) error {
	if local && p.GPUsPerRun > 0 && len(free) < p.GPUsPerRun {
		return &DevicesError{fmt.Sprintf("%d GPUs are free and the contract approves %d per run: nothing starts without the GPUs it was approved for", len(free), p.GPUsPerRun)}
	}
	for _, r := range p.Runs {
		if v := deviceSetter(r.Command); v != "" {
			return &DevicesError{fmt.Sprintf("commands.train sets %s itself: a run sees the GPUs its plan gives it (seed %d: %s)", v, r.Seed, r.Command)}
		}
		for _, m := range slurmGPUs().FindAllStringSubmatch(r.Command, -1) {
			if k, _ := strconv.Atoi(m[2] + m[3]); k > p.GPUsPerRun {
				return &DevicesError{fmt.Sprintf("commands.train asks for %d GPUs (%s) and the contract approves %d per run (seed %d)", k, m[1], p.GPUsPerRun, r.Seed)}
			}
		}
	}
	return nil
}
