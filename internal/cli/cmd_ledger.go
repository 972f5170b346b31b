package cli

import (
	"context"

	"github.com/gocarina/gocsv"
	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/state"
)

func newLedgerCmd() *Command {
	return &Command{
		UsageLine: "rlxp ledger <subcommand>",
		Short:     "show, verify and diff the hash-chained results ledger",
		Long:      manual.Page("ledger"),
		Commands:  []Sub{{"show", newLedgerShowCmd}, {"verify", newLedgerVerifyCmd}, {"diff", newLedgerDiffCmd}},
	}
}

type ledgerShowOptions struct {
	root       string
	json       bool
	csv        bool
	experiment string
}

func newLedgerShowCmd() *Command {
	var o ledgerShowOptions
	fs := pflag.NewFlagSet("show", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	addJSONFlag(fs, &o.json)
	fs.BoolVar(&o.csv, "csv", false, "print CSV with a header row instead of text")
	fs.StringVar(&o.experiment, "experiment", "", "show only the entries of experiment `ID`")
	return &Command{
		UsageLine: "rlxp ledger show [--root DIR] [--json] [--csv] [--experiment ID]",
		Short:     "list the scored results in the ledger",
		Long:      manual.Page("ledger show"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runLedgerShow(env, &o, args)
		},
	}
}

func runLedgerShow(env *Env, o *ledgerShowOptions, args []string) error {
	if len(args) > 0 {
		return usagef("show takes no arguments")
	}
	if o.json && o.csv {
		return usagef("--json and --csv exclude each other")
	}
	if o.experiment != "" {
		if _, err := argID(o.experiment); err != nil {
			return err
		}
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	data, err := r.Read(state.Ledger)
	if err != nil {
		return err
	}
	l := ledger.File{Name: r.Show(state.Ledger)}.List(data, o.experiment)
	if l.Problem != nil {
		warnf(env, "%s; showing the %d entries before it (run 'rlxp ledger verify')", l.Problem, l.Verified)
	}
	switch {
	case o.json:
		return writeJSON(env.Stdout, l)
	case o.csv:
		return gocsv.Marshal(l.CSV(), env.Stdout)
	}
	rows := [][]string{}
	for _, e := range l.Entries {
		cells := e.ShowCells()
		if v := e.String("verdict"); v != "" {
			cells[len(cells)-1] = env.paint(verdictColor(v), v)
		}
		rows = append(rows, cells)
	}
	printTable(env, ledger.ShowHeader, rows)
	return nil
}

func verdictColor(v string) string {
	switch v {
	case "improved", "baseline":
		return green
	case "inconclusive":
		return yellow
	}
	return red
}
