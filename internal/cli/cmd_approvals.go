package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/state"
)

func newApprovalsCmd() *Command {
	return &Command{
		UsageLine: "rlxp approvals <subcommand>",
		Short:     "review and verify the approvals log",
		Long: `Every approval of a contract section or an experiment is one line of
.rlxp/approvals.jsonl, append-only and hash-chained like the ledger: what
was approved and its digest, who, how (terminal or --yes), when, the
controlling terminal and the approving process's ancestry. The gate reads
approvals from there alone, and trusts none of them while the chain does
not verify.`,
		Commands: []*Command{newApprovalsShowCmd(), newApprovalsVerifyCmd()},
	}
}

type approvalsOptions struct {
	root string
	json bool
}

func newApprovalsShowCmd() *Command {
	var o approvalsOptions
	fs := pflag.NewFlagSet("show", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp approvals show [--root DIR] [--json]",
		Short:     "list every approval recorded",
		Long: `Show lists the approvals log, oldest first. A log that does not verify is
an error naming its first bad line.

EXIT STATUS
  0  listed (an empty or missing log lists nothing)
  1  the log does not verify, or cannot be read
  2  usage error`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			r, book, err := readApprovals(env, "show", o.root, args)
			if err != nil {
				return err
			}
			if book.Problem != nil {
				return book.Problem
			}
			if o.json {
				return writeJSON(env.Stdout, book.ViewOf(r.Show(state.Approvals)))
			}
			printTable(env, approval.RowHeader, book.Rows())
			return nil
		},
	}
}

func newApprovalsVerifyCmd() *Command {
	var o approvalsOptions
	fs := pflag.NewFlagSet("verify", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp approvals verify [--root DIR] [--json]",
		Short:     "recompute the approvals log's hash chain",
		Long: `Verify recomputes the chain of .rlxp/approvals.jsonl as 'rlxp ledger verify'
does for the ledger: every line an approval record, seq counting up from 1,
each prev the hash of the line before, each hash that of its own content.
The first line that fails is named. A hand-written, edited, removed or
reordered line fails, and while it does the gate trusts no approval.

EXIT STATUS
  0  the chain verifies (a missing log is an empty one)
  1  the log cannot be read
  2  usage error
  3  the chain does not verify`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			r, book, err := readApprovals(env, "verify", o.root, args)
			if err != nil {
				return err
			}
			v := book.Verify(r.Show(state.Approvals))
			if o.json {
				if err := writeJSON(env.Stdout, v); err != nil {
					return err
				}
			} else {
				fmt.Fprintln(env.Stdout, v.Text())
			}
			if book.Problem != nil {
				return errNegative
			}
			return nil
		},
	}
}

// readApprovals opens the repository and reads its approvals log for a
// subcommand that takes no arguments.
func readApprovals(env *Env, name, root string, args []string) (*state.Repo, approval.Book, error) {
	if len(args) > 0 {
		return nil, approval.Book{}, usagef("%s takes no arguments", name)
	}
	r, err := openRepo(env, root)
	if err != nil {
		return nil, approval.Book{}, err
	}
	book, err := approval.LogOf(r).Read()
	return r, book, err
}
