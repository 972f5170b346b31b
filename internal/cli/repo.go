package cli

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/cli/front"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
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

// openLocked opens the repository at root and takes its lock, for commands
// that change its state.
func openLocked(env *Env, root string) (*state.Repo, *state.Lock, error) {
	r, err := openRepo(env, root)
	if err != nil {
		return nil, nil, err
	}
	lock, err := lockRepo(env, r)
	if err != nil {
		return nil, nil, err
	}
	return r, lock, nil
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
	return state.Open(resolve(env, root), env.Dir)
}

func resolve(env *Env, p string) string { return front.RootDir(env.Dir, p) }

// openContract opens the repository at root and reads its contract.
func openContract(env *Env, root string) (*state.Repo, *contract.Loaded, error) {
	r, err := openRepo(env, root)
	if err != nil {
		return nil, nil, err
	}
	l, err := workspace.Contract(r)
	if err != nil {
		return nil, nil, err
	}
	return r, l, nil
}

// approver is the name recorded with an approval (or a rejection); a bad
// or missing one is a usage error.
func approver(env *Env, by string) (string, error) {
	name, err := approval.Approver(by, env.Getenv)
	if err != nil {
		return "", usagef("%v", err)
	}
	return name, nil
}

func timestamp(env *Env) string {
	return env.Now().UTC().Format(time.RFC3339)
}
