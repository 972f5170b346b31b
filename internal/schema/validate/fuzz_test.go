package validate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/schema"
)

// FuzzCheck: any document that parses can be checked against every
// schema, and each finding is one line.
func FuzzCheck(f *testing.F) {
	for _, p := range []string{"adapter.yaml", "contract.yaml", "experiments.yaml"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "..", "templates", p)); err == nil {
			f.Add(b)
		}
	}
	for _, p := range []string{"adapter.yaml", "contract.yaml"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "drafts", "cartpole", p)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("schema: rlxp.experiments/v1\nexperiments:\n  - id: \"a\\nb\"\n    seeds: [x]\n"))
	f.Add([]byte("a: &x [1, *x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := document.Parse("f.yaml", data)
		if err != nil {
			return
		}
		for _, name := range []string{schema.Adapter, schema.Contract, schema.Experiments} {
			errs, err := Check(d, name)
			if err != nil {
				t.Fatalf("check %s: %v", name, err)
			}
			for _, e := range errs {
				if strings.Contains(e.Error(), "\n") {
					t.Fatalf("finding spans lines: %q", e)
				}
			}
		}
	})
}
