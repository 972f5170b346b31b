package cli

import (
	"context"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/logdiff"
)

type ledgerDiffOptions struct {
	root string
	base string
	json bool
}

func newLedgerDiffCmd() *Command {
	var o ledgerDiffOptions
	fs := pflag.NewFlagSet("diff", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.StringVar(&o.base, "base", "", "git `REF` of the base (for a pull request: the target branch, e.g. origin/main)")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp ledger diff --base REF [--root DIR] [--json]",
		Short:     "check that the ledger only grew since a git ref and render the new entries",
		Long: `Diff compares .rlxp/ledger.jsonl, and .rlxp/approvals.jsonl, with the same
files at git REF, as
'git show REF:.rlxp/ledger.jsonl' prints it (a ledger missing at REF counts
as empty). The ledger is append-only, so the base must be, line for line,
the start of the current ledger, and the current ledger's chain must
verify.

It prints the new entries as Markdown for a pull-request comment: a heading
"### rlxp ledger: N new entries", a table (seq, experiment, primary metric
mean ± 95% CI and seeds, delta against the baseline with its p-value, or
"n too small", guardrails passed, verdict), notes from each entry's reasons
and warnings, and the chain's head hash. Then the approvals added since REF, each with
what was approved, its digest, who, how, the terminal and the ancestry;
the approvals log obeys the same rules as the ledger and is refused the
same way.

EXIT STATUS
  0  the ledger only grew; the new entries are printed
  1  the ledger is missing or unreadable, git is missing, --root is not
     in a git repository, or REF is not a commit
  2  usage error
  3  history was rewritten (the base is not a prefix), or the chain does
     not verify, of the ledger or of the approvals log; the output names
     the line`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runLedgerDiff(ctx, env, &o, args)
		},
	}
}

func runLedgerDiff(ctx context.Context, env *Env, o *ledgerDiffOptions, args []string) error {
	if len(args) > 0 {
		return usagef("diff takes no arguments (use --base REF)")
	}
	if o.base == "" {
		return usagef("diff needs --base REF, e.g. --base origin/main")
	}
	if strings.HasPrefix(o.base, "-") || strings.ContainsAny(o.base, ": \t\n") {
		return usagef("invalid --base %q: want a git ref such as origin/main", o.base)
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	res, err := logdiff.Diff(ctx, r, o.base)
	if err != nil {
		return err
	}
	return answer(env, o.json, res, res.Text(), !res.OK)
}
