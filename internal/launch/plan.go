// Package launch starts approved runs: it builds the plan a human confirms,
// and runs it on a backend — a detached local supervisor, or Slurm.
package launch

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/runs"
)

// ShortDigest is how many hex digits of a plan digest a human confirms.
const ShortDigest = 12

// A Plan is everything a launch will do. Its digest is what a human
// confirms, so it holds no time stamps or run ids: the same experiment,
// contract and repo give the same plan and the same digest.
type Plan struct {
	Experiment string `json:"experiment"`
	// ExperimentDigest and ContractDigest pin the approved content the
	// plan was built from.
	ExperimentDigest string `json:"experiment_digest"`
	ContractDigest   string `json:"contract_digest"`
	// Approved identifies the experiment's approval the plan runs under
	// (pin.Held.Digest): the material it pins, so the digest a human
	// confirms covers the code, the files the run reads and the
	// environment variables pinned, and a re-approval makes a new plan.
	Approved string `json:"approved"`
	Backend  string `json:"backend"`
	Root     string `json:"root"`
	// WallClock is each run's allowance; Grace how long a run has between
	// TERM and KILL once the allowance is spent.
	WallClock   contract.Duration `json:"wall_clock"`
	Grace       contract.Duration `json:"grace"`
	GPUsPerRun  int               `json:"gpus_per_run"`
	Nodes       int               `json:"nodes"`
	Concurrency int               `json:"concurrency"`
	// GPUs are the devices local runs are spread over (CUDA_VISIBLE_DEVICES),
	// gpus_per_run each; empty means the runs see every device.
	GPUs  []string `json:"gpus,omitempty"`
	Slurm *Slurm   `json:"slurm,omitempty"`
	Runs  []Run    `json:"runs"`
}

// Slurm holds the scheduler options from the contract's hardware section.
type Slurm struct {
	Partition string `json:"partition,omitempty"`
	Account   string `json:"account,omitempty"`
	QOS       string `json:"qos,omitempty"`
}

// A Run is one seed of the plan.
type Run struct {
	Seed    int    `json:"seed"`
	RunDir  string `json:"run_dir"`
	Command string `json:"command"`
}

// Digest is the plan's content digest.
func (p *Plan) Digest() string { return contract.Digest(p) }

// Short is the part of the digest a human types.
func (p *Plan) Short() string {
	d := strings.TrimPrefix(p.Digest(), "sha256:")
	return d[:ShortDigest]
}

// Confirms says whether s confirms the plan: the short digest or more of it.
func (p *Plan) Confirms(s string) bool {
	d := strings.TrimPrefix(p.Digest(), "sha256:")
	s = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "sha256:")
	return len(s) >= ShortDigest && strings.HasPrefix(d, s)
}

// RunID names the run of seed started at t: sortable by time, unique per
// seed, and a valid state id.
func RunID(experiment string, seed int, t time.Time) string {
	id := fmt.Sprintf("%s-s%d-%s", t.UTC().Format("20060102T150405Z"), seed, experiment)
	if len(id) > 64 {
		id = id[:64]
	}
	return id
}

// Records are the run.json records of a plan about to start, one per run,
// charged from now: a queued run counts against the budget until it ends.
func (p *Plan) Records(ids []string, now time.Time) []runs.Record {
	recs := make([]runs.Record, len(p.Runs))
	for i, r := range p.Runs {
		seed := r.Seed
		recs[i] = runs.Record{
			ID: ids[i], Experiment: p.Experiment, Seed: &seed, RunDir: r.RunDir,
			GPUs: p.GPUsPerRun * p.Nodes, Backend: p.Backend, Command: r.Command,
			Plan: p.Digest(), Log: ".rlxp/runs/" + ids[i] + "/log",
			WallClock: p.WallClock.Value().String(),
			StartedAt: now.UTC().Format(time.RFC3339),
		}
	}
	return recs
}

// NodeCommands are the commands a human runs on nodes 1..n-1 of a
// multi-node local run; rlxp starts node 0 and never reaches other hosts.
func (p *Plan) NodeCommands(head string) []string {
	var cmds []string
	for n := 1; n < p.Nodes; n++ {
		for _, r := range p.Runs {
			cmds = append(cmds, fmt.Sprintf("cd %s && NNODES=%d NODE_RANK=%d MASTER_ADDR=%s %s",
				adapter.ShellQuote(p.Root), p.Nodes, n, head, r.Command))
		}
	}
	return cmds
}

// Env is the environment every process of run i adds to its own.
func (p *Plan) Env(id string, i int, gpus []string) []string {
	r := p.Runs[i]
	env := []string{
		"RLXP_RUN_ID=" + id, "RLXP_EXPERIMENT=" + p.Experiment,
		"RLXP_SEED=" + strconv.Itoa(r.Seed), "RLXP_RUN_DIR=" + r.RunDir,
	}
	switch {
	case gpus != nil:
		// Indices count as nvidia-smi counts them (bus order), whatever
		// order the launching shell asked CUDA for; a container the run
		// starts sees the same devices.
		d := strings.Join(gpus, ",")
		env = append(env, "CUDA_DEVICE_ORDER=PCI_BUS_ID", "CUDA_VISIBLE_DEVICES="+d, "NVIDIA_VISIBLE_DEVICES="+d)
	case p.GPUsPerRun == 0:
		// A run the contract gives no GPU is charged none: it sees none.
		env = append(env, "CUDA_VISIBLE_DEVICES=", "NVIDIA_VISIBLE_DEVICES=void")
	}
	if p.Nodes > 1 {
		env = append(env, "NNODES="+strconv.Itoa(p.Nodes), "NODE_RANK=0")
	}
	return env
}
