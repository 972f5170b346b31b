package document

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// FuzzParse: any bytes either fail with a one-line *Error or give a
// document whose positions can be asked for (schema.FuzzCheck checks the
// schemas on the same seeds).
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
	// The slips SyntaxError names by reading the lines.
	f.Add([]byte("a:\n  b: 1\n    c: 2\n d: 3\n  e 4\n"))
	f.Add([]byte("a:\n  - x: 'q'y\n  b: c: d\n\t- z\n"))
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
		if top, ok := d.Value.(map[string]any); ok {
			for k := range top {
				d.Pos([]string{k, "0"})
			}
		}
		// The syntax tree decodes again without reading the bytes, or
		// fails with a one-line *Error.
		var v yaml.MapSlice
		if err := d.DecodeYAML(&v, yaml.UseOrderedMap()); err != nil {
			if _, ok := err.(*Error); !ok || strings.Contains(err.Error(), "\n") {
				t.Fatalf("DecodeYAML: %T %q", err, err)
			}
		}
	})
}

// BenchmarkParse is one read of the example contract.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "cmd", "rlxp", "testdata", "fixtures", "contract.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Parse("contract.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}
