package manual

import (
	"io/fs"
	"strings"
	"testing"
)

func TestEveryPageReads(t *testing.T) {
	names, err := fs.Glob(pages, "pages/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(names) == 0 {
		t.Fatal("no pages embedded")
	}
	for _, n := range names {
		cmd := strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(n, "pages/"), ".txt"), "-", " ")
		p := Page(cmd)
		if p == "" {
			t.Errorf("Page(%q) is empty", cmd)
		}
		if strings.HasSuffix(p, "\n") {
			t.Errorf("Page(%q) ends in a newline", cmd)
		}
	}
}

func TestMissingPage(t *testing.T) {
	if got := Page("no such command"); got != "" {
		t.Errorf("Page(missing) = %q, want empty", got)
	}
}
