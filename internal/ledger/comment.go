package ledger

import (
	"fmt"
	"strings"
)

// Comment is the pull-request comment on what head adds to base (a git
// ref): a heading, the new entries' table, notes from their reasons and
// warnings, and the chain's head.
func Comment(base string, d DiffResult, head Report) string {
	var b strings.Builder
	n := len(d.New)
	if n == 1 {
		b.WriteString("### rlxp ledger: 1 new entry\n\n")
	} else {
		fmt.Fprintf(&b, "### rlxp ledger: %d new entries\n\n", n)
	}
	if n == 0 {
		fmt.Fprintf(&b, "No new entries since `%s`.\n\n", base)
	} else {
		b.WriteString(MarkdownTable(d.New))
		b.WriteString("\n")
		if notes := notes(d.New, d.Repeats); len(notes) > 0 {
			b.WriteString("**Notes**\n\n" + strings.Join(notes, "\n") + "\n\n")
		}
	}
	if head.Head == "" {
		fmt.Fprintf(&b, "The ledger is empty, as it is at `%s`.\n", base)
		return b.String()
	}
	fmt.Fprintf(&b, "Chain head `%s`: %s, verified; `%s` had %d.\n", head.Head, Count(head.Entries), base, d.Base)
	return b.String()
}

// notes are the entries' reasons and warnings, one line each, and the
// entries that repeat an earlier one's evidence.
func notes(entries []Entry, repeats map[int64]int64) []string {
	var out []string
	for _, e := range entries {
		if at, ok := repeats[e.Seq]; ok {
			out = append(out, fmt.Sprintf("- seq %d: ⚠ repeats the evidence of seq %d (the same experiment, seeds and source bytes): no new result", e.Seq, at))
		}
		for _, key := range []string{"reasons", "warnings"} {
			mark := ""
			if key == "warnings" {
				mark = "⚠ "
			}
			v, _ := e.Lookup(key)
			a, _ := v.([]any)
			for _, x := range a {
				if s, ok := x.(string); ok && s != "" {
					out = append(out, fmt.Sprintf("- seq %d: %s%s", e.Seq, mark, strings.ReplaceAll(s, "\n", " ")))
				}
			}
		}
	}
	return out
}
