package cli

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/rlxp/rlxp/internal/guard"
)

// TestGuardStdin covers what a hook payload on stdin cannot show: a
// terminal instead of a payload, a read error, and a payload too large.
func TestGuardStdin(t *testing.T) {
	env, out, errb := testEnv(t, t.TempDir(), "", true)
	if code := Main([]string{"guard"}, env); code != ExitUsage || !strings.Contains(errb.String(), "reads a PreToolUse hook payload (JSON) on stdin") {
		t.Errorf("on a terminal: exit %d, stderr %q", code, errb)
	}

	env, out, errb = testEnv(t, t.TempDir(), "", false)
	env.Stdin = iotest.ErrReader(errors.New("broken pipe"))
	if code := Main([]string{"guard"}, env); code != 2 || errb.String() != "rlxp guard: cannot read the hook payload from stdin (broken pipe); the guard refuses a command it cannot inspect\n" {
		t.Errorf("read error: exit %d, stderr %q", code, errb)
	}

	env, out, errb = testEnv(t, t.TempDir(), `{"tool_name":"Bash","tool_input":{"command":"`+strings.Repeat(" ", guard.MaxPayload)+`"}}`, false)
	if code := Main([]string{"guard"}, env); code != 2 || !strings.Contains(errb.String(), "larger than 16 MiB") {
		t.Errorf("large payload: exit %d, stderr %q", code, errb)
	}
	if out.Len() != 0 {
		t.Errorf("guard wrote to stdout: %q", out)
	}
}
