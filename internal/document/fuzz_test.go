package document

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlxp/rlxp/internal/schema"
)

// FuzzParse: any bytes either fail with a one-line *Error or give a
// document whose positions and schema checks work, for every schema.
func FuzzParse(f *testing.F) {
	for _, p := range []string{"adapter.yaml", "contract.yaml", "experiments.yaml"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "templates", p)); err == nil {
			f.Add(b)
		}
	}
	if b, err := os.ReadFile(filepath.Join("..", "..", "examples", "drafts", "cartpole", "adapter.yaml")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(doc))
	f.Add([]byte("a: &x [1, *x]\n"))
	f.Add([]byte("? [a]\n: b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse("f.yaml", data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error is %T, not *Error: %v", err, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			return
		}
		for _, name := range []string{schema.Adapter, schema.Contract, schema.Experiments} {
			errs, err := d.Check(name)
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
