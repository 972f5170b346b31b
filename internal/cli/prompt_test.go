package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// notifyWriter tells when the prompt has been written, so the test cancels
// while the read is known to be blocked.
type notifyWriter struct {
	bytes.Buffer
	wrote chan struct{}
}

func (w *notifyWriter) Write(p []byte) (int, error) {
	n, err := w.Buffer.Write(p)
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return n, err
}

func TestPromptInterrupt(t *testing.T) {
	stdin, typist := io.Pipe() // nothing is ever typed
	defer typist.Close()
	out := &notifyWriter{wrote: make(chan struct{}, 1)}
	env := &Env{Stdin: stdin, Stdout: out, Stderr: io.Discard}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := newPrompter(env).ask(ctx, "Approve? [y/N] ")
		done <- err
	}()
	<-out.wrote
	cancel()
	err := <-done
	if !errors.Is(err, errInterrupted) {
		t.Fatalf("ask after ^C = %v, want errInterrupted", err)
	}
	var stderr bytes.Buffer
	env.Stderr = &stderr
	if code := report(env, nil, err); code != ExitInterrupted {
		t.Errorf("exit code %d, want %d", code, ExitInterrupted)
	}
	if got := stderr.String(); got != "rlxp: interrupted at the prompt; nothing was written\n" {
		t.Errorf("stderr = %q", got)
	}
}

func TestPromptAnswers(t *testing.T) {
	var out bytes.Buffer
	env := &Env{Stdin: strings.NewReader(" yes \nn\n"), Stdout: &out}
	p := newPrompter(env)
	var got []string
	for i := 0; i < 4; i++ {
		a, err := p.ask(context.Background(), "? ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, a)
	}
	want := []string{"yes", "n", "", ""}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("answers = %q, want %q", got, want)
		}
	}
	if !yes(got[0]) || yes(got[1]) || yes(got[2]) {
		t.Errorf("yes() misreads %q", got)
	}
}
