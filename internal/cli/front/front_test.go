package front

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStatusFlags: the front takes contract status's flags as pflag
// gives them to the core, and leaves every other form to the core.
func TestStatusFlags(t *testing.T) {
	type flags struct {
		Root string
		JSON bool
		OK   bool
	}
	for _, tc := range []struct {
		args []string
		want flags
	}{
		{nil, flags{".", false, true}},
		{[]string{"--json"}, flags{".", true, true}},
		{[]string{"--root", "repo", "--json"}, flags{"repo", true, true}},
		{[]string{"--root=a", "--root", "b"}, flags{"b", false, true}},
		{[]string{"--json", "--root=/abs"}, flags{"/abs", true, true}},
		{[]string{"--root"}, flags{}},
		{[]string{"--root="}, flags{}},
		{[]string{"--root", "--json"}, flags{}},
		{[]string{"--json=false"}, flags{}},
		{[]string{"-h"}, flags{}},
		{[]string{"--help"}, flags{}},
		{[]string{"--"}, flags{}},
		{[]string{"extra"}, flags{}},
		{[]string{"--jsonx"}, flags{}},
	} {
		root, asJSON, ok := statusFlags(tc.args)
		if diff := cmp.Diff(tc.want, flags{root, asJSON, ok}); diff != "" {
			t.Errorf("statusFlags(%q) (-want +got):\n%s", tc.args, diff)
		}
	}
}
