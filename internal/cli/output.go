package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// writeJSON writes v, which carries a schema field, as one indented object.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printTable writes an aligned table with a header on a terminal, and
// headerless TSV when piped, so that scripts can cut columns.
func printTable(env *Env, header []string, rows [][]string) {
	if !env.StdoutTTY {
		for _, r := range rows {
			for i := range r {
				r[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(r[i])
			}
			fmt.Fprintln(env.Stdout, strings.Join(r, "\t"))
		}
		return
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
}

// Colours for states, used only on a terminal without NO_COLOR.
const (
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	red    = "\x1b[31m"
	reset  = "\x1b[0m"
)

func (env *Env) color() bool {
	return env.StdoutTTY && env.Getenv("NO_COLOR") == ""
}

// paint colours s when colour is on.
func (env *Env) paint(color, s string) string {
	if !env.color() {
		return s
	}
	return color + s + reset
}

// warnf prints a warning on stderr.
func warnf(env *Env, format string, args ...any) {
	fmt.Fprintf(env.Stderr, "rlxp: warning: "+format+"\n", args...)
}

// answer writes v as JSON with --json, else text; a negative answer exits 3.
func answer(env *Env, asJSON bool, v any, text string, negative bool) error {
	if asJSON {
		if err := writeJSON(env.Stdout, v); err != nil {
			return err
		}
	} else {
		fmt.Fprint(env.Stdout, text)
	}
	if negative {
		return errNegative
	}
	return nil
}
