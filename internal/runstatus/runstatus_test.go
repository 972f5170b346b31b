package runstatus

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/repotest"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/schema/validate"
	"github.com/rlxp/rlxp/internal/state"
)

var adapterYAML = repotest.Adapter(
	`train: {path: "{run_dir}/progress.csv", format: csv}`,
	`eval: {path: "{run_dir}/eval.jsonl", format: jsonl}`)

func seed(n int) *int { return &n }

// repo is a repository with adapter.yaml and the given files.
func repo(t testing.TB, files map[string]string) *state.Repo {
	t.Helper()
	files[".rlxp/adapter.yaml"] = adapterYAML
	return repotest.Repo(t, files)
}

func TestCheckRecord(t *testing.T) {
	for _, tc := range []struct {
		rec  runs.Record
		want string
	}{
		{runs.Record{StartedAt: "2025-06-01T09:00:00Z"}, ""},
		{runs.Record{}, "started_at is missing"},
		{runs.Record{StartedAt: "yesterday"}, `started_at "yesterday" is not an RFC 3339 time`},
		{runs.Record{StartedAt: "2025-06-01T09:00:00Z", EndedAt: "soon"}, `ended_at "soon" is not an RFC 3339 time`},
		{runs.Record{StartedAt: "2025-06-01T09:00:00Z", WallClock: "-1m"}, `wall_clock "-1m" is not a positive duration`},
	} {
		got := ""
		if err := CheckRecord(tc.rec); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckRecord(%+v) = %q, want %q", tc.rec, got, tc.want)
		}
	}
}

func TestSelect(t *testing.T) {
	recs := []runs.Record{
		{ID: "b1", Experiment: "b", Seed: seed(1), StartedAt: "2025-06-01T10:00:00Z", EndedAt: "2025-06-01T10:05:00Z"},
		{ID: "b0", Experiment: "b", Seed: seed(0), StartedAt: "2025-06-01T09:00:00Z", EndedAt: "2025-06-01T09:05:00Z"},
		{ID: "b0-again", Experiment: "b", Seed: seed(0), StartedAt: "2025-06-01T11:00:00Z"},
		{ID: "f0", Experiment: "f", Seed: seed(0), StartedAt: "2025-06-01T12:00:00Z", EndedAt: "2025-06-01T12:05:00Z"},
	}
	alive := map[string]diagnose.State{"b0-again": diagnose.Running}
	live := func(rec runs.Record) diagnose.Liveness { return diagnose.Liveness{State: alive[rec.ID]} }
	ids := func(rs []runs.Record) []string {
		out := []string{}
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	for _, tc := range []struct {
		id, note string
		want     []string
		err      string
	}{
		{id: "f0", want: []string{"f0"}},
		{id: "b", want: []string{"b0-again", "b1"}},
		{id: "", want: []string{"b0-again"}},
		{id: "nosuch", err: `no run or experiment "nosuch" in runs`},
	} {
		got, note, err := Select("runs", recs, tc.id, live)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("Select(%q): error %v, want %q", tc.id, err, tc.err)
			}
			continue
		}
		if err != nil || note != tc.note {
			t.Fatalf("Select(%q): %q, %v", tc.id, note, err)
		}
		if d := cmp.Diff(tc.want, ids(got)); d != "" {
			t.Errorf("Select(%q) (-want +got):\n%s", tc.id, d)
		}
	}
	alive = nil
	got, note, _ := Select("runs", recs, "", live)
	if d := cmp.Diff([]string{"f0"}, ids(got)); d != "" || note != "no run in flight; the latest run, f0, is shown" {
		t.Errorf("none in flight: %q %s", note, d)
	}
}

// finished is a run that ended normally, with two declared sources.
func finished(t testing.TB) (*state.Repo, runs.Record) {
	rec := runs.Record{ID: "r1", Experiment: "b", Seed: seed(0), Backend: "local", RunDir: "out/r1",
		StartedAt: "2025-06-01T09:00:00Z", EndedAt: "2025-06-01T09:05:00Z", Exit: seed(0)}
	r := repo(t, map[string]string{
		".rlxp/runs/r1/run.json": repotest.Record(t, rec),
		".rlxp/runs/r1/log":      "starting\n",
		"out/r1/progress.csv":    "step,loss\n1,0.5\n2,0.4\n3,0.3\n",
	})
	return r, rec
}

