package ledger

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// A DiffResult is what a head ledger adds to its base.
type DiffResult struct {
	Base int     // entries the base holds
	New  []Entry // entries after them, with their line numbers in head
	// Repeats maps a new entry's seq to the earlier entry whose evidence
	// it repeats (the same experiment, seeds and source bytes): a
	// re-score, or an entry copied and chained again, is no new result.
	Repeats map[int64]int64
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
	res.Repeats = repeats(hl, res.New)
	return res, nil
}

// repeats finds the new entries whose evidence an earlier entry of head
// already recorded.
func repeats(head []line, fresh []Entry) map[int64]int64 {
	first := map[string]int64{}
	for _, l := range head {
		e, err := parseLine(l.text)
		if err != nil {
			continue
		}
		if k := evidenceKey(e); k != "" {
			if _, ok := first[k]; !ok {
				first[k] = e.Seq
			}
		}
	}
	out := map[int64]int64{}
	for _, e := range fresh {
		if at, ok := first[evidenceKey(e)]; ok && at != e.Seq {
			out[e.Seq] = at
		}
	}
	return out
}

// evidenceKey is an entry's experiment and its sources' seeds, names and
// digests, in order; "" when it records no source.
func evidenceKey(e Entry) string {
	srcs, _ := e.Fields["sources"].([]any)
	var parts []string
	for _, s := range srcs {
		m, _ := s.(map[string]any)
		sum, _ := m["sha256"].(string)
		if sum == "" {
			return ""
		}
		parts = append(parts, fmt.Sprintf("%v\x00%v\x00%s", m["seed"], m["source"], sum))
	}
	if len(parts) == 0 {
		return ""
	}
	sort.Strings(parts)
	return fmt.Sprint(e.Fields["experiment"]) + "\x01" + strings.Join(parts, "\x01")
}
