package approval

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestViews: show's rows and JSON view, and verify's answer.
func TestViews(t *testing.T) {
	b := Book{Records: []Record{{Kind: Section, Subject: "task", Digest: "sha256:0123456789abcdef0123", By: "alice", How: Terminal,
		Ancestry: []string{"rlxp", "bash", "sshd"}, Seq: 1, Time: "2026-12-01T00:00:00Z"}}}
	want := [][]string{{"1", "2026-12-01T00:00:00Z", "section task", "sha256:0123456789ab…", "alice", "terminal", "rlxp < bash < sshd"}}
	if diff := cmp.Diff(want, b.Rows()); diff != "" {
		t.Errorf("Rows (-want +got):\n%s", diff)
	}
	if v := b.ViewOf("f"); v.Schema != Schema || len(v.Approvals) != 1 || v.Approvals[0].Seq != 1 || v.Approvals[0].By != "alice" {
		t.Errorf("ViewOf = %+v", v)
	}
	for _, tc := range []struct {
		book Book
		want Verification
		text string
	}{
		{b, Verification{"rlxp.approvals-verify/v1", "f", true, 1, ""}, "f: 1 approval, chain verifies"},
		{Book{}, Verification{"rlxp.approvals-verify/v1", "f", true, 0, ""}, "f: 0 approvals, chain verifies"},
		{Book{Problem: errors.New("f:2: hash mismatch")}, Verification{"rlxp.approvals-verify/v1", "f", false, 0, "f:2: hash mismatch"}, "f:2: hash mismatch"},
	} {
		v := tc.book.Verify("f")
		if diff := cmp.Diff(tc.want, v); diff != "" {
			t.Errorf("Verify (-want +got):\n%s", diff)
		}
		if v.Text() != tc.text {
			t.Errorf("Text = %q, want %q", v.Text(), tc.text)
		}
	}
}
