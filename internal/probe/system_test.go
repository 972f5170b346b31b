package probe

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestSystemRun(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	h := System()
	out, errOut, err := h.Run(context.Background(), sh, "-c", "echo out; echo err >&2; exit 3")
	var exit *exec.ExitError
	if string(out) != "out\n" || string(errOut) != "err\n" || !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("Run = %q, %q, %v", out, errOut, err)
	}
	if _, _, err := h.Run(context.Background(), "rlxp-no-such-program"); !notFound(err) {
		t.Errorf("missing program: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err = h.Run(ctx, sh, "-c", "sleep 30 & sleep 30")
	if !errors.Is(err, context.DeadlineExceeded) || !strings.HasPrefix(err.Error(), "did not finish") {
		t.Errorf("timeout: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("timeout took %s", d)
	}
}

func TestCapped(t *testing.T) {
	var c capped
	big := make([]byte, outputLimit+10)
	if n, err := c.Write(big); n != len(big) || err != nil || c.Len() != outputLimit {
		t.Errorf("Write = %d, %v; kept %d", n, err, c.Len())
	}
	if n, _ := c.Write([]byte("more")); n != 4 || c.Len() != outputLimit {
		t.Errorf("kept %d", c.Len())
	}
}

func TestLines(t *testing.T) {
	if got := firstLine(nil, []byte("\n  \n  a   b \nc\n")); got != "a b" {
		t.Errorf("firstLine = %q", got)
	}
	if got := lastLine([]byte("x\ny\n\n")); got != "y" {
		t.Errorf("lastLine = %q", got)
	}
	long := strings.Repeat("é", 300)
	if got := clip(long); !strings.HasSuffix(got, "…") || len(got) > 250 || !strings.HasPrefix(got, "éé") {
		t.Errorf("clip = %q", got)
	}
}