func TestOf(t *testing.T) {
	r, rec := finished(t)
	ad, recs, err := Load(r)
	if err != nil || len(recs) != 1 {
		t.Fatalf("Load: %v %v", recs, err)
	}
	now := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	rd := &Reader{Repo: r, Adapter: ad, Now: func() time.Time { return now }, Stale: DefaultStale}
	run, err := rd.Of(rec, diagnose.Check(t.Context(), nil, nil, rec))
	if err != nil {
		t.Fatal(err)
	}
	want := []Source{
		{Name: "eval", Path: "out/r1/eval.jsonl", State: SourceMissing, Detail: "not written yet"},
		{Name: "train", Path: "out/r1/progress.csv", Format: "csv", Points: 3, State: SourceRead},
	}
	if d := cmp.Diff(want, run.Sources); d != "" {
		t.Errorf("sources (-want +got):\n%s", d)
	}
	if run.State != diagnose.Finished || run.Diagnosis != NoSignature || run.Negative || run.ElapsedS != 300 {
		t.Errorf("run: %+v", run)
	}
	if run.Progress == nil || run.Progress.LastStep != 3 {
		t.Errorf("progress: %+v", run.Progress)
	}
}

// TestCacheReadsChangedFilesOnly: an unchanged file is served from the
// cache; one written since (new size, mtime or ctime) is read again.
func TestCacheReadsChangedFilesOnly(t *testing.T) {
	r, rec := finished(t)
	ad, _, err := Load(r)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCache()
	rd := &Reader{Repo: r, Adapter: ad, Now: time.Now, Stale: DefaultStale, Cache: c}
	live := diagnose.Check(t.Context(), nil, nil, rec)
	first, err := rd.Of(rec, live)
	if err != nil {
		t.Fatal(err)
	}
	again, err := rd.Of(rec, live)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(first.Sources, again.Sources); d != "" {
		t.Errorf("unchanged files read differently (-first +again):\n%s", d)
	}
	if c.Len() != 2 { // the log and progress.csv
		t.Errorf("cache holds %d files, want 2", c.Len())
	}
	// Same size, same second: only the stamps in nanoseconds or the
	// ctime tell the change.
	p := filepath.Join(r.Root, "out/r1/progress.csv")
	if err := os.WriteFile(p, []byte("step,loss\n1,0.5\n2,0.4\n9,0.3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changed, err := rd.Of(rec, live)
	if err != nil {
		t.Fatal(err)
	}
	if changed.Progress == nil || changed.Progress.LastStep != 9 {
		t.Errorf("a changed file was served from the cache: progress %+v", changed.Progress)
	}
	// A sweep after reading forgets nothing in use; one more forgets a
	// file no longer read.
	c.Sweep()
	if c.Len() != 2 {
		t.Errorf("after a sweep: %d files", c.Len())
	}
	c.Sweep()
	if c.Len() != 0 {
		t.Errorf("files not read since the last sweep kept: %d", c.Len())
	}
}

func TestRunSource(t *testing.T) {
	ad, err := adapter.Parse(validate.Schemas{}, "adapter.yaml", []byte(adapterYAML))
	if err != nil {
		t.Fatal(err)
	}
	r := repo(t, map[string]string{})
	rel, format, skip, err := RunSource(r, ad, "train", runs.Record{RunDir: "out/x", Seed: seed(2)})
	if rel != "out/x/progress.csv" || format != "csv" || skip != "" || err != nil {
		t.Errorf("RunSource: %q %q %q %v", rel, format, skip, err)
	}
	_, _, skip, _ = RunSource(r, ad, "train", runs.Record{})
	if skip != "run.json records no run_dir" {
		t.Errorf("no run_dir: skip %q", skip)
	}
}
