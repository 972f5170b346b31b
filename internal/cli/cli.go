// Package cli is the rlxp command line: the command table, flag parsing,
// output, and the mapping of errors to exit codes. It is the only package
// that prints.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/rlxp/rlxp/internal/approval"
)

// Env is everything a command may touch outside its arguments, so that
// tests can substitute any of it.
type Env struct {
	Stdin     io.Reader
	Stdout    io.Writer
	Stderr    io.Writer
	StdinTTY  bool
	StdoutTTY bool
	Getenv    func(string) string
	Dir       string // working directory
	Now       func() time.Time
	Version   string
	// Procs is the process table the approval check reads; nil reads
	// /proc. Only tests give it another (see cmd/rlxp's test binary): no
	// flag or variable of rlxp does.
	Procs approval.ProcessTable
}

// SystemEnv is the Env of the running process.
func SystemEnv(version string) *Env {
	dir, _ := os.Getwd()
	return &Env{
		Stdin:     os.Stdin,
		Stdout:    os.Stdout,
		Stderr:    os.Stderr,
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		Getenv:    os.Getenv,
		Dir:       dir,
		Now:       time.Now,
		Version:   version,
	}
}

// A Command is one entry of the command table.
type Command struct {
	// UsageLine is "rlxp NAME [SUB] ARGS..."; the command's name is its
	// last word before any flags or arguments.
	UsageLine string
	Short     string // lowercase, no final period
	Long      string // prose, then an EXIT STATUS section
	Flags     *pflag.FlagSet
	Run       func(ctx context.Context, env *Env, args []string) error
	Commands  []Sub // subcommands; Run is nil when set
	// Hidden commands are plumbing between rlxp processes: help does not
	// list them.
	Hidden bool
}

// A Sub is an entry of a command table: the command's name and how to
// build it, so that an invocation builds the one command it runs (its flag
// set and help) and not the whole table.
type Sub struct {
	Name string
	New  func() *Command
}

// Name is the command's own name: the last word of its help path.
func (c *Command) Name() string {
	path := strings.Fields(helpPath(c))
	if len(path) == 0 {
		return "rlxp"
	}
	return path[len(path)-1]
}

// commands is the command table, in the order help lists it.
func commands() []Sub {
	return []Sub{
		{"init", newInitCmd}, {"audit", newAuditCmd}, {"contract", newContractCmd},
		{"approvals", newApprovalsCmd}, {"experiment", newExperimentCmd}, {"propose", newProposeCmd},
		{"gate", newGateCmd}, {"check", newCheckCmd}, {"preflight", newPreflightCmd},
		{"launch", newLaunchCmd}, {"status", newStatusCmd}, {"ledger", newLedgerCmd},
		{"metrics", newMetricsCmd}, {"score", newScoreCmd}, {"report", newReportCmd},
		{"dashboard", newDashboardCmd}, {"plugin", newPluginCmd}, {"guard", newGuardCmd},
		{"supervise", newSuperviseCmd},
	}
}

// Main runs rlxp with args (without the program name) and returns the
// process exit status.
func Main(args []string, env *Env) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return run(ctx, args, env)
}

func run(ctx context.Context, args []string, env *Env) int {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version") {
		fmt.Fprintf(env.Stdout, "rlxp %s\n", env.Version)
		return ExitOK
	}
	root := &Command{UsageLine: "rlxp <command> [arguments]", Commands: commands()}
	if len(args) == 0 {
		printMainHelp(env.Stderr, root)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "--help", "-help":
		printMainHelp(env.Stdout, root)
		return ExitOK
	case "help":
		return runHelp(env, root, args[1:])
	}
	cmd, rest, err := lookup(root, args)
	if err != nil {
		return report(env, nil, err)
	}
	if cmd.Commands != nil {
		// A group named without a subcommand.
		printHelp(env.Stderr, cmd)
		return ExitUsage
	}
	fs := cmd.Flags
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if err := fs.Parse(rest); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			printHelp(env.Stdout, cmd)
			return ExitOK
		}
		return report(env, cmd, &UsageError{Err: err})
	}
	return report(env, cmd, cmd.Run(ctx, env, fs.Args()))
}

// lookup walks the table down args, returning the command and its
// remaining arguments.
func lookup(root *Command, args []string) (*Command, []string, error) {
	cmd := root
	for len(args) > 0 && cmd.Commands != nil {
		name := args[0]
		if strings.HasPrefix(name, "-") {
			if name == "-h" || name == "--help" {
				return cmd, nil, nil
			}
			return nil, nil, &UsageError{Err: fmt.Errorf("unknown flag %s before a subcommand", name)}
		}
		var next *Command
		for _, s := range cmd.Commands {
			if s.Name == name {
				next = s.New()
			}
		}
		if next == nil {
			if cmd == root {
				return nil, nil, usagef("unknown command %q\nRun 'rlxp help' for usage.", name)
			}
			return nil, nil, usagef("unknown subcommand %q of rlxp %s\nRun 'rlxp help %[2]s' for usage.", name, helpPath(cmd))
		}
		cmd, args = next, args[1:]
	}
	return cmd, args, nil
}

func runHelp(env *Env, root *Command, args []string) int {
	if len(args) == 0 {
		printMainHelp(env.Stdout, root)
		return ExitOK
	}
	if len(args) == 1 && args[0] == "exit-codes" {
		fmt.Fprint(env.Stdout, exitCodesHelp)
		return ExitOK
	}
	cmd, rest, err := lookup(root, args)
	if err != nil || len(rest) > 0 {
		fmt.Fprintf(env.Stderr, "rlxp: unknown help topic %q. Run 'rlxp help'.\n", strings.Join(args, " "))
		return ExitUsage
	}
	printHelp(env.Stdout, cmd)
	return ExitOK
}
