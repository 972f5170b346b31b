package contract

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rlxp/rlxp/internal/schema/validate"
)

func testScope(t *testing.T) Scope {
	t.Helper()
	l, err := Parse(validate.Schemas{}, "c.yaml", fixture(t))
	if err != nil || !l.Decoded {
		t.Fatalf("parse fixture: %v %v", err, l.Findings)
	}
	return l.Contract.Scope
}

func TestParseParam(t *testing.T) {
	s := testScope(t)
	tests := []struct {
		name, raw string
		want      any
		err       string
	}{
		{"lr", "3e-3", 0.003, ""},
		{"lr", "0.1", 0.1, ""},
		{"lr", "1e-4", 0.0001, ""},
		{"lr", "0.2", nil, "outside the approved range [0.0001, 0.1]"},
		{"lr", "1e-5", nil, "outside the approved range"},
		{"lr", "fast", nil, "not a finite number"},
		{"lr", "Inf", nil, "not a finite number"},
		{"episodes", "500", int64(500), ""},
		{"episodes", "5e2", nil, "not an integer"},
		{"episodes", "99", nil, "outside the approved range [100, 2000]"},
		{"hidden", "32", int64(32), ""},
		{"hidden", "32.0", int64(32), ""},
		{"hidden", "48", nil, "not one of the approved choices {16, 32, 64}"},
		{"clip", "0.2", nil, "not in the approved scope (tunable: episodes, gamma, hidden, lr)"},
	}
	for _, tt := range tests {
		got, err := s.ParseParam(tt.name, tt.raw)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseParam(%s, %s) error = %v, want %q", tt.name, tt.raw, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseParam(%s, %s): %v", tt.name, tt.raw, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseParam(%s, %s) mismatch (-want +got):\n%s", tt.name, tt.raw, diff)
		}
	}
}

func TestCheckFile(t *testing.T) {
	s := Scope{Files: []string{"configs/*.json", "envs/**/reward.py", "./train.py"}}
	tests := []struct {
		file string
		ok   bool
	}{
		{"configs/a.json", true},
		{"./configs/a.json", true},
		{"configs/sub/a.json", false},
		{"configs/a.yaml", false},
		{"envs/reward.py", true},
		{"envs/a/b/c/reward.py", true},
		{"envs/a/b/c/other.py", false},
		{"train.py", true},
		{"../train.py", false},
		{"/etc/passwd", false},
		{"configs/../../x.json", false},
	}
	for _, tt := range tests {
		err := s.CheckFile(tt.file)
		if (err == nil) != tt.ok {
			t.Errorf("CheckFile(%q) = %v, want ok=%v", tt.file, err, tt.ok)
		}
	}
}

func TestCheckCategory(t *testing.T) {
	s := Scope{Categories: []string{"reward"}}
	if err := s.CheckCategory(""); err != nil {
		t.Errorf("empty category: %v", err)
	}
	if err := s.CheckCategory("reward"); err != nil {
		t.Errorf("reward: %v", err)
	}
	if err := s.CheckCategory("curriculum"); err == nil || !strings.Contains(err.Error(), "allowed: reward") {
		t.Errorf("curriculum: %v", err)
	}
}
