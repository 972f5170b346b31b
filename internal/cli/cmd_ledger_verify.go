package cli

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/digest"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/state"
)

type ledgerVerifyOptions struct {
	root    string
	json    bool
	repair  bool
	sources bool
}

func newLedgerVerifyCmd() *Command {
	var o ledgerVerifyOptions
	fs := pflag.NewFlagSet("verify", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	addJSONFlag(fs, &o.json)
	fs.BoolVar(&o.repair, "repair", false, "remove a torn last line left by a crash during an append (nothing else)")
	fs.BoolVar(&o.sources, "sources", false, "also hash every metric file the entries recorded and report each one changed or vanished")
	return &Command{
		UsageLine: "rlxp ledger verify [--root DIR] [--json] [--repair] [--sources]",
		Short:     "recompute the ledger's hash chain and name the first bad line",
		Long:      manual.Page("ledger verify"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runLedgerVerify(env, &o, args)
		},
	}
}

func runLedgerVerify(env *Env, o *ledgerVerifyOptions, args []string) error {
	if len(args) > 0 {
		return usagef("verify takes no arguments")
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	// Says how to create the ledger when it is missing.
	data, err := r.Read(state.Ledger)
	if err != nil {
		return err
	}
	f := ledger.File{Path: r.Path(state.Ledger), Name: r.Show(state.Ledger)}
	var v ledger.Verification
	if o.repair {
		lock, err := lockRepo(env, r)
		if err != nil {
			return err
		}
		defer lock.Unlock()
		if v, err = f.RepairVerification(); err != nil {
			return err
		}
	} else {
		var hash ledger.Hasher
		if o.sources {
			hash = sourceHasher(env)
		}
		v = f.VerifyContent(data, r.Root, hash)
	}
	return answer(env, o.json, v, v.Text(), v.Negative())
}

// sourceHasher hashes a recorded source as score did, through the digest
// cache: a file whose stamps changed is hashed again.
func sourceHasher(env *Env) ledger.Hasher {
	var c *digest.Cache
	if dir := digest.DefaultDir(env.Getenv); dir != "" {
		c = digest.Open(dir)
	}
	return func(path string) (string, error) { return c.Path(path, nil) }
}
