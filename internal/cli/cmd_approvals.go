package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/state"
)

func newApprovalsCmd() *Command {
	return &Command{
		UsageLine: "rlxp approvals <subcommand>",
		Short:     "review and verify the approvals log",
		Long:      manual.Page("approvals"),
		Commands:  []Sub{{"show", newApprovalsShowCmd}, {"verify", newApprovalsVerifyCmd}},
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
		Long:      manual.Page("approvals show"),
		Flags:     fs,
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
		Long:      manual.Page("approvals verify"),
		Flags:     fs,
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
