package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// errInterrupted is ^C at a prompt: the command stops there and writes
// nothing.
var errInterrupted = errors.New("interrupted at the prompt; nothing was written")

// A prompter asks the human at the terminal, one line per answer. Reads
// happen in the background so that ^C (ctx cancelled) ends a question at
// once instead of waiting for Enter.
type prompter struct {
	env   *Env
	lines chan readLine
	more  chan struct{}
	eof   bool // input ended: later questions get empty answers
}

type readLine struct {
	text string
	err  error
}

func newPrompter(env *Env) *prompter {
	p := &prompter{env: env, lines: make(chan readLine), more: make(chan struct{})}
	in := bufio.NewReader(env.Stdin)
	go func() {
		for range p.more {
			s, err := in.ReadString('\n')
			p.lines <- readLine{s, err}
			if err != nil {
				return
			}
		}
	}()
	return p
}

// ask prints question and returns the answer, trimmed. At the end of input
// the answer is what was typed before it (often nothing).
func (p *prompter) ask(ctx context.Context, question string) (string, error) {
	fmt.Fprint(p.env.Stdout, question)
	if p.eof {
		fmt.Fprintln(p.env.Stdout)
		return "", nil
	}
	select {
	case p.more <- struct{}{}:
	case <-ctx.Done():
		fmt.Fprintln(p.env.Stdout)
		return "", errInterrupted
	}
	select {
	case l := <-p.lines:
		p.eof = l.err != nil
		if l.err != nil && l.err != io.EOF {
			return "", fmt.Errorf("read answer: %w", l.err)
		}
		return strings.TrimSpace(l.text), nil
	case <-ctx.Done():
		fmt.Fprintln(p.env.Stdout)
		return "", errInterrupted
	}
}

// yes reports whether an answer to a [y/N] question is yes.
func yes(answer string) bool {
	a := strings.ToLower(answer)
	return a == "y" || a == "yes"
}
