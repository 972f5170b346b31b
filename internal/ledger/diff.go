package ledger

import (
	"bytes"
	"fmt"
)

// A DiffResult is what a head ledger adds to its base.
type DiffResult struct {
	Base int     // entries the base holds
	New  []Entry // entries after them, with their line numbers in head
}

// A HistoryError says that head does not extend base: an entry the base
// already holds was changed, removed or moved.
type HistoryError struct {
	Line int // 1-based line of head (or of base, past head's end)
	Msg  string
}

func (e *HistoryError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Diff checks that base is, line for line, a prefix of head (the ledger is
// append-only, so history may only grow) and returns head's new entries.
// When it is not, the error is a *HistoryError naming the first line that
// differs. Diff does not verify the chain; Check does.
func Diff(base, head []byte) (DiffResult, error) {
	bl, hl := splitLines(base), splitLines(head)
	for i, b := range bl {
		if i >= len(hl) {
			return DiffResult{}, &HistoryError{Line: i + 1, Msg: fmt.Sprintf("the base has %d lines, the head only %d: entries were removed", len(bl), len(hl))}
		}
		if !bytes.Equal(b.text, hl[i].text) {
			return DiffResult{}, &HistoryError{Line: i + 1, Msg: "differs from the same line of the base: history was rewritten"}
		}
	}
	res := DiffResult{Base: len(bl), New: []Entry{}}
	for i := len(bl); i < len(hl); i++ {
		e, err := parseLine(hl[i].text)
		if err != nil {
			return DiffResult{}, fmt.Errorf("line %d: %v", i+1, err)
		}
		e.Line = i + 1
		res.New = append(res.New, e)
	}
	return res, nil
}
