package pin

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/approval"
)

// TestChangedReads: a file the run reads that git does not show is
// compared with the content the latest approval at or before the
// baseline's time pinned, else the first one after; a file no approval
// pinned is new. Files git shows are git's to tell.
func TestChangedReads(t *testing.T) {
	root := writeTree(t, map[string]string{})
	rec := func(at string, reads map[string]string) approval.Record {
		plan, err := json.Marshal(Material{Reads: reads})
		if err != nil {
			t.Fatal(err)
		}
		return approval.Record{Kind: approval.Experiment, Subject: "fast", Time: at, Plan: plan}
	}
	book := approval.Book{Records: []approval.Record{
		rec("2026-01-01T00:00:00Z", map[string]string{"a.json": "sha256:old", "b.json": "sha256:1"}),
		rec("2026-01-02T00:00:00Z", map[string]string{"a.json": "sha256:at-baseline"}),
		{Kind: approval.Section, Subject: "scope", Time: "2026-01-02T12:00:00Z"},
		rec("2026-01-03T00:00:00Z", map[string]string{"a.json": "sha256:later", "c.json": "sha256:first-after", "b.json": "sha256:2"}),
		rec("2026-01-04T00:00:00Z", map[string]string{"c.json": "sha256:second-after"}),
	}}
	now := Material{
		Reads: map[string]string{"a.json": "sha256:later", "b.json": "sha256:1", "c.json": "sha256:first-after",
			"d.json": "sha256:new", "tracked.json": "sha256:x"},
		hidden: map[string]bool{"a.json": true, "b.json": true, "c.json": true, "d.json": true},
	}
	got, err := changedReads(context.Background(), root, book, "2026-01-02T00:00:00Z", now)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.json", "d.json"}, dedupe(got)); diff != "" {
		t.Errorf("changedReads (-want +got):\n%s", diff)
	}
}
