package cli

import (
	"fmt"
	"io"

	"github.com/rlxp/rlxp/internal/cli/render"
)

// writeJSON writes v, which carries a schema field, as one indented object.
func writeJSON(w io.Writer, v any) error { return render.JSON(w, v) }

// printTable writes an aligned table with a header on a terminal, and
// headerless TSV when piped, so that scripts can cut columns.
func printTable(env *Env, header []string, rows [][]string) {
	render.Table(env.Stdout, env.StdoutTTY, header, rows)
}

// Colours for states, used only on a terminal without NO_COLOR.
const (
	green  = render.Green
	yellow = render.Yellow
	red    = render.Red
)

func (env *Env) color() bool { return render.Color(env.StdoutTTY, env.Getenv("NO_COLOR")) }

// paint colours s when colour is on.
func (env *Env) paint(color, s string) string { return render.Paint(env.color(), color, s) }

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
