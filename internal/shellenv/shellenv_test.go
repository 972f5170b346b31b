package shellenv

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClean(t *testing.T) {
	env := []string{
		"PATH=/usr/bin", "BASH_ENV=/tmp/evil.sh", "ENV=/tmp/evil.sh", "HOME=/home/u",
		"BASH_FUNC_python%%=() { echo hijacked; }", "SHELLOPTS=xtrace", "BASHOPTS=extglob",
		"CDPATH=/tmp", "GLOBIGNORE=*", "BASH_ENVIRONMENT=kept", "MY_ENV=kept", "PYTHONPATH=/x",
	}
	want := []string{"PATH=/usr/bin", "HOME=/home/u", "BASH_ENVIRONMENT=kept", "MY_ENV=kept", "PYTHONPATH=/x"}
	if diff := cmp.Diff(want, Clean(env)); diff != "" {
		t.Errorf("Clean (-want +got):\n%s", diff)
	}
}
