package buildversion

import "testing"

func TestOf(t *testing.T) {
	if got := Of("v1.2.3"); got != "v1.2.3" {
		t.Errorf("Of(v1.2.3) = %q, want the stamped version", got)
	}
	// A test binary records no module version: "(devel)".
	if got := Of(""); got != "(devel)" {
		t.Errorf(`Of("") = %q, want (devel)`, got)
	}
}
