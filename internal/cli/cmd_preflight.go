package cli

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/check"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/launch"
	"github.com/rlxp/rlxp/internal/preflight"
	"github.com/rlxp/rlxp/internal/preflight/builtin"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
)

type preflightOptions struct {
	root   string
	seed   int
	runDir string
	json   bool
}

func newPreflightCmd() *Command {
	var o preflightOptions
	fs := pflag.NewFlagSet("preflight", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.IntVar(&o.seed, "seed", -1, "the seed whose run is checked (default: the experiment's first)")
	fs.StringVar(&o.runDir, "run-dir", "runs/{experiment}/seed{seed}", "the run's directory, a `TEMPLATE` with {experiment} and {seed}")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp preflight EXPERIMENT [--seed N] [--run-dir TEMPLATE] [--root DIR] [--json]",
		Short:     "rlxp's own preflight: what would fail before a GPU is touched",
		Long: `Preflight reads the experiment's resolved train command (adapter.yaml
commands.train for one seed), the Python program it starts and its config,
without running or importing anything of the repo and without writing, and
prints one line per check in the preflight format:

  ✓ OK / ⚠ WARN / ✗ FATAL / ⊘ SKIP  message

Confirmed wrong is FATAL; suspicious is WARN; what cannot be told is SKIP.
The checks:

  entry      the entry point exists and compiles with the declared
             interpreter (runtime.python), through a shell runner too
  imports    its top-level imports resolve there
  options    every --option of the command is read by the program's
             parsers (argparse, click, absl, read from their definitions in
             the program and the repo modules it imports) or named by its
             runner; FATAL names the option and the closest accepted one
  overrides  --set key=value (the adapter's config.override) and the
             key=value arguments of a Hydra or OmegaConf program name keys
             of the config (the adapter's, or the Hydra main's)
  paths      the config exists and parses; config, checkpoint and data
             options name files that exist
  run-dir    the run directory is writable (new, or a warning), with disk
             headroom
  seed       the seed is not one of the contract's held-out evaluation seeds
  gpus       torchrun/accelerate/deepspeed process counts and
             CUDA_VISIBLE_DEVICES equal the contract's GPUs per run
  ports      the declared ports are free
  env        a program that imports wandb has a key, or logs offline

and the rules of a framework it recognises:

  hydra-groups  a Hydra main's group=option overrides name a YAML file
                of the group's directory

'rlxp check' runs these when adapter.yaml declares no commands.preflight.

EXIT STATUS
  0  no FATAL
  1  a FATAL (as a repo's own preflight exits), or a state file is missing
     or malformed, or no such experiment
  2  usage error`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runPreflight(ctx, env, &o, args)
		},
	}
}

func runPreflight(ctx context.Context, env *Env, o *preflightOptions, args []string) error {
	if len(args) != 1 {
		return usagef("preflight takes one experiment ID")
	}
	id, err := argID(args[0])
	if err != nil {
		return err
	}
	r, l, err := openContract(env, o.root)
	if err != nil {
		return err
	}
	_, e, err := workspace.Experiment(r, id)
	if err != nil {
		return err
	}
	seed := o.seed
	if seed < 0 {
		seed = e.Seeds[0]
	} else if !slices.Contains(e.Seeds, seed) {
		return usagef("--seed %d: experiment %s runs seeds %v", seed, e.ID, e.Seeds)
	}
	data, err := r.Read(state.Adapter)
	if err != nil {
		return err
	}
	ad, err := adapter.Parse(r.Show(state.Adapter), data)
	if err != nil {
		return err
	}
	rep, err := runBuiltin(ctx, r, l, ad, e, seed, o.runDir, false)
	if err != nil {
		return runDirUsage(err)
	}
	if o.json {
		if err := writeJSON(env.Stdout, struct {
			Schema string `json:"schema"`
			builtin.Report
		}{"rlxp.preflight/v1", rep}); err != nil {
			return err
		}
	} else {
		out, errs := rep.Lines()
		fmt.Fprint(env.Stdout, out)
		fmt.Fprint(env.Stderr, errs)
	}
	if n := rep.Count(preflight.Fatal); n > 0 {
		return fmt.Errorf("preflight of %s seed %d: %d FATAL", e.ID, seed, n)
	}
	return nil
}

// runBuiltin runs rlxp's own preflight for one seed of e; live says the
// caller probes ports itself.
func runBuiltin(ctx context.Context, r *state.Repo, l *contract.Loaded, ad *adapter.Adapter, e *experiment.Experiment, seed int, runDirTmpl string, live bool) (builtin.Report, error) {
	src := launch.Source{Adapter: ad, AdapterFile: r.Show(state.Adapter), Experiment: e, RunDir: runDirTmpl}
	runDir, cmd, err := src.Command("train", seed)
	if err != nil {
		return builtin.Report{}, err
	}
	ct := l.Contract
	return builtin.Run(ctx, builtin.Input{
		Root: r.Root, Command: cmd, Seed: seed, RunDir: runDir,
		Python: ad.Runtime.Python, Config: ad.Config.Default, Override: ad.Config.Override,
		HeldOut: ct.Evaluation.Seeds, GPUsPerRun: ct.Hardware.GPUsPerRun, Ports: ad.Runtime.Ports,
		Live: live, Env: os.Environ(),
	}, builtin.Profiles()...)
}

// builtinPreflight is check's preflight when the adapter declares none.
func builtinPreflight(r *state.Repo, l *contract.Loaded, ad *adapter.Adapter, e *experiment.Experiment, runDirTmpl string) func(context.Context, int) (check.Preflight, error) {
	return func(ctx context.Context, seed int) (check.Preflight, error) {
		rep, err := runBuiltin(ctx, r, l, ad, e, seed, runDirTmpl, true)
		if err != nil {
			return check.Preflight{}, err
		}
		return check.Preflight{
			Command:  "rlxp preflight " + e.ID + " --seed " + strconv.Itoa(seed),
			Blockers: rep.Messages(preflight.Fatal), Warnings: rep.Messages(preflight.Warn),
			Passed: rep.Count(preflight.OK), Duration: rep.Duration,
		}, nil
	}
}
