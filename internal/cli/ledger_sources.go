package cli

import (
	"fmt"

	"github.com/rlxp/rlxp/internal/digest"
	"github.com/rlxp/rlxp/internal/ledger"
)

// sourceHasher hashes a recorded source as score did, through the digest
// cache: a file whose stamps changed is hashed again.
func sourceHasher(env *Env) ledger.Hasher {
	var c *digest.Cache
	if dir := digest.DefaultDir(env.Getenv); dir != "" {
		c = digest.Open(dir)
	}
	return func(path string) (string, error) { return c.Path(path, nil) }
}

func printSourceChecks(env *Env, checks []ledger.SourceCheck, asked bool, bad int) {
	if !asked {
		return
	}
	for _, c := range checks {
		where := fmt.Sprintf("entry #%d (%s), seed %d, source %s: %s", c.Seq, c.Experiment, c.Seed, c.Source, c.Path)
		switch c.State {
		case ledger.SourceChanged:
			fmt.Fprintf(env.Stdout, "%s changed since it was scored (recorded %s, now %s)\n", where, c.Recorded, c.Now)
		case ledger.SourceVanished:
			fmt.Fprintf(env.Stdout, "%s vanished since it was scored (recorded %s)\n", where, c.Recorded)
		case ledger.SourceUnreadable:
			fmt.Fprintf(env.Stdout, "%s cannot be read: %s\n", where, c.Detail)
		}
	}
	if bad == 0 {
		fmt.Fprintf(env.Stdout, "%d recorded source%s, all unchanged\n", len(checks), plural(len(checks)))
	} else {
		fmt.Fprintf(env.Stdout, "%d of %d recorded sources changed, vanished or unreadable\n", bad, len(checks))
	}
}
