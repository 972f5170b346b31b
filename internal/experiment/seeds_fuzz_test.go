package experiment

import (
	"slices"
	"testing"
)

// FuzzParseSeeds: what ParseSeeds accepts is non-negative and unique, and
// reads back the same from its SeedList.
func FuzzParseSeeds(f *testing.F) {
	for _, s := range []string{"0,1,2", " 3 , 10000", "1,-1", "2,2", "", ",", "9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		seeds, err := ParseSeeds(s)
		if err != nil {
			return
		}
		for i, n := range seeds {
			if n < 0 || slices.Contains(seeds[:i], n) {
				t.Fatalf("ParseSeeds(%q) = %v", s, seeds)
			}
		}
		again, err := ParseSeeds(SeedList(seeds))
		if err != nil || !slices.Equal(again, seeds) {
			t.Fatalf("ParseSeeds(%q) = %v, read back as %v, %v", s, seeds, again, err)
		}
	})
}
