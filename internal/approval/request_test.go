package approval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/schema/validate"
	"github.com/rlxp/rlxp/internal/state"
)

func fixtureRepo(t *testing.T) (*state.Repo, *contract.Loaded) {
	t.Helper()
	root := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "..", "cmd", "rlxp", "testdata", "fixtures", "contract.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".rlxp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".rlxp", "contract.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := state.Open(root, root)
	if err != nil {
		t.Fatal(err)
	}
	l, err := contract.Parse(validate.Schemas{}, r.Show(state.Contract), data)
	if err != nil {
		t.Fatal(err)
	}
	return r, l
}

// TestApproveSections: recorded with who, how and where; at a prompt only
// the confirmed sections; nothing for an incomplete section or a log that
// does not verify.
func TestApproveSections(t *testing.T) {
	origin := Origin{TTY: "/dev/pts/1", Ancestry: []string{"rlxp", "bash"}}
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	t.Run("with --yes", func(t *testing.T) {
		r, l := fixtureRepo(t)
		recs, err := ApproveSections(r, l, []string{"task", "scope"}, Request{By: "alice", Origin: origin, Now: now}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, rec := range recs {
			got = append(got, rec.Text())
			if rec.TTY != "/dev/pts/1" || rec.How != Yes || rec.Receipt().Section != rec.Subject {
				t.Errorf("record %+v", rec)
			}
		}
		d, _ := l.Digests([]string{"task", "scope"})
		want := []string{
			"approved task (" + d["task"][:19] + "…) by alice at 2026-12-01T00:00:00Z, non-interactive",
			"approved scope (" + d["scope"][:19] + "…) by alice at 2026-12-01T00:00:00Z, non-interactive",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("records (-want +got):\n%s", diff)
		}
	})
	t.Run("at a prompt", func(t *testing.T) {
		r, l := fixtureRepo(t)
		var shown []string
		confirm := func(text, question string) (bool, error) {
			shown = append(shown, question)
			return strings.Contains(question, "budget"), nil
		}
		recs, err := ApproveSections(r, l, []string{"task", "budget"}, Request{By: "bob", Interactive: true, Now: now}, confirm)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 1 || recs[0].Subject != "budget" || recs[0].How != Terminal {
			t.Errorf("records %+v", recs)
		}
		if diff := cmp.Diff([]string{"Approve section task as bob? [y/N] ", "Approve section budget as bob? [y/N] "}, shown); diff != "" {
			t.Errorf("questions (-want +got):\n%s", diff)
		}
	})
	t.Run("a log that does not verify", func(t *testing.T) {
		r, l := fixtureRepo(t)
		if err := os.WriteFile(r.Path(state.Approvals), []byte("{\"seq\": 7}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ApproveSections(r, l, []string{"task"}, Request{By: "alice", Now: now}, nil); err == nil || !strings.Contains(err.Error(), "cannot record an approval") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("an unknown or incomplete section", func(t *testing.T) {
		r, l := fixtureRepo(t)
		if _, err := ApproveSections(r, l, []string{"nosuch"}, Request{By: "alice", Now: now}, nil); err == nil {
			t.Error("approved a section that is not there")
		}
		if _, err := os.Stat(r.Path(state.Approvals)); err == nil {
			t.Error("something was recorded")
		}
	})
}
