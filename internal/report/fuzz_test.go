package report

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzParseMarkers feeds the marker parser arbitrary files, seeded with the
// template and its broken variants: it never panics, an error is a
// MarkerError naming a line of the input, and a file that parses renders
// back byte for byte with its own blocks and parses again, with the same
// blocks, after the blocks are replaced.
func FuzzParseMarkers(f *testing.F) {
	tmpl := templateReport(f)
	f.Add(tmpl)
	f.Add(bytes.Replace(tmpl, []byte(EndMarker), nil, 1))
	f.Add(bytes.Replace(tmpl, []byte(BeginMarker), []byte(EndMarker), 1))
	f.Add(append(append([]byte{}, tmpl...), tmpl...))
	f.Add(bytes.Replace(tmpl, []byte("begin -->"), []byte("begin leaderboard -->"), 1))
	f.Add(bytes.Replace(tmpl, []byte("begin -->"), []byte("begin plots -->"), 1))
	f.Add([]byte("<!-- rlxp:generated:begin\n<!-- rlxp:generated:end -->"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := ParseMarkers("r.md", data)
		if err != nil {
			var me *MarkerError
			if !errors.As(err, &me) {
				t.Fatalf("error %v is not a MarkerError", err)
			}
			if lines := bytes.Count(data, []byte("\n")) + 1; me.Line < 0 || me.Line > lines {
				t.Fatalf("error names line %d of a %d-line input: %v", me.Line, lines, err)
			}
			return
		}
		own := map[string][]byte{}
		for _, b := range doc.Blocks {
			own[b.Name] = b.Content
		}
		if got := doc.Render(func(name string) []byte { return own[name] }); !bytes.Equal(got, data) {
			t.Fatalf("round trip changed the input:\n%q\nwant\n%q", got, data)
		}
		out := doc.Render(func(name string) []byte { return []byte("generated " + name) })
		again, err := ParseMarkers("r.md", out)
		if err != nil {
			t.Fatalf("a rendered file does not parse: %v\n%q", err, out)
		}
		if len(again.Blocks) != len(doc.Blocks) {
			t.Fatalf("%d blocks after rendering, want %d", len(again.Blocks), len(doc.Blocks))
		}
		for i, b := range again.Blocks {
			if b.Name != doc.Blocks[i].Name || !bytes.Equal(b.Content, []byte("generated "+b.Name+"\n")) {
				t.Fatalf("block %d after rendering: %q %q", i, b.Name, b.Content)
			}
		}
	})
}
