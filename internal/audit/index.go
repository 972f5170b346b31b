package audit

import "strings"

// A literalSet finds every occurrence of many short literals in one pass
// over a file: a table of the literals' first two bytes filters the
// positions worth comparing. Searching each literal separately costs a
// pass per literal, and a hundred passes dominate the audit's time.
type literalSet struct {
	lits   []string
	bigram []uint16 // 65536 entries: 1 + index into groups, 0 for none
	groups [][]int  // literal indices sharing a first bigram
}

func newLiteralSet(lits []string) *literalSet {
	ls := &literalSet{bigram: make([]uint16, 1<<16)}
	seen := map[string]bool{}
	for _, l := range lits {
		if len(l) < 2 || seen[l] {
			continue
		}
		seen[l] = true
		ls.lits = append(ls.lits, l)
		b := uint16(l[0])<<8 | uint16(l[1])
		if ls.bigram[b] == 0 {
			ls.groups = append(ls.groups, nil)
			ls.bigram[b] = uint16(len(ls.groups))
		}
		g := ls.bigram[b] - 1
		ls.groups[g] = append(ls.groups[g], len(ls.lits)-1)
	}
	return ls
}

// has reports whether lit is one of the set's literals.
func (ls *literalSet) has(lit string) bool {
	if len(lit) < 2 {
		return false
	}
	g := ls.bigram[uint16(lit[0])<<8|uint16(lit[1])]
	if g == 0 {
		return false
	}
	for _, li := range ls.groups[g-1] {
		if ls.lits[li] == lit {
			return true
		}
	}
	return false
}

// find returns, for each literal present in s, its offsets in order.
func (ls *literalSet) find(s string) map[string][]int {
	out := map[string][]int{}
	for i := 0; i+1 < len(s); i++ {
		g := ls.bigram[uint16(s[i])<<8|uint16(s[i+1])]
		if g == 0 {
			continue
		}
		for _, li := range ls.groups[g-1] {
			if l := ls.lits[li]; strings.HasPrefix(s[i:], l) {
				out[l] = append(out[l], i)
			}
		}
	}
	return out
}
