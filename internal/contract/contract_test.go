package contract

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func fixture(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "cmd", "rlxp", "testdata", "fixtures", "contract.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func states(st Status) map[string]string {
	m := map[string]string{}
	for _, s := range st.Sections {
		m[s.Section] = s.State
	}
	return m
}

func TestStatus(t *testing.T) {
	approved := func(t *testing.T) []byte {
		l, err := Parse("c.yaml", fixture(t))
		if err != nil {
			t.Fatal(err)
		}
		b, err := l.Approve(Sections(), "alice", "2026-11-29T00:00:00Z", false)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	all := func(state string) map[string]string {
		m := map[string]string{}
		for _, s := range Sections() {
			m[s] = state
		}
		return m
	}
	with := func(m map[string]string, kv ...string) map[string]string {
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name string
		edit func(t *testing.T) []byte
		want map[string]string
	}{
		{"complete, unapproved", fixture, all(Unapproved)},
		{"all approved", approved, all(Approved)},
		{"comment edit keeps approval", func(t *testing.T) []byte {
			return bytes.Replace(approved(t), []byte("  max_runs: 12\n"), []byte("  max_runs: 12 # fixed\n"), 1)
		}, all(Approved)},
		{"reformat keeps approval", func(t *testing.T) []byte {
			return bytes.Replace(approved(t), []byte("  max_runs: 12\n"), []byte("  max_runs:   12\n"), 1)
		}, all(Approved)},
		{"1e-4 and 0.0001 are the same content", func(t *testing.T) []byte {
			return bytes.Replace(approved(t), []byte("min: 1e-4"), []byte("min: 0.0001"), 1)
		}, all(Approved)},
		{"value edit makes stale", func(t *testing.T) []byte {
			return bytes.Replace(approved(t), []byte("  max_runs: 12\n"), []byte("  max_runs: 13\n"), 1)
		}, with(all(Approved), "budget", Stale)},
		{"schema violation makes incomplete", func(t *testing.T) []byte {
			return bytes.Replace(approved(t), []byte("  nodes: 1\n"), []byte("  nodes: 0\n"), 1)
		}, with(all(Approved), "hardware", Incomplete)},
		{"removed section is incomplete", func(t *testing.T) []byte {
			b := fixture(t)
			i := bytes.Index(b, []byte("\ntask:"))
			j := bytes.Index(b, []byte("\nmetrics:"))
			return append(b[:i:i], b[j:]...)
		}, with(all(Unapproved), "task", Incomplete)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse("c.yaml", tt.edit(t))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, states(l.Status())); diff != "" {
				t.Errorf("states mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApproveRewritesOnlyApprovals(t *testing.T) {
	orig := fixture(t)
	// Put approvals in the middle, followed by a commented section, to
	// check that the splice stops at the next key and keeps its comment.
	i := bytes.Index(orig, []byte("# Written by"))
	approvalsAtEnd := orig[i:]
	body := orig[:i]
	j := bytes.Index(body, []byte("evaluation:"))
	mid := append(append(append([]byte{}, body[:j]...), approvalsAtEnd...), append([]byte("\n# the held-out protocol\n"), body[j:]...)...)

	for name, src := range map[string][]byte{"at end": orig, "in the middle": mid} {
		t.Run(name, func(t *testing.T) {
			l, err := Parse("c.yaml", src)
			if err != nil {
				t.Fatal(err)
			}
			out, err := l.Approve([]string{"task", "budget"}, "alice", "2026-11-29T00:00:00Z", true)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(out, []byte("# the held-out protocol\nevaluation:")) && name == "in the middle" {
				t.Errorf("comment before the next key was lost:\n%s", out)
			}
			strip := func(b []byte) string {
				var keep []string
				skipping := false
				for _, ln := range strings.Split(string(b), "\n") {
					if strings.HasPrefix(ln, "approvals:") {
						skipping = true
						continue
					}
					if skipping && (strings.HasPrefix(ln, " ") || ln == "") {
						continue
					}
					skipping = false
					keep = append(keep, ln)
				}
				return strings.Join(keep, "\n")
			}
			if diff := cmp.Diff(strip(src), strip(out)); diff != "" {
				t.Errorf("content outside approvals changed (-before +after):\n%s", diff)
			}
			l2, err := Parse("c.yaml", out)
			if err != nil {
				t.Fatal(err)
			}
			got := states(l2.Status())
			want := map[string]string{"task": Approved, "metrics": Unapproved, "scope": Unapproved, "budget": Approved,
				"hardware": Unapproved, "baseline": Unapproved, "evaluation": Unapproved}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("states mismatch (-want +got):\n%s", diff)
			}
			a := l2.Status().Sections[0].Approval
			if diff := cmp.Diff(&Approval{By: "alice", At: "2026-11-29T00:00:00Z", Digest: Digest(l.Section("task")), Interactive: true}, a); diff != "" {
				t.Errorf("approval mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApproveRefusals(t *testing.T) {
	l, err := Parse("c.yaml", bytes.Replace(fixture(t), []byte("  nodes: 1\n"), []byte("  nodes: 0\n"), 1))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		sections []string
		by       string
		want     string
	}{
		{[]string{"hardware"}, "a", "cannot approve hardware: c.yaml:44:3: hardware.nodes: must be at least 1"},
		{[]string{"tusk"}, "a", `unknown section "tusk"`},
		{[]string{"task"}, "", "approver name is empty"},
	}
	for _, tt := range tests {
		_, err := l.Approve(tt.sections, tt.by, "now", false)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Approve(%v, %q) = %v, want error containing %q", tt.sections, tt.by, err, tt.want)
		}
	}
}
