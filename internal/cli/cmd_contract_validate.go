package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/manual"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
)

func newContractValidateCmd() *Command {
	var o contractOptions
	fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp contract validate [--root DIR] [--json]",
		Short:     "check the contract, adapter and experiments files",
		Long:      manual.Page("contract validate"),
		Flags:     fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runContractValidate(env, &o, args)
		},
	}
}

func runContractValidate(env *Env, o *contractOptions, args []string) error {
	if len(args) > 0 {
		return usagef("validate takes no arguments")
	}
	r, l, err := openContract(env, o.root)
	if err != nil {
		return err
	}
	data, err := r.Read(state.Adapter)
	missing := err != nil && errors.Is(statErr(r.Path(state.Adapter)), os.ErrNotExist)
	if err != nil && !missing {
		return err
	}
	var experiments *document.Error
	if _, err := workspace.Experiments(r); err != nil && !errors.As(err, &experiments) {
		return err
	}
	res, err := contract.Validate(l, r.Show(state.Adapter), data, missing, experiments)
	if err != nil {
		return err
	}
	if o.json {
		if err := writeJSON(env.Stdout, res); err != nil {
			return err
		}
	} else {
		for _, f := range res.Findings {
			sev := env.paint(red, "error")
			if f.Severity != "error" {
				sev = env.paint(yellow, "warning")
			}
			fmt.Fprintf(env.Stdout, "%s: %s\n", sev, f.Error.Error())
		}
		verdict := "valid"
		if !res.Valid {
			verdict = "not valid"
		}
		fmt.Fprintf(env.Stdout, "%s: %s (%d error%s, %d warning%s)\n", r.Show(""), verdict, res.Errors, plural(res.Errors), res.Warnings, plural(res.Warnings))
	}
	if !res.Valid {
		return errNegative
	}
	return nil
}

func statErr(path string) error {
	_, err := os.Stat(path)
	return err
}
