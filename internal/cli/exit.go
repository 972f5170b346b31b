package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rlxp/rlxp/internal/prompt"
	"github.com/rlxp/rlxp/internal/state"
)

// Exit codes, the same for every command.
const (
	ExitOK       = 0
	ExitError    = 1 // bad input, I/O
	ExitUsage    = 2 // bad command line
	ExitNegative = 3 // ran, and the answer is no: gate closed, findings
	ExitLocked   = 4 // another rlxp holds the state lock
	// ExitInterrupted is ^C at a prompt, as shells report a SIGINT death.
	ExitInterrupted = 130
)

const exitCodesHelp = `Every rlxp command exits with one of:

  0  ok
  1  error: bad input (malformed or invalid file, unknown id) or I/O failure
  2  usage: unknown command or flag, missing argument
  3  negative answer: the command ran and the answer is no
     (gate closed, contract not approved, findings)
  4  locked: another rlxp process holds .rlxp/.lock
  130  interrupted: ^C at a prompt; nothing was written

Errors are one line on stderr, starting with 'rlxp: ', naming the file,
line and field where there is one. A command that fails changes nothing.
`

// A UsageError is a bad command line.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// negative is returned by a command whose answer is "no" after it has
// printed that answer; it exits 3 without another message.
type negative struct{}

func (negative) Error() string { return "negative answer" }

var errNegative = negative{}

// report prints err (once, on stderr) and returns the exit code for it.
func report(env *Env, cmd *Command, err error) int {
	if err == nil {
		return ExitOK
	}
	if errors.Is(err, errNegative) {
		return ExitNegative
	}
	if errors.Is(err, prompt.ErrInterrupted) {
		fmt.Fprintf(env.Stderr, "rlxp: %s\n", err)
		return ExitInterrupted
	}
	if errors.Is(err, errBlocked) {
		return ExitUsage // the hook protocol's block, reason already printed
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		fmt.Fprintf(env.Stderr, "rlxp: %s\n", ue.Err)
		if cmd != nil {
			fmt.Fprintf(env.Stderr, "usage: %s\nRun 'rlxp help %s' for details.\n", cmd.UsageLine, helpPath(cmd))
		}
		return ExitUsage
	}
	fmt.Fprintf(env.Stderr, "rlxp: %s\n", oneLine(err.Error()))
	if errors.Is(err, state.ErrLocked) {
		return ExitLocked
	}
	return ExitError
}

func helpPath(cmd *Command) string {
	words := strings.Fields(cmd.UsageLine)[1:]
	var path []string
	for _, w := range words {
		if strings.ContainsAny(w, "[]<>.|=-") || strings.ToUpper(w) == w {
			break
		}
		path = append(path, w)
	}
	return strings.Join(path, " ")
}

// oneLine keeps an error to the single line the conventions promise.
func oneLine(s string) string {
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "; ")
}
