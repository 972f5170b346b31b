package prompt

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
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := New(stdin, out).Ask(ctx, "Approve? [y/N] ")
		done <- err
	}()
	<-out.wrote
	cancel()
	err := <-done
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("ask after ^C = %v, want ErrInterrupted", err)
	}
}

func TestPromptAnswers(t *testing.T) {
	var out bytes.Buffer
	p := New(strings.NewReader(" yes \nn\n"), &out)
	var got []string
	for i := 0; i < 4; i++ {
		a, err := p.Ask(context.Background(), "? ")
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
	if !Yes(got[0]) || Yes(got[1]) || Yes(got[2]) {
		t.Errorf("Yes misreads %q", got)
	}
}
