// Package prompt asks the human at a terminal, one line per answer. The
// questions and what the answers mean belong to the commands that ask.
package prompt

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ErrInterrupted is ^C at a prompt: the command stops there and writes
// nothing.
var ErrInterrupted = errors.New("interrupted at the prompt; nothing was written")

// A Prompter asks the human at the terminal, one line per answer. Reads
// happen in the background so that ^C (ctx cancelled) ends a question at
// once instead of waiting for Enter.
type Prompter struct {
	out   io.Writer
	lines chan readLine
	more  chan struct{}
	eof   bool // input ended: later questions get empty answers
}

type readLine struct {
	text string
	err  error
}

// New asks on out and reads the answers from in.
func New(in io.Reader, out io.Writer) *Prompter {
	p := &Prompter{out: out, lines: make(chan readLine), more: make(chan struct{})}
	r := bufio.NewReader(in)
	go func() {
		for range p.more {
			s, err := r.ReadString('\n')
			p.lines <- readLine{s, err}
			if err != nil {
				return
			}
		}
	}()
	return p
}

// Ask prints question and returns the answer, trimmed. At the end of input
// the answer is what was typed before it (often nothing).
func (p *Prompter) Ask(ctx context.Context, question string) (string, error) {
	fmt.Fprint(p.out, question)
	if p.eof {
		fmt.Fprintln(p.out)
		return "", nil
	}
	select {
	case p.more <- struct{}{}:
	case <-ctx.Done():
		fmt.Fprintln(p.out)
		return "", ErrInterrupted
	}
	select {
	case l := <-p.lines:
		p.eof = l.err != nil
		if l.err != nil && l.err != io.EOF {
			return "", fmt.Errorf("read answer: %w", l.err)
		}
		return strings.TrimSpace(l.text), nil
	case <-ctx.Done():
		fmt.Fprintln(p.out)
		return "", ErrInterrupted
	}
}

// Yes reports whether an answer to a [y/N] question is yes.
func Yes(answer string) bool {
	a := strings.ToLower(answer)
	return a == "y" || a == "yes"
}
