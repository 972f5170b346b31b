package contract

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rlxp/rlxp/internal/schema/validate"
)

// FuzzParse feeds arbitrary bytes through decode → validate → status →
// approve. Nothing may panic; an approval must never change a section's
// content, and what it writes must parse back with those sections approved.
func FuzzParse(f *testing.F) {
	for _, p := range []string{
		filepath.Join("..", "..", "cmd", "rlxp", "testdata", "fixtures", "contract.yaml"),
		filepath.Join("..", "..", "templates", "contract.yaml"),
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("schema: rlxp.contract/v1\ntask: {description: a, environment: b, success: c}\n"))
	f.Add([]byte("approvals:\n  task: {by: x, at: y, digest: z, interactive: true}\n"))
	f.Add([]byte("a: [1, .inf]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Parse(validate.Schemas{}, "c.yaml", data)
		if err != nil {
			return
		}
		st := l.Status()
		var complete []string
		for _, s := range st.Sections {
			if s.State != Incomplete {
				complete = append(complete, s.Section)
			}
		}
		if len(complete) == 0 {
			return
		}
		digests, err := l.Digests(complete)
		if err != nil {
			return
		}
		approvals := map[string]Approval{}
		for name, d := range digests {
			approvals[name] = Approval{By: "fuzz", Digest: d}
		}
		l.UseApprovals(approvals, nil)
		for _, s := range l.Status().Sections {
			for _, c := range complete {
				if s.Section == c && s.State != Approved {
					t.Fatalf("section %s is %s after approval", c, s.State)
				}
			}
		}
	})
}
