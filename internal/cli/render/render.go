// Package render is how rlxp writes its answers: one indented JSON
// object, a table, colours on a terminal. It links nothing else, so that
// rlxp's front binary renders what it serves with the code package cli
// uses.
package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// JSON writes v, which carries a schema field, as one indented object.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Table writes an aligned table with a header on a terminal (tty), and
// headerless TSV when piped, so that scripts can cut columns.
func Table(w io.Writer, tty bool, header []string, rows [][]string) {
	if !tty {
		for _, r := range rows {
			for i := range r {
				r[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(r[i])
			}
			fmt.Fprintln(w, strings.Join(r, "\t"))
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
}

// Colours for states, used only on a terminal without NO_COLOR.
const (
	Green  = "\x1b[32m"
	Yellow = "\x1b[33m"
	Red    = "\x1b[31m"
	Reset  = "\x1b[0m"
)

// Color tells whether output to a terminal (tty) is coloured, given the
// value of NO_COLOR.
func Color(tty bool, noColor string) bool { return tty && noColor == "" }

// Paint colours s when on.
func Paint(on bool, color, s string) string {
	if !on {
		return s
	}
	return color + s + Reset
}

// Lines joins lines, each ending in a newline.
func Lines(ls []string) string {
	var b strings.Builder
	for _, l := range ls {
		b.WriteString(l + "\n")
	}
	return b.String()
}
