package dashboard

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rlxp/rlxp/internal/repotest"
	"github.com/rlxp/rlxp/internal/state"
)

// lab writes a repository of n finished runs, each with a log and three
// declared sources of points steps each.
func lab(tb testing.TB, n, points int) *state.Repo {
	tb.Helper()
	r := repotest.Repo(tb, map[string]string{
		".rlxp/contract.yaml":    string(repotest.Contract(tb)),
		".rlxp/experiments.yaml": "schema: rlxp.experiments/v1\nexperiments: []\n",
		".rlxp/ledger.jsonl":     "",
		".rlxp/adapter.yaml": repotest.Adapter(
			`train: {path: "{run_dir}/progress.csv", format: csv}`,
			`steps: {path: "{run_dir}/metrics.jsonl", format: jsonl}`,
			`eval: {path: "{run_dir}/eval.jsonl", format: jsonl}`),
	})
	// Run files are written through a buffer: a benchmark makes large ones.
	write := func(rel string, fill func(w *bufio.Writer)) {
		p := filepath.Join(r.Root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		f, err := os.Create(p)
		if err != nil {
			tb.Fatal(err)
		}
		w := bufio.NewWriter(f)
		fill(w)
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
		f.Close()
	}
	text := func(s string) func(*bufio.Writer) { return func(w *bufio.Writer) { w.WriteString(s) } }
	start := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		id := fmt.Sprintf("r%04d", i)
		dir := "runs/" + id
		rec, _ := json.Marshal(map[string]any{"id": id, "experiment": fmt.Sprintf("e%d", i%10), "seed": i / 10,
			"backend": "local", "run_dir": dir, "started_at": start.Format(time.RFC3339),
			"ended_at": start.Add(time.Hour).Format(time.RFC3339), "exit": 0})
		write(".rlxp/runs/"+id+"/run.json", text(string(rec)))
		write(".rlxp/runs/"+id+"/log", func(w *bufio.Writer) {
			for s := range points {
				fmt.Fprintf(w, "step:%d - actor/loss:%.4f - critic/score/mean:%.4f\n", s, 1/float64(s+1), float64(s)/10)
			}
		})
		write(dir+"/progress.csv", func(w *bufio.Writer) {
			w.WriteString("step,rollout/ep_rew_mean,train/entropy_loss\n")
			for s := range points {
				fmt.Fprintf(w, "%d,%.3f,%.4f\n", s, float64(s), -1/float64(s+1))
			}
		})
		write(dir+"/metrics.jsonl", func(w *bufio.Writer) {
			for s := range points {
				fmt.Fprintf(w, "{\"step\":%d,\"train/loss\":%.4f}\n", s, 1/float64(s+1))
			}
		})
		write(dir+"/eval.jsonl", text(fmt.Sprintf("{\"step\":%d,\"eval/mean_return\":%d}\n", points, 400+i%50)))
	}
	return r
}

// TestStateCachedEqualsFresh: a warm /api/state says what a cold one says,
// and a file written since is read again.
func TestStateCachedEqualsFresh(t *testing.T) {
	r := lab(t, 4, 50)
	now := func() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }
	warm := NewRepo(r, now)
	encode := func(b *Repo) string {
		st, err := b.State(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	first := encode(warm)
	if got := encode(warm); got != first {
		t.Errorf("warm state differs from the first:\n%s\n%s", got, first)
	}
	if got := encode(NewRepo(r, now)); got != first {
		t.Errorf("cold state differs from the warm one")
	}
	// A NaN in the loss is news: the warm dashboard must see it.
	f, err := os.OpenFile(filepath.Join(r.Root, "runs/r0001/metrics.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, `{"step":51,"train/loss":NaN}`)
	f.Close()
	var st struct {
		Runs []struct {
			ID, Diagnosis string
			Negative      bool
		}
	}
	if err := json.Unmarshal([]byte(encode(warm)), &st); err != nil {
		t.Fatal(err)
	}
	if run := st.Runs[1]; run.ID != "r0001" || !run.Negative {
		t.Errorf("a run whose loss turned NaN after the first read: %s %s", run.ID, run.Diagnosis)
	}
}

// BenchmarkState is /api/state for a lab: 1,000 runs, each with a log and
// three declared sources. warm is every refresh after the first, with no
// file changed; cold reads every file, as the first refresh does.
func BenchmarkState(b *testing.B) {
	r := lab(b, 1000, 200)
	ctx := context.Background()
	repo := NewRepo(r, time.Now)
	if _, err := repo.State(ctx); err != nil {
		b.Fatal(err)
	}
	b.Run("warm", func(b *testing.B) {
		for range b.N {
			if _, err := repo.State(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cold", func(b *testing.B) {
		for range b.N {
			if _, err := NewRepo(r, time.Now).State(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestGroupsTakeEachSeedsLatestRun: a seed run twice counts once, with its
// later run; the baseline comes first.
func TestGroupsTakeEachSeedsLatestRun(t *testing.T) {
	dir := t.TempDir()
	f := &fakeBackend{files: map[string]string{
		"old": writeJSONL(t, dir, "old.jsonl", 10),
		"new": writeJSONL(t, dir, "new.jsonl", 20),
		"b0":  writeJSONL(t, dir, "b0.jsonl", 30),
	}}
	zero := 0
	cs := Charts{Runs: []ChartRun{
		{ID: "old", Experiment: "e", Seed: &zero},
		{ID: "b0", Experiment: "base", Seed: &zero, Baseline: true},
		{ID: "new", Experiment: "e", Seed: &zero},
	}}
	groups, err := Groups(context.Background(), f, cs, "reward", DefaultPoints)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range groups {
		for _, s := range g.Seeds {
			got = append(got, fmt.Sprintf("%s/%s:%d", g.Experiment, s.Run, len(s.Points)))
		}
	}
	if want := []string{"base/b0:30", "e/new:20"}; !slices.Equal(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
}
