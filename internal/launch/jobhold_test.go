package launch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/state"
)

// changes is a Holder that finds the same changes every time.
type changes []string

func (c changes) Changes(context.Context) []string        { return c }
func (c changes) Paths(context.Context) ([]string, error) { return nil, nil }
func (c changes) Covers(context.Context, []string) ([]string, error) {
	return nil, nil
}

// TestHoldJob: a Slurm job holds its run to the approval its launch
// recorded, on the node: a change at the start refuses the trainer and
// says so in the record and the log; a change at the end is recorded
// with the end; an approval no longer in force is a change too; a record
// that is not what the start's check wrote was rewritten by the run.
func TestHoldJob(t *testing.T) {
	at := time.Date(2026, 12, 2, 13, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		end      bool
		held     *runs.Held
		found    changes
		holdErr  error
		forge    bool // the run rewrites its record between the checks
		wantLine string
		want     runs.Record
	}{
		{name: "clean start", held: &runs.Held{Approval: "sha256:a"},
			want: runs.Record{ID: "r", Experiment: "fast", Held: &runs.Held{Approval: "sha256:a", Start: "2026-12-02T13:00:00Z"}}},
		{name: "changed at the start", held: &runs.Held{Approval: "sha256:a"}, found: changes{"lib.sh: edited since approval"},
			wantLine: "[rlxp] run r not started: what it would run differs from its approval: lib.sh: edited since approval",
			want: runs.Record{ID: "r", Experiment: "fast", StoppedBy: runs.StoppedUnapproved,
				Held: &runs.Held{Approval: "sha256:a", Start: "2026-12-02T13:00:00Z", Changes: []string{"lib.sh: edited since approval"}}}},
		{name: "approved again since", held: &runs.Held{Approval: "sha256:a"}, holdErr: errors.New("experiment fast was approved again since its plan was confirmed; confirm the new plan"),
			wantLine: "[rlxp] run r not started: what it would run differs from its approval: experiment fast was approved again since its plan was confirmed; confirm the new plan",
			want: runs.Record{ID: "r", Experiment: "fast", StoppedBy: runs.StoppedUnapproved,
				Held: &runs.Held{Approval: "sha256:a", Start: "2026-12-02T13:00:00Z", Changes: []string{"experiment fast was approved again since its plan was confirmed; confirm the new plan"}}}},
		{name: "changed at the end", end: true, held: &runs.Held{Approval: "sha256:a", Start: "2026-12-02T12:00:00Z"}, found: changes{"lib.sh: edited since approval"},
			wantLine: "[rlxp] changed since approval when the run ended: lib.sh: edited since approval",
			want: runs.Record{ID: "r", Experiment: "fast",
				Held: &runs.Held{Approval: "sha256:a", Start: "2026-12-02T12:00:00Z", End: "2026-12-02T13:00:00Z", Changes: []string{"lib.sh: edited since approval"}}}},
		{name: "record forged while the job ran", end: true, forge: true, held: &runs.Held{Approval: "sha256:a", Start: "2026-12-02T12:00:00Z"},
			wantLine: "[rlxp] RUNS/r/run.json was rewritten by another process while the job ran",
			want: runs.Record{ID: "r", Experiment: "fast", EndedAt: "2001-01-01T00:00:00Z", Rewritten: "2026-12-02T13:00:00Z",
				Held: &runs.Held{Approval: "sha256:a", Start: "2026-12-02T12:00:00Z", End: "2026-12-02T13:00:00Z"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			r, err := state.Open(root, root)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(root, ".rlxp", "runs")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			rec := runs.Record{ID: "r", Experiment: "fast", Held: tc.held}
			if err := runs.Write(dir, rec); err != nil {
				t.Fatal(err)
			}
			data, err := runs.Encode(rec)
			if err != nil {
				t.Fatal(err)
			}
			written := digest(data)
			if tc.forge {
				rec.EndedAt = "2001-01-01T00:00:00Z"
				if err := runs.Write(dir, rec); err != nil {
					t.Fatal(err)
				}
			}
			var gotPlan *Plan
			j := JobHold{Root: root, RunsDir: dir, ID: "r", End: tc.end, Written: written,
				Hold: func(p *Plan) (Holder, error) { gotPlan = p; return tc.found, tc.holdErr },
				Lock: func() (*state.Lock, error) { return r.Lock(time.Second) },
				Now:  func() time.Time { return at }}
			line, _, err := j.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if line = strings.ReplaceAll(line, dir, "RUNS"); line != tc.wantLine {
				t.Errorf("line %q, want %q", line, tc.wantLine)
			}
			if gotPlan.Root != root || gotPlan.Experiment != "fast" || gotPlan.Approved != "sha256:a" {
				t.Errorf("held to %+v", gotPlan)
			}
			got, err := runs.Read(runs.Path(dir, "r"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
		})
	}
	// A record with no approval to hold to is an error, not a pass.
	root := t.TempDir()
	dir := filepath.Join(root, "runs")
	if err := runs.Write(dir, runs.Record{ID: "r", Experiment: "fast"}); err != nil {
		t.Fatal(err)
	}
	_, _, err := JobHold{Root: root, RunsDir: dir, ID: "r", Now: time.Now}.Run(context.Background())
	if err == nil || err.Error() != filepath.Join(dir, "r", "run.json")+": run r records no approval to hold it to" {
		t.Errorf("no approval: %v", err)
	}
}
