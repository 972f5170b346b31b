package ledger

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestComment(t *testing.T) {
	e := entryOf(t, `{"seq":5,"experiment":"x","reasons":["a\nb",""],"warnings":["w"]}`)
	tests := []struct {
		name string
		d    DiffResult
		head Report
		want []string // lines the comment holds, in order
	}{{
		name: "empty at both ends",
		d:    DiffResult{New: []Entry{}},
		want: []string{"### rlxp ledger: 0 new entries", "No new entries since `main`.", "The ledger is empty, as it is at `main`."},
	}, {
		name: "one new entry with notes",
		d:    DiffResult{Base: 4, New: []Entry{e}},
		head: Report{Entries: 5, Head: "sha256:h"},
		want: []string{"### rlxp ledger: 1 new entry", "**Notes**", "- seq 5: a b", "- seq 5: ⚠ w", "Chain head `sha256:h`: 5 entries, verified; `main` had 4."},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Comment("main", tt.d, tt.head)
			var kept []string
			for _, l := range strings.Split(got, "\n") {
				for _, w := range tt.want {
					if l == w {
						kept = append(kept, l)
					}
				}
			}
			if diff := cmp.Diff(tt.want, kept); diff != "" {
				t.Errorf("lines (-want +got):\n%s\nin:\n%s", diff, got)
			}
		})
	}
}
