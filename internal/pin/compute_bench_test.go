package pin

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/experiment"
)

// BenchmarkCompute pins an experiment in a git repository of 600 tracked
// files, with an ignored data directory of 2,000 files and an ignored
// virtual environment of 3,000 Python files: what the gate recomputes at
// every check.
func BenchmarkCompute(b *testing.B) { benchCompute(b, "print(1)\n", 0) }

// BenchmarkComputePython is BenchmarkCompute with a trainer that imports
// every one of the 600 modules, each reading a config: the cost of the
// search of Python code for what it reads.
func BenchmarkComputePython(b *testing.B) {
	var train strings.Builder
	for i := 0; i < 600; i++ {
		fmt.Fprintf(&train, "from pkg.m%d import mod%d\n", i%30, i)
	}
	benchCompute(b, train.String(), 0)
}

// BenchmarkComputeVenv is BenchmarkCompute with a virtual environment the
// size of one holding torch and its dependencies: 50,000 files in 250
// installed distributions under site-packages, each stamped at every
// check.
func BenchmarkComputeVenv(b *testing.B) { benchCompute(b, "print(1)\n", 50000) }

// benchCompute pins an experiment whose trainer is train, with sitePkgs
// files in the virtual environment's site-packages.
func benchCompute(b *testing.B, train string, sitePkgs int) {
	files := map[string]string{
		".gitignore":               "data/\n.venv/\nprivate/\nruns/\n",
		"configs/base.yaml":        "defaults:\n  - model: small\nbase: private/base.json\n",
		"configs/model/small.yaml": "h: 64\n",
		"private/base.json":        `{"lr": 0.01}`,
		"scripts/run.sh":           "source private/run.env\npython3 train.py \"$@\"\n",
		"private/run.env":          "A=1\n",
		"train.py":                 train,
		".venv/pyvenv.cfg":         "home = /usr/bin\n",
	}
	for i := 0; i < 600; i++ {
		files[fmt.Sprintf("pkg/m%d/mod%d.py", i%30, i)] = fmt.Sprintf("import json\nX = %d\nCFG = json.load(open(\"configs/base.yaml\"))\n", i)
	}
	for i := 0; i < 2000; i++ {
		files[fmt.Sprintf("data/shard%d/part%d.bin", i%20, i)] = "x"
	}
	for i := 0; i < 3000; i++ {
		files[fmt.Sprintf(".venv/lib/site-packages/p%d/m%d.py", i%100, i)] = "y"
	}
	for i := 0; i < sitePkgs; i++ {
		pkg := i % 250
		files[fmt.Sprintf(".venv/lib/python3.12/site-packages/p%d/sub%d/m%d.py", pkg, i/250%10, i)] = "z"
		files[fmt.Sprintf(".venv/lib/python3.12/site-packages/p%d-1.0.dist-info/RECORD", pkg)] = "r"
	}
	root := writeTree(b, files)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", "repo"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	ad := &adapter.Adapter{Commands: map[string]string{"train": "bash scripts/run.sh --config {config} --seed {seed} --out {run_dir}"}}
	ad.Config.Default = "configs/base.yaml"
	e := &experiment.Experiment{ID: "fast", Seeds: []int{0, 1}}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Compute(ctx, root, ad, ".rlxp/adapter.yaml", e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStampVenv stamps a virtual environment of 50,000 files in 250
// installed packages (and their metadata): the part of every gate, check
// and launch that format 4 added, alone.
func BenchmarkStampVenv(b *testing.B) {
	files := map[string]string{".venv/pyvenv.cfg": "home = /usr/bin\n"}
	for i := 0; i < 50000; i++ {
		pkg := i % 250
		files[fmt.Sprintf(".venv/lib/python3.12/site-packages/p%d/sub%d/m%d.py", pkg, i/250%10, i)] = "z"
		files[fmt.Sprintf(".venv/lib/python3.12/site-packages/p%d-1.0.dist-info/RECORD", pkg)] = "r"
	}
	root := writeTree(b, files)
	ad := &adapter.Adapter{}
	none := func(string) (string, bool) { return "", false }
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var m Material
		if err := m.pinInstalled(root, root, ad, none); err != nil {
			b.Fatal(err)
		}
		if len(m.Stamps) != 500 {
			b.Fatalf("stamped %d entries, want 500", len(m.Stamps))
		}
	}
}

// BenchmarkStampSite stamps the site-packages directory $RLXP_BENCH_SITE
// names (a real environment, such as one holding torch), entry by entry
// as pinInstalled does.
func BenchmarkStampSite(b *testing.B) {
	site := os.Getenv("RLXP_BENCH_SITE")
	if site == "" {
		b.Skip("RLXP_BENCH_SITE names no site-packages directory to stamp")
	}
	entries, err := os.ReadDir(site)
	if err != nil {
		b.Fatal(err)
	}
	var jobs []stampJob
	for _, e := range entries {
		jobs = append(jobs, stampJob{key: e.Name(), path: filepath.Join(site, e.Name())})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := stampAll(jobs); err != nil {
			b.Fatal(err)
		}
	}
}
