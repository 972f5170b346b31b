package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/check"
	"github.com/rlxp/rlxp/internal/launch"
	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/pin"
	"github.com/rlxp/rlxp/internal/prompt"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
)

type launchOptions struct {
	checkOptions
	confirm string
	grace   time.Duration
	flags   *pflag.FlagSet
}

func newLaunchCmd() *Command {
	var o launchOptions
	fs := pflag.NewFlagSet("launch", pflag.ContinueOnError)
	o.flags = fs
	addRootFlag(fs, &o.root)
	fs.IntSliceVar(&o.seeds, "seed", nil, "launch only these seeds of the experiment (repeatable; default: all)")
	fs.StringVar(&o.runDir, "run-dir", "runs/{experiment}/seed{seed}", "each run's directory, a `TEMPLATE` with {experiment} and {seed}")
	fs.StringVar(&o.confirm, "confirm", "", "launch the plan whose `DIGEST` a human has seen (as printed by launch)")
	fs.DurationVar(&o.grace, "grace", launch.DefaultGrace, "time between TERM and KILL when a run's wall-clock allowance is spent (at most a quarter of the allowance, 5s at least, 10m at most)")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long the repo's preflight may take")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp launch EXPERIMENT [--seed N]... [--confirm DIGEST] [--run-dir TEMPLATE] [--grace DUR] [--root DIR] [--json]",
		Short:     "check an experiment, then start its runs once a human confirms the plan",
		Long:      manual.Page("launch"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runLaunch(ctx, env, &o, args)
		},
	}
}

type launchResult struct {
	Schema       string            `json:"schema"`
	Check        check.Result      `json:"check"`
	Plan         *launch.Plan      `json:"plan,omitempty"`
	Digest       string            `json:"digest,omitempty"`
	Launched     bool              `json:"launched"`
	Confirmed    string            `json:"confirmed,omitempty"` // how the plan was confirmed (run.json's confirmed)
	Refusal      string            `json:"refusal,omitempty"`
	Runs         []launch.Launched `json:"runs,omitempty"`
	NodeCommands []string          `json:"node_commands,omitempty"`
	Next         []string          `json:"next"`
}

func runLaunch(ctx context.Context, env *Env, o *launchOptions, args []string) error {
	if len(args) != 1 {
		return usagef("launch takes one experiment ID")
	}
	if o.grace < 0 {
		return usagef("--grace must not be negative")
	}
	o.seed = -1
	c, err := evaluateCheck(ctx, env, &o.checkOptions, args[0])
	if err != nil {
		return err
	}
	res := launchResult{Schema: "rlxp.launch/v1", Check: c.Result}
	if !c.Result.Safe {
		res.Refusal = fmt.Sprintf("check found %d blocker%s", c.Result.Blockers, plural(c.Result.Blockers))
		res.Next = c.Result.Next
		return finishLaunch(env, o, &res, errNegative)
	}
	var grace *time.Duration
	if o.flags.Changed("grace") {
		grace = &o.grace
	}
	held, err := pin.Hold(c.repo, c.exp.ID)
	if err != nil {
		return err
	}
	plan, err := launch.Build(launch.Spec{
		Source:   launch.Source{Adapter: c.adapter, AdapterFile: c.repo.Show(state.Adapter), Experiment: c.exp, RunDir: o.runDir},
		Root:     c.repo.Root,
		Contract: c.contract,
		Seeds:    c.Seeds,
		Grace:    grace,
		FreeGPUs: c.FreeGPUs,
		Approved: held.Digest(),
	})
	var ge *launch.GraceError
	if errors.As(err, &ge) {
		return &UsageError{Err: ge}
	}
	var ee *launch.ExistsError
	if de := (*launch.DevicesError)(nil); errors.As(err, &ee) || errors.As(err, &de) {
		res.Refusal = err.Error()
		return finishLaunch(env, o, &res, errNegative)
	}
	if err != nil {
		return runDirUsage(err)
	}
	res.Plan, res.Digest = plan, plan.Short()
	if !o.json {
		printCheck(env, &c.Result)
		fmt.Fprintln(env.Stdout, plan.Summary())
		printTable(env, []string{"SEED", "RUN DIR", "COMMAND"}, plan.Rows())
	}
	refusal, ask := plan.Decide(o.confirm, env.StdinTTY && !o.json)
	if ask {
		answer, err := prompt.New(env.Stdin, env.Stdout).Ask(ctx, plan.Question())
		if err != nil {
			return err
		}
		if !plan.Accepts(answer) {
			refusal = "not confirmed at the prompt"
		}
	}
	if res.Refusal = refusal; refusal != "" {
		res.Next = []string{fmt.Sprintf("a human confirms: rlxp launch %s --confirm %s", plan.Experiment, plan.Short())}
		return finishLaunch(env, o, &res, errNegative)
	}
	how := runs.ByTerminal
	if o.confirm != "" {
		how = launch.Confirmation(procTable(env))
	}
	if err := startPlan(ctx, env, c, plan, how, &res); err != nil {
		return err
	}
	res.Launched, res.Confirmed = true, how
	res.Next = []string{"watch it: rlxp status " + plan.Experiment, "when every run has ended: rlxp score " + plan.Experiment}
	return finishLaunch(env, o, &res, nil)
}

// startPlan records the runs and starts them, under the state lock so
// that two launches cannot both pass the in-flight check.
func startPlan(ctx context.Context, env *Env, c *checked, p *launch.Plan, how string, res *launchResult) error {
	lock, err := lockRepo(env, c.repo)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	recs, lives, err := workspace.RunsLive(ctx, c.repo)
	if err != nil {
		return err
	}
	res.Runs, res.NodeCommands, err = launch.Start{
		Plan: p, RunsDir: c.repo.Path(state.Runs), Runs: recs, Now: env.Now(), Confirmed: how,
		InFlight: func(r runs.Record) bool { ok, _ := check.InFlight(ctx, lives, r); return ok },
	}.Run(ctx)
	return err
}

func finishLaunch(env *Env, o *launchOptions, res *launchResult, err error) error {
	if o.json {
		if werr := writeJSON(env.Stdout, res); werr != nil {
			return werr
		}
		return err
	}
	if res.Plan == nil {
		printCheck(env, &res.Check)
	}
	if res.Refusal != "" {
		fmt.Fprintf(env.Stdout, "%s: %s\n", env.paint(red, "NOT LAUNCHED"), res.Refusal)
	}
	if res.Launched {
		fmt.Fprintf(env.Stdout, "confirmed: %s\n", runs.ConfirmationText(res.Confirmed))
	}
	for _, r := range res.Runs {
		fmt.Fprintln(env.Stdout, r.Text())
	}
	if len(res.NodeCommands) > 0 {
		fmt.Fprintln(env.Stdout, "run on every other node (rlxp started node 0 only):")
		for _, c := range res.NodeCommands {
			fmt.Fprintf(env.Stdout, "  %s\n", c)
		}
	}
	printNext(env, res.Next)
	return err
}
