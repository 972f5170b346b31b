// Package front is what rlxp's front binary (cmd/rlxp) answers itself:
// --version, and 'contract status' when every schema verdict it needs is
// remembered as a pass. Everything else it hands over, with the same
// arguments and environment, to the core binary (rlxp-core, beside it),
// which links the whole command line: a command, help, a flag the front
// does not know, a verdict it would have to validate, any error. The
// hand-over replaces the process (execve), so its pid, parent and
// terminal stay the same. Package cli renders contract status with this
// package's code, so both binaries answer byte for byte alike.
package front

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/term"

	"github.com/rlxp/rlxp/internal/cli/render"
	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/schema"
	"github.com/rlxp/rlxp/internal/state"
)

// Core is the core binary's name; it is looked up beside the front.
const Core = "rlxp-core"

// Exit statuses, as package cli maps them.
const (
	exitOK       = 0
	exitError    = 1
	exitNegative = 3
)

// Main answers the process's command line (os.Args) when the front can,
// and hands the process over to the core otherwise; it returns the exit
// status, from the core only when the core cannot be started.
func Main(version string) int {
	if code, ok := serve(os.Args[1:], version); ok {
		return code
	}
	return handOver(os.Args)
}

// serve answers args when the front can, from os.Stdout's point of view.
func serve(args []string, version string) (int, bool) {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version" || args[0] == "version") {
		fmt.Fprintf(os.Stdout, "rlxp %s\n", version)
		return exitOK, true
	}
	if len(args) < 2 || args[0] != "contract" || args[1] != "status" {
		return 0, false
	}
	root, asJSON, ok := statusFlags(args[2:])
	if !ok {
		return 0, false
	}
	dir, _ := os.Getwd()
	r, err := state.Open(RootDir(dir, root), dir)
	if err != nil {
		return 0, false
	}
	tty := term.IsTerminal(int(os.Stdout.Fd()))
	var out bytes.Buffer
	look := &lookup{v: schema.VerdictsOf(r, nil)}
	approved, err := ContractStatus(Terminal{&out, tty, render.Color(tty, os.Getenv("NO_COLOR"))}, r, look, asJSON)
	if err != nil || look.missed {
		return 0, false // the core validates, or reports the error
	}
	if _, err := out.WriteTo(os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "rlxp: %v\n", err)
		return exitError, true
	}
	if !approved {
		return exitNegative, true
	}
	return exitOK, true
}

// statusFlags reads contract status's flags as the core's flag set does,
// and fails on anything else (which the core answers).
func statusFlags(args []string) (root string, asJSON bool, ok bool) {
	root = "."
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--json":
			asJSON = true
		case a == "--root" && i+1 < len(args) && args[i+1] != "" && !strings.HasPrefix(args[i+1], "-"):
			i++
			root = args[i]
		case strings.HasPrefix(a, "--root=") && len(a) > len("--root="):
			root = a[len("--root="):]
		default:
			return "", false, false
		}
	}
	return root, asJSON, true
}

// lookup answers from the remembered verdicts alone, and notes a
// document it has none for.
type lookup struct {
	v      *schema.Verdicts
	missed bool
}

func (l *lookup) Check(f *document.File, name string) ([]*document.Error, error) {
	errs, err := l.v.Check(f, name)
	if errors.Is(err, schema.ErrNoVerdict) {
		l.missed = true
	}
	return errs, err
}

// handOver replaces the process with the core, given the same argv and
// environment; it returns only when it could not.
func handOver(argv []string) int {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "rlxp: cannot find %s, which answers every command but --version and contract status: where is rlxp? %v\n", Core, err)
		return exitError
	}
	core := filepath.Join(filepath.Dir(exe), Core)
	err = syscall.Exec(core, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "rlxp: cannot run %s, which answers every command but --version and contract status: %v; install it beside %s: go install github.com/rlxp/rlxp/cmd/...@latest (or make build) installs both\n", core, err, exe)
	return exitError
}
