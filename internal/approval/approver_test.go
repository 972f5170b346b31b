package approval

import "testing"

func TestApprover(t *testing.T) {
	env := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	for _, tc := range []struct {
		by   string
		vars map[string]string
		want string
		bad  bool
	}{
		{by: "ana", vars: map[string]string{"USER": "bob"}, want: "ana"},
		{vars: map[string]string{"USER": "bob", "LOGNAME": "carl"}, want: "bob"},
		{vars: map[string]string{"LOGNAME": "carl"}, want: "carl"},
		{by: "--version", bad: true},
		{by: "ana\nbob", bad: true},
	} {
		got, err := Approver(tc.by, env(tc.vars))
		if tc.bad {
			if err == nil {
				t.Errorf("Approver(%q) = %q, want an error", tc.by, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Approver(%q, %v) = %q, %v; want %q", tc.by, tc.vars, got, err, tc.want)
		}
	}
}
