package guard

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseAdapterCommands(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      map[string]string
		err       string
	}{
		{"declared", "schema: rlxp.adapter/v1\ncommands:\n  train: \"bash run.sh {config}\"\n  preflight: run.sh --dry-run\n",
			map[string]string{"train": "bash run.sh {config}", "preflight": "run.sh --dry-run"}, ""},
		{"no section", "schema: rlxp.adapter/v1\n", nil, ""},
		{"empty section", "schema: rlxp.adapter/v1\ncommands:\n", nil, ""},
		// Only commands is read: a schema violation elsewhere does not matter.
		{"other sections ignored", "schema: rlxp.adapter/v9\nruntime: {ports: [0]}\ncommands: {eval: x}\n", map[string]string{"eval": "x"}, ""},
		{"not a mapping", "commands: [a]\n", nil, "a.yaml:1:1: commands: must be a mapping of command names to command lines"},
		{"a number", "commands:\n  train: 3\n", nil, "a.yaml:2:3: commands.train: must be a command line (a string), not a number"},
		{"null", "commands:\n  eval: ~\n", nil, "a.yaml:2:3: commands.eval: must be a command line (a string), not null"},
		{"syntax error", "commands: {train: [\n", nil, "a.yaml:"},
		{"empty file", "", nil, "a.yaml: file is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := parseAdapter("a.yaml", []byte(tc.src))
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error = %v, want one starting %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("commands (-want +got):\n%s", diff)
			}
		})
	}
}
