package progress

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a fake time source the test moves by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestBarAppearsOnlyAfterDelay(t *testing.T) {
	var out bytes.Buffer
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	b := newBar(&out, 100, "reading", false, time.Second, c.now)
	b.Add(10)
	if out.Len() != 0 {
		t.Fatalf("bar drawn before the delay: %q", out.String())
	}
	c.t = c.t.Add(2 * time.Second)
	b.Add(10)
	if !strings.Contains(out.String(), "reading") {
		t.Fatalf("bar not drawn after the delay: %q", out.String())
	}
	if got := b.Done(); got != 20 {
		t.Fatalf("Done() = %d, want 20", got)
	}
	b.Finish()
}

func TestShortWorkDrawsNothing(t *testing.T) {
	var out bytes.Buffer
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	b := newBar(&out, 1<<20, "reading", true, time.Second, c.now)
	for range 100 {
		b.Add(1 << 10)
	}
	b.Finish()
	if out.Len() != 0 {
		t.Fatalf("short work drew %q", out.String())
	}
}

func TestConcurrentAdds(t *testing.T) {
	var out bytes.Buffer
	b := newBar(&out, 8000, "x", false, 0, time.Now)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				b.Add(1)
			}
		}()
	}
	wg.Wait()
	if got := b.Done(); got != 8000 {
		t.Fatalf("Done() = %d, want 8000", got)
	}
	b.Finish()
}

func TestNotATerminal(t *testing.T) {
	var out bytes.Buffer
	if Terminal(&out) {
		t.Fatal("a buffer is not a terminal")
	}
	if b := Bytes(&out, 10, "x"); b != nil {
		t.Fatal("Bytes returned a bar for a buffer")
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if Terminal(f) {
		t.Fatal("a regular file is not a terminal")
	}
	var nilBar *Bar
	nilBar.Add(1) // a nil bar does nothing
	nilBar.Finish()
	if nilBar.Done() != 0 {
		t.Fatal("nil bar counted")
	}
}
