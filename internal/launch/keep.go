package launch

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/rlxp/rlxp/internal/runs"
)

// keepEvery is how often a supervisor compares a running run's record
// with what it last wrote.
const keepEvery = time.Second

// A keeper writes a supervisor's run records and holds each to what it
// last wrote. A run is a process of the same user and can rewrite its own
// record (a forged end, a check removed); while the supervisor lives, it
// is the record's only writer, so a difference is a rewrite. A rewrite
// found is undone (the supervisor's record is written again) and the
// record keeps when it was found (Record.Rewritten), which makes a score
// of the run invalid.
type keeper struct {
	dir    string
	stderr io.Writer
	now    func() time.Time
	mu     sync.Mutex
	last   map[string][]byte
}

// save writes rec, noting first a rewrite of what was written before.
func (k *keeper) save(rec *runs.Record) {
	k.rewritten(rec)
	data, err := runs.Encode(*rec)
	if err == nil {
		err = runs.Write(k.dir, *rec)
	}
	if err != nil {
		fmt.Fprintln(k.stderr, err)
		return
	}
	k.mu.Lock()
	k.last[rec.ID] = data
	k.mu.Unlock()
}

// rewritten says whether rec's file no longer holds what this supervisor
// last wrote there, and notes it in rec.
func (k *keeper) rewritten(rec *runs.Record) bool {
	k.mu.Lock()
	last, ok := k.last[rec.ID]
	k.mu.Unlock()
	if !ok {
		return false
	}
	disk, err := os.ReadFile(runs.Path(k.dir, rec.ID))
	if err == nil && bytes.Equal(disk, last) {
		return false
	}
	if rec.Rewritten == "" {
		rec.Rewritten = k.now().UTC().Format(time.RFC3339)
		appendLog(rec.Log, fmt.Sprintf("[rlxp] %s was rewritten by another process while its supervisor ran; restored", runs.Path(k.dir, rec.ID)))
	}
	return true
}
