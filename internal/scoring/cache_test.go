package scoring

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/digest"
	"github.com/rlxp/rlxp/internal/score"
	"github.com/rlxp/rlxp/internal/state"
)

// cacheRepo writes two seeds' JSONL sources, settled (last changed an
// hour ago), and returns a reader of them with the given cache.
func cacheRepo(t testing.TB, rows int) (string, func(c *digest.Cache) reader) {
	t.Helper()
	root := t.TempDir()
	for seed := range 2 {
		var b strings.Builder
		for s := range rows {
			// seed 1 never logs loss; nan is NaN at the end
			if seed == 0 {
				b.WriteString(`{"step": ` + itoa(s) + `, "r": ` + itoa(s*3+seed) + `.25, "loss": 0.` + itoa(s%97+1) + `, "nan": ` + map[bool]string{true: "NaN", false: "1"}[s == rows-1] + "}\n")
			} else {
				b.WriteString(`{"step": ` + itoa(s) + `, "r": ` + itoa(s*3+seed) + `.25, "nan": 2}` + "\n")
			}
		}
		settledFile(t, filepath.Join(root, "runs", "s"+itoa(seed), "eval.jsonl"), b.String())
	}
	repo, err := state.Open(root, root)
	if err != nil {
		t.Fatal(err)
	}
	return root, func(c *digest.Cache) reader {
		return reader{s: Spec{Repo: repo, Experiment: "e", Cache: c},
			sources: map[string]adapter.Source{"eval": {Path: "runs/s{seed}/eval.jsonl"}}}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func settledFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

var cacheSpecs = []metricSpec{
	{name: "r", source: "eval", aggregate: score.MeanLastN, n: 10},
	{name: "loss", source: "eval", aggregate: score.Max},
	{name: "nan", source: "eval", aggregate: score.Last},
	{name: "r", source: "eval", aggregate: score.AtStep, step: 5},
}

type readResult struct {
	Values [][]score.SeedValue
	Files  []SourceFile
}

func readAll(t *testing.T, rd reader, specs []metricSpec) readResult {
	t.Helper()
	got, err := rd.readSeeds([]SeedRun{{Seed: 0, RunDir: "runs/s0"}, {Seed: 1, RunDir: "runs/s1"}}, specs)
	if err != nil {
		t.Fatal(err)
	}
	return readResult{got.values, got.files}
}

// cacheEntries returns the aggregate entries in the cache directory.
func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), aggCacheVersion+" ") {
				out = append(out, p)
			}
		}
		return nil
	})
	return out
}

// TestAggregateCache scores the same sources without a cache, with an
// empty one and with a full one: the results are the same, byte for
// byte. A hit is served from the entry without reading the file; a file
// changed since, or other aggregates, are read again.
func TestAggregateCache(t *testing.T) {
	root, newReader := cacheRepo(t, 500)
	dir := filepath.Join(t.TempDir(), "cache")
	c := digest.Open(dir)

	plain := readAll(t, newReader(nil), cacheSpecs)
	first := readAll(t, newReader(c), cacheSpecs)
	entries := cacheEntries(t, dir)
	if len(entries) != 2 {
		t.Fatalf("%d aggregate entries after the first read, want one per seed", len(entries))
	}
	again := readAll(t, newReader(c), cacheSpecs)
	want, _ := json.Marshal(plain)
	for name, got := range map[string]readResult{"empty cache": first, "full cache": again} {
		if d := cmp.Diff(plain, got); d != "" {
			t.Errorf("%s (-no cache +cache):\n%s", name, d)
		}
		if b, _ := json.Marshal(got); !bytes.Equal(b, want) {
			t.Errorf("%s: %s\nwithout cache: %s", name, b, want)
		}
	}
	if e := plain.Values[2][0].Error; e != "value is NaN" {
		t.Errorf("seed 0's nan: %q", e)
	}
	if e := plain.Values[1][1].Error; e != "tag loss not found" {
		t.Errorf("seed 1's loss: %q", e)
	}

	// A hit is the entry's: one altered in place shows through.
	for _, p := range entries {
		data, _ := os.ReadFile(p)
		key, body, _ := strings.Cut(string(data), "\n")
		var cs cachedSource
		if err := json.Unmarshal([]byte(body), &cs); err != nil {
			t.Fatal(err)
		}
		cs.Aggs[0].Bits = math.Float64bits(42)
		b, _ := json.Marshal(cs)
		os.WriteFile(p, append([]byte(key+"\n"), b...), 0o644)
	}
	if got := readAll(t, newReader(c), cacheSpecs); *got.Values[0][0].Value != 42 || *got.Values[0][1].Value != 42 {
		t.Fatalf("a hit read the file: %+v", got.Values[0])
	}

	// A changed file is read (and hashed) again; the other seed's entry
	// stays altered, as its file did not change.
	path := filepath.Join(root, "runs", "s1", "eval.jsonl")
	data, _ := os.ReadFile(path)
	settledFile(t, path, strings.ReplaceAll(string(data), ".25", ".75"))
	got := readAll(t, newReader(c), cacheSpecs)
	fresh := readAll(t, newReader(nil), cacheSpecs)
	if *got.Values[0][0].Value != 42 {
		t.Errorf("seed 0 unchanged, its entry still serves: %v", *got.Values[0][0].Value)
	}
	if d := cmp.Diff(fresh.Values[0][1], got.Values[0][1]); d != "" || got.Files[1].SHA256 == first.Files[1].SHA256 {
		t.Errorf("seed 1 changed: digest %s (was %s) (-read +cached):\n%s", got.Files[1].SHA256, first.Files[1].SHA256, d)
	}

	// Other aggregates are another entry.
	other := []metricSpec{{name: "r", source: "eval", aggregate: score.Min}}
	if d := cmp.Diff(readAll(t, newReader(nil), other), readAll(t, newReader(c), other)); d != "" {
		t.Errorf("other specs (-no cache +cache):\n%s", d)
	}
}

// BenchmarkAggregateCacheHit is a re-score's read of two unchanged
// sources: two cache lookups, no read of the files.
func BenchmarkAggregateCacheHit(b *testing.B) {
	_, newReader := cacheRepo(b, 20_000)
	c := digest.Open(filepath.Join(b.TempDir(), "cache"))
	rd := newReader(c)
	seeds := []SeedRun{{Seed: 0, RunDir: "runs/s0"}, {Seed: 1, RunDir: "runs/s1"}}
	if _, err := rd.readSeeds(seeds, cacheSpecs); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := rd.readSeeds(seeds, cacheSpecs); err != nil {
			b.Fatal(err)
		}
	}
}
