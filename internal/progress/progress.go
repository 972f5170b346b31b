// Package progress shows a progress bar on a terminal for work that runs
// longer than a second: reading large metric files, scoring, auditing. It
// stays silent when its writer is not a terminal, so piped and --json
// output never carries it.
package progress

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Delay is how long work runs before its bar appears: shorter work
// finishes before a bar would help.
const Delay = time.Second

// A Bar counts units of work (bytes, files) towards a total. Its methods
// are safe for concurrent use, and a nil *Bar does nothing, so callers
// pass nil where no bar is wanted.
type Bar struct {
	mu    sync.Mutex
	w     io.Writer
	desc  string
	total int64
	done  int64
	start time.Time
	delay time.Duration
	now   func() time.Time
	bar   *progressbar.ProgressBar // nil until the delay has passed
	bytes bool
}

// Terminal reports whether w is a terminal.
func Terminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Bytes returns a bar for total bytes written to w, or nil when w is not
// a terminal.
func Bytes(w io.Writer, total int64, desc string) *Bar {
	if !Terminal(w) {
		return nil
	}
	return newBar(w, total, desc, true, Delay, time.Now)
}

// Count returns a bar for total items written to w, or nil when w is not
// a terminal.
func Count(w io.Writer, total int64, desc string) *Bar {
	if !Terminal(w) {
		return nil
	}
	return newBar(w, total, desc, false, Delay, time.Now)
}

func newBar(w io.Writer, total int64, desc string, bytes bool, delay time.Duration, now func() time.Time) *Bar {
	return &Bar{w: w, desc: desc, total: total, bytes: bytes, start: now(), delay: delay, now: now}
}

// Add counts n more units done; the bar appears once the work has run
// past the delay.
func (b *Bar) Add(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done += n
	if b.bar == nil {
		if b.now().Sub(b.start) < b.delay {
			return
		}
		b.bar = progressbar.NewOptions64(b.total,
			progressbar.OptionSetWriter(b.w),
			progressbar.OptionSetDescription(b.desc),
			progressbar.OptionShowBytes(b.bytes),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetWidth(30),
		)
	}
	// Readers may count a few bytes twice (overlapping reads at chunk
	// edges): the bar never passes its total.
	done := b.done
	if b.total > 0 {
		done = min(done, b.total)
	}
	_ = b.bar.Set64(done)
}

// BytesRead counts n bytes done, for readers that report what they read.
func (b *Bar) BytesRead(n int64) { b.Add(n) }

// Done is how many units were counted.
func (b *Bar) Done() int64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.done
}

// Finish clears the bar from the terminal, so that what the command
// prints next starts on a clean line.
func (b *Bar) Finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil {
		_ = b.bar.Clear()
		b.bar = nil
	}
}
