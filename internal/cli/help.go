package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

func printMainHelp(w io.Writer, root *Command) {
	fmt.Fprint(w, `rlxp keeps RL experiments evidence-gated: an approved contract before
training, a gate before launch, and every decision on record in .rlxp/.

Usage:

	rlxp <command> [arguments]

The commands are:

`)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, s := range root.Commands {
		if c := s.New(); !c.Hidden {
			fmt.Fprintf(tw, "\t%s\t%s\n", s.Name, c.Short)
		}
	}
	tw.Flush()
	fmt.Fprint(w, `
Use "rlxp help <command>" for more about a command,
and "rlxp help exit-codes" for what each exit status means.
`)
}

func printHelp(w io.Writer, c *Command) {
	fmt.Fprintf(w, "usage: %s\n\n", c.UsageLine)
	if c.Long != "" {
		fmt.Fprintln(w, strings.TrimSpace(c.Long))
	} else {
		fmt.Fprintln(w, c.Short)
	}
	if c.Commands != nil {
		fmt.Fprint(w, "\nThe subcommands are:\n\n")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, s := range c.Commands {
			fmt.Fprintf(tw, "\t%s\t%s\n", s.Name, s.New().Short)
		}
		tw.Flush()
		fmt.Fprintf(w, "\nUse \"rlxp help %s <subcommand>\" for more about a subcommand.\n", helpPath(c))
		return
	}
	if c.Flags != nil && c.Flags.HasFlags() {
		fmt.Fprintf(w, "\nFlags:\n%s", c.Flags.FlagUsages())
	}
}
