// Command rlxp-guard is 'rlxp guard' in a binary of its own: the
// PreToolUse hook that Claude Code and Codex run before every tool call.
// It links the guard alone, so that it starts about as fast as an empty Go
// program (docs/guard.md has the numbers), and reads rlxp command lines
// with rlxp's own command table and flag definitions: commands.go is
// generated from them (go generate, which make build runs), and a test fails
// when it is stale.
package main

//go:generate go test -run TestCommandsCurrent -update

import (
	"fmt"
	"os"

	"golang.org/x/term"

	"github.com/rlxp/rlxp/internal/guard"
)

func main() {
	os.Exit(run())
}

// run answers as 'rlxp guard' does: exit 0 and nothing printed to allow,
// the ask answer on stdout, or exit 2 with the reason on stderr.
func run() int {
	if len(os.Args) > 1 || term.IsTerminal(int(os.Stdin.Fd())) {
		fmt.Fprintln(os.Stderr, "rlxp-guard: reads a PreToolUse hook payload (JSON) on stdin and takes no arguments; Claude Code and Codex run it before each tool call, as 'rlxp guard'")
		return 2
	}
	dir, _ := os.Getwd()
	g := guard.Guard{Rlxp: rlxp.Read, Home: os.Getenv("HOME")}
	d := g.Hook(os.Stdin, dir)
	switch {
	case d.Ask:
		if _, err := os.Stdout.Write(d.AskOutput()); err != nil {
			return 1
		}
	case d.Deny:
		fmt.Fprintf(os.Stderr, "rlxp guard: %s\n", d.Reason)
		return 2
	}
	return 0
}
