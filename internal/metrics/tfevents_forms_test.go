package metrics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTFEventsTagInTwoForms: a tag whose values come both as
// simple_values and as scalar tensors holds two series under one name;
// the read fails naming the tag, whether the sink wants the points or a
// summary. Each form alone, and one form written twice, reads.
func TestTFEventsTagInTwoForms(t *testing.T) {
	dir := filepath.Join(txtSamples(t), "tfevents", "torch-writer")
	file := func(name string) []byte {
		t.Helper()
		m, err := filepath.Glob(filepath.Join(dir, name, "events.out.tfevents.*"))
		if err != nil || len(m) != 1 {
			t.Fatalf("%s: %v %v", name, m, err)
		}
		b, err := os.ReadFile(m[0])
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	simple, float, double := file("old_simple_value"), file("new_style_float"), file("new_style_double")
	tmp := t.TempDir()
	for _, tc := range []struct {
		name  string
		parts [][]byte
		fails bool
	}{
		{"simple", [][]byte{simple}, false},
		{"tensor", [][]byte{float}, false},
		{"simple twice", [][]byte{simple, simple}, false},
		{"float then double", [][]byte{float, double}, false},
		{"simple then tensor", [][]byte{simple, float}, true},
		{"tensor then simple", [][]byte{double, simple}, true},
	} {
		p := filepath.Join(tmp, strings.ReplaceAll(tc.name, " ", "_"))
		var all []byte
		for _, b := range tc.parts {
			all = append(all, b...)
		}
		if err := os.WriteFile(p, all, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := txtRead(t, p, TFEvents, "train/reward")
		_, ierr := Inspect(p, TFEvents, nil)
		for _, e := range []error{err, ierr} {
			switch {
			case tc.fails && (e == nil || !strings.Contains(e.Error(), `the tag "train/reward" is logged both as a simple_value and as a scalar tensor`)):
				t.Errorf("%s: %v, want the tag in two forms", tc.name, e)
			case !tc.fails && e != nil:
				t.Errorf("%s: %v", tc.name, e)
			}
		}
	}
}
