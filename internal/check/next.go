package check

import "fmt"

// NextSteps turns the blockers into what to do, in the order to do it.
func NextSteps(rows []Row, id string) []string {
	var next []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			next = append(next, s)
		}
	}
	for _, row := range rows {
		if row.State != Block {
			continue
		}
		switch row.Kind {
		case KindGate:
			add("open the gate: 'rlxp gate " + id + "' lists what a human must approve or fix")
		case KindPreflight:
			add("fix what the preflight refuses, then check again")
		case KindInFlight:
			add("wait for the run in flight to end ('rlxp status'), or stop it: 'rlxp status' names its run id")
		case KindTrainer:
			add(fmt.Sprintf("a trainer started outside rlxp runs in this repo: pid %d (%s); let it finish, or stop it with 'kill %[1]d'", row.PID, clipText(orName(row.Command), 80)))
		case KindForeignGPU:
			add("wait for the other user's GPU process to finish, or agree on GPUs with them")
		case KindGPUs:
			held := false
			for _, r := range rows {
				if r.Kind == KindOwnGPU {
					held = true
					add(fmt.Sprintf("your own process outside rlxp holds a GPU: pid %d (%s); let it finish, or stop it with 'kill %[1]d'", r.PID, clipText(orName(r.Command), 80)))
				}
			}
			if !held {
				add("wait for a GPU to be free ('nvidia-smi' shows who holds them)")
			}
			add("or, if runs may share a GPU, a human sets hardware.share_gpus: true in the contract")
		case KindNoGPU:
			add("run where the contract's GPUs are visible (nvidia-smi lists them), or have a human change hardware.gpus_per_run")
		case KindImport:
			add("install the missing modules in the declared interpreter")
		case KindPort:
			add("free the declared port, or declare another in adapter.yaml runtime.ports")
		default:
			add("resolve: " + row.Detail)
		}
	}
	if len(next) == 0 {
		add("safe to launch: a human confirms 'rlxp launch " + id + "'")
	}
	return next
}

func orName(cmd string) string {
	if cmd == "" {
		return "command line not visible"
	}
	return cmd
}
