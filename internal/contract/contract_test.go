package contract

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rlxp/rlxp/internal/schema/validate"
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
	// Every section of the fixture is approved as it is; each case edits
	// the file after that.
	orig, err := Parse(validate.Schemas{}, "c.yaml", fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	digests, err := orig.Digests(Sections())
	if err != nil {
		t.Fatal(err)
	}
	approvals := map[string]Approval{}
	for name, d := range digests {
		approvals[name] = Approval{By: "alice", At: "2026-11-29T00:00:00Z", Digest: d}
	}
	approved := fixture
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
		}, with(all(Approved), "task", Incomplete)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse(validate.Schemas{}, "c.yaml", tt.edit(t))
			if err != nil {
				t.Fatal(err)
			}
			l.UseApprovals(approvals, nil)
			if diff := cmp.Diff(tt.want, states(l.Status())); diff != "" {
				t.Errorf("states mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnapproved(t *testing.T) {
	l, err := Parse(validate.Schemas{}, "c.yaml", fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range l.Status().Sections {
		if s.State != Unapproved {
			t.Errorf("%s is %s without approvals, want %s", s.Section, s.State, Unapproved)
		}
	}
}

func TestLegacyApprovalsAreNotRead(t *testing.T) {
	l, err := Parse(validate.Schemas{}, "c.yaml", fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	digests, err := l.Digests([]string{"task"})
	if err != nil {
		t.Fatal(err)
	}
	legacy := append(fixture(t), []byte("\n# Written by 'rlxp contract approve'; do not edit by hand.\napprovals:\n  task:\n    by: agent\n    at: 2026-11-29T00:00:00Z\n    digest: "+digests["task"]+"\n    interactive: true\n")...)
	l, err = Parse(validate.Schemas{}, "c.yaml", legacy)
	if err != nil {
		t.Fatal(err)
	}
	st := l.Status()
	if st.Sections[0].State != Unapproved || st.Legacy == "" {
		t.Errorf("hand-written approvals block: task is %s, legacy note %q; want unapproved with a note", st.Sections[0].State, st.Legacy)
	}
	out, had, err := l.WithoutLegacyApprovals()
	if err != nil || !had {
		t.Fatalf("WithoutLegacyApprovals = %v, %v", had, err)
	}
	if bytes.Contains(out, []byte("approvals:")) || bytes.Contains(out, []byte("# Written by")) {
		t.Errorf("the block or its comment is still there:\n%s", out)
	}
}

func TestBrokenLogTrustsNothing(t *testing.T) {
	l, err := Parse(validate.Schemas{}, "c.yaml", fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	digests, _ := l.Digests(Sections())
	approvals := map[string]Approval{}
	for name, d := range digests {
		approvals[name] = Approval{By: "alice", Digest: d}
	}
	l.UseApprovals(approvals, errors.New("approvals.jsonl:2: hash mismatch"))
	st := l.Status()
	if st.Approved || len(st.FileFindings) != 1 || st.Sections[0].State != Unapproved {
		t.Errorf("with a broken log: approved %v, findings %v, task %s", st.Approved, st.FileFindings, st.Sections[0].State)
	}
}

func TestApproveRefusals(t *testing.T) {
	l, err := Parse(validate.Schemas{}, "c.yaml", bytes.Replace(fixture(t), []byte("  nodes: 1\n"), []byte("  nodes: 0\n"), 1))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		sections []string
		want     string
	}{
		{[]string{"hardware"}, "cannot approve hardware: c.yaml:44:3: hardware.nodes: must be at least 1"},
		{[]string{"tusk"}, `unknown section "tusk"`},
	}
	for _, tt := range tests {
		_, err := l.Digests(tt.sections)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Digests(%v) = %v, want error containing %q", tt.sections, err, tt.want)
		}
	}
}

// TestParseDecodesWhole: the typed contract, decoded section by section,
// is what decoding the whole document gives.
func TestParseDecodesWhole(t *testing.T) {
	legacy := append(fixture(t), "approvals:\n  task: {by: alice, at: \"2026-11-29T00:00:00Z\", digest: \"sha256:0000000000000000000000000000000000000000000000000000000000000000\", interactive: true}\n"...)
	for _, path := range []string{
		filepath.Join("..", "..", "cmd", "rlxp", "testdata", "fixtures", "contract.yaml"),
		filepath.Join("..", "..", "examples", "drafts", "cartpole", "contract.yaml"),
		"legacy",
	} {
		data := legacy
		if path != "legacy" {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			data = b
		}
		l, err := Parse(validate.Schemas{}, path, data)
		if err != nil {
			t.Fatal(err)
		}
		if !l.Decoded {
			t.Fatalf("%s: not decoded: %v", path, l.Findings)
		}
		var whole Contract
		if err := l.File.Decode(&whole); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(whole, l.Contract); diff != "" {
			t.Errorf("%s: typed contract differs from the whole document's (-whole +typed):\n%s", path, diff)
		}
	}
}
