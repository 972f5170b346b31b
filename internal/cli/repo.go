package cli

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"time"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/budget"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/launch"
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/slurm"
	"github.com/rlxp/rlxp/internal/state"
)

// defaultLockWait is how long a writer waits for another to release the
// lock; RLXP_LOCK_WAIT overrides it (slow shared filesystems).
const defaultLockWait = 5 * time.Second

func lockRepo(env *Env, r *state.Repo) (*state.Lock, error) {
	wait := defaultLockWait
	if v := env.Getenv("RLXP_LOCK_WAIT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return nil, usagef("invalid RLXP_LOCK_WAIT %q: want a duration such as 10s", v)
		}
		wait = d
	}
	return r.Lock(wait)
}

// Shared flags, added the way cmd/go adds its build flags.
func addRootFlag(fs *pflag.FlagSet, root *string) {
	fs.StringVar(root, "root", ".", "target repository `DIR` (holds .rlxp/)")
}

func addJSONFlag(fs *pflag.FlagSet, v *bool) {
	fs.BoolVar(v, "json", false, "print one JSON object (with a schema field) instead of text")
}

func addApproverFlags(fs *pflag.FlagSet, by *string, yes *bool) {
	fs.StringVar(by, "by", "", "approver `NAME` (default: $USER)")
	fs.BoolVar(yes, "yes", false, "approve without a terminal prompt; recorded as non-interactive")
}

func openRepo(env *Env, root string) (*state.Repo, error) {
	r, err := state.Open(resolve(env, root), env.Dir)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func resolve(env *Env, p string) string {
	if p == "" || p[0] == '/' {
		return p
	}
	return env.Dir + string(os.PathSeparator) + p
}

// loadContract reads contract.yaml with the approvals recorded in the
// approvals log, the only ones trusted.
func loadContract(r *state.Repo) (*contract.Loaded, error) {
	data, err := r.Read(state.Contract)
	if err != nil {
		return nil, err
	}
	l, err := contract.Parse(r.Show(state.Contract), data)
	if err != nil {
		return nil, err
	}
	if err := approval.Apply(r, l, nil); err != nil {
		return nil, err
	}
	return l, nil
}

func approvalLog(r *state.Repo) approval.Log { return approval.LogOf(r) }

// openContract opens the repository at root and reads its contract.
func openContract(env *Env, root string) (*state.Repo, *contract.Loaded, error) {
	r, err := openRepo(env, root)
	if err != nil {
		return nil, nil, err
	}
	l, err := loadContract(r)
	if err != nil {
		return nil, nil, err
	}
	return r, l, nil
}

func loadExperiments(r *state.Repo) (*experiment.Set, error) {
	data, err := r.Read(state.Experiments)
	if err != nil {
		return nil, err
	}
	set, err := experiment.Parse(r.Show(state.Experiments), data)
	if err != nil {
		return nil, err
	}
	if err := approval.Apply(r, nil, set); err != nil {
		return nil, err
	}
	return set, nil
}

// loadExperiment reads experiments.yaml and finds one experiment in it.
func loadExperiment(r *state.Repo, id string) (*experiment.Set, *experiment.Experiment, error) {
	set, err := loadExperiments(r)
	if err != nil {
		return nil, nil, err
	}
	e, err := set.Get(id)
	if err != nil {
		return nil, nil, err
	}
	return set, e, nil
}

func saveExperiments(r *state.Repo, s *experiment.Set) error {
	data, err := s.Encode()
	if err != nil {
		return err
	}
	// Prove the rendered file reads back before it replaces the old one.
	if _, err := experiment.Parse(s.Path, data); err != nil {
		return fmt.Errorf("refusing to write %s: %w", s.Path, err)
	}
	return state.WriteFile(r.Path(state.Experiments), data, 0o644)
}

func loadSpend(ctx context.Context, r *state.Repo, c *contract.Loaded) (budget.Spend, error) {
	recs, err := loadRuns(ctx, r)
	if err != nil {
		return budget.Spend{}, err
	}
	return budget.Sum(recs, c.Contract.Budget.MaxRunWallClock.Value())
}

// loadRuns reads every run record, with what the scheduler knows about
// Slurm runs that have no end recorded yet.
func loadRuns(ctx context.Context, r *state.Repo) ([]runs.Record, error) {
	recs, _, err := loadRunsLive(ctx, r)
	return recs, err
}

// loadRunsLive is loadRuns, with the liveness of each run as the sweep of
// lost runs found it, for the in-flight checks that follow.
func loadRunsLive(ctx context.Context, r *state.Repo) ([]runs.Record, *diagnose.Lives, error) {
	recs, err := runs.List(r.Path(state.Runs))
	if err != nil {
		return nil, nil, err
	}
	for _, rec := range recs {
		if rec.Backend == runs.Slurm && !rec.Ended() {
			launch.Refresh(ctx, slurm.New(), recs)
			break
		}
	}
	// A local run whose supervision was killed is stopped and recorded
	// by the first command that looks.
	lives := diagnose.NewLives(probe.System(), nil)
	if err := launch.Sweep(ctx, lives, r.Path(state.Runs), recs, time.Now()); err != nil {
		return nil, nil, err
	}
	return recs, lives, nil
}

// approver is the name recorded with an approval (or a rejection): --by,
// or else the login name. A name with control characters, or one that is
// a flag swallowed as the value (--by --version), is a usage error.
func approver(env *Env, by string) (string, error) {
	if by == "" {
		by = loginName(env)
	}
	if by == "" {
		return "", usagef("cannot tell who is approving: pass --by NAME")
	}
	if err := approval.CheckName(by); err != nil {
		return "", usagef("%v", err)
	}
	return by, nil
}

func loginName(env *Env) string {
	for _, k := range []string{"USER", "LOGNAME"} {
		if v := env.Getenv(k); v != "" {
			return v
		}
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

func timestamp(env *Env) string {
	return env.Now().UTC().Format(time.RFC3339)
}
