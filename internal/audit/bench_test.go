package audit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

func benchRun(b *testing.B, root string) {
	b.Helper()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(context.Background(), root, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCartpole audits the bundled example: the start-up cost.
func BenchmarkCartpole(b *testing.B) {
	benchRun(b, filepath.Join("..", "..", "examples", "cartpole"))
}

// BenchmarkSynthetic audits a tree of 2,200 files: 200 copies of every
// testdata repository, under one .gitignore.
func BenchmarkSynthetic(b *testing.B) {
	dir := b.TempDir()
	names, err := filepath.Glob(filepath.Join("testdata", "repos", "*.txtar"))
	if err != nil {
		b.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*.log\nruns/\n"), 0o644)
	for i := range 200 {
		for _, n := range names {
			ar, err := txtar.ParseFile(n)
			if err != nil {
				b.Fatal(err)
			}
			for _, f := range ar.Files {
				p := filepath.Join(dir, fmt.Sprintf("copy%03d", i), filepath.Base(n), filepath.FromSlash(f.Name))
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, f.Data, 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	benchRun(b, dir)
}

// BenchmarkRoot audits the repository RLXP_AUDIT_BENCH_ROOT names, when
// set: a large real checkout (scripts/bench-audit.sh compares the binary
// with git grep on one).
func BenchmarkRoot(b *testing.B) {
	root := os.Getenv("RLXP_AUDIT_BENCH_ROOT")
	if root == "" {
		b.Skip("RLXP_AUDIT_BENCH_ROOT is not set")
	}
	benchRun(b, root)
}
