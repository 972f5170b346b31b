package front

import (
	"fmt"
	"io"
	"os"

	"github.com/rlxp/rlxp/internal/cli/render"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/contractstatus"
	"github.com/rlxp/rlxp/internal/schema"
	"github.com/rlxp/rlxp/internal/state"
)

// A Terminal is where an answer goes and how it looks there.
type Terminal struct {
	Stdout io.Writer
	TTY    bool // Stdout is a terminal: tables get a header
	Color  bool // and states their colours
}

// ContractStatus writes 'rlxp contract status' of repository r (one JSON
// object with asJSON) and tells whether every section is approved; c
// checks the state files' schemas.
func ContractStatus(t Terminal, r *state.Repo, c schema.Checker, asJSON bool) (approved bool, err error) {
	rep, err := contractstatus.Of(r, c)
	if err != nil {
		return false, err
	}
	if asJSON {
		if err := render.JSON(t.Stdout, rep); err != nil {
			return false, err
		}
		return rep.Approved, nil
	}
	rows := make([][]string, len(rep.Sections))
	for i, s := range rep.Sections {
		rows[i] = s.Row()
		rows[i][1] = render.Paint(t.Color, StateColor(s.State), s.State)
	}
	render.Table(t.Stdout, t.TTY, []string{"SECTION", "STATE", "APPROVED BY", "AT", "DETAIL"}, rows)
	fmt.Fprint(t.Stdout, render.Lines(append(rep.Notes(), rep.Adapter.Lines()...)))
	verdict := render.Paint(t.Color, render.Green, "approved")
	if !rep.Approved {
		verdict = render.Paint(t.Color, render.Red, "not approved")
	}
	fmt.Fprintf(t.Stdout, "%s: %d of %d sections approved — %s\n", rep.File, rep.Count(), len(rep.Sections), verdict)
	return rep.Approved, nil
}

// StateColor is the colour of a section's state.
func StateColor(s string) string {
	switch s {
	case contract.Approved:
		return render.Green
	case contract.Stale:
		return render.Yellow
	}
	return render.Red
}

// RootDir is the repository a --root flag names, relative to the working
// directory dir.
func RootDir(dir, root string) string {
	if root == "" || root[0] == '/' {
		return root
	}
	return dir + string(os.PathSeparator) + root
}
