package report

import (
	"bytes"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/templates"
)

func templateReport(t testing.TB) []byte {
	t.Helper()
	b, err := fs.ReadFile(templates.FS, "report.md")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseMarkers(t *testing.T) {
	type block struct {
		Name    string
		Line    int
		Content string
	}
	for _, tc := range []struct {
		name string
		in   string
		want []block
	}{
		{"template", string(templateReport(t)), []block{{"", 3, "No experiments have been scored yet. `rlxp report` regenerates this part.\n"}}},
		{"named parts", "# r\n<!-- rlxp:generated:begin task -->\nold\n<!-- rlxp:generated:end task -->\nmine\n  <!-- rlxp:generated:begin leaderboard -->  \n<!-- rlxp:generated:end -->",
			[]block{{"task", 2, "old\n"}, {"leaderboard", 6, ""}}},
		{"whole and parts", "<!-- rlxp:generated:begin -->\n<!-- rlxp:generated:end -->\n<!-- rlxp:generated:begin next -->\n<!-- rlxp:generated:end next -->\n",
			[]block{{"", 1, ""}, {"next", 3, ""}}},
		{"CRLF", "a\r\n<!-- rlxp:generated:begin -->\r\nx\r\n<!-- rlxp:generated:end -->\r\n", []block{{"", 2, "x\r\n"}}},
		{"marker text inside a line is text", "see `<!-- rlxp:generated:begin -->` below\n<!-- rlxp:generated:begin -->\n<!-- rlxp:generated:end -->\n",
			[]block{{"", 2, ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := ParseMarkers("report.md", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			var got []block
			for _, b := range doc.Blocks {
				got = append(got, block{b.Name, b.Line, string(b.Content)})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("blocks (-want +got):\n%s", diff)
			}
			// Rendering each block's own content gives the file back.
			same := doc.Render(func(name string) []byte {
				for _, b := range doc.Blocks {
					if b.Name == name {
						return b.Content
					}
				}
				return nil
			})
			if !bytes.Equal(same, []byte(tc.in)) {
				t.Errorf("round trip changed the file:\n%q\nwant\n%q", same, tc.in)
			}
		})
	}
}

func TestParseMarkersRefuses(t *testing.T) {
	const b, e = BeginMarker + "\n", EndMarker + "\n"
	for _, tc := range []struct {
		name string
		in   string
		want MarkerError
	}{
		{"no markers", "# report\n\nnotes\n", MarkerError{"r.md", 0, "no generated block: add the lines <!-- rlxp:generated:begin --> and <!-- rlxp:generated:end --> where the report goes"}},
		{"empty file", "", MarkerError{"r.md", 0, "no generated block: add the lines <!-- rlxp:generated:begin --> and <!-- rlxp:generated:end --> where the report goes"}},
		{"begin only", "x\n" + b + "y\n", MarkerError{"r.md", 2, "begin marker has no end marker after it"}},
		{"end only", "x\n" + e, MarkerError{"r.md", 2, "end marker without a begin marker before it"}},
		{"end before begin", e + b, MarkerError{"r.md", 1, "end marker without a begin marker before it"}},
		{"nested", b + b + e + e, MarkerError{"r.md", 2, "begin marker inside the block that begins at line 1 (its end marker is missing)"}},
		{"duplicate", b + e + "notes\n" + b + e, MarkerError{"r.md", 4, "a second unnamed block (the first begins at line 1); each block may appear once"}},
		{"duplicate part", "<!-- rlxp:generated:begin runs -->\n" + e + "<!-- rlxp:generated:begin runs -->\n" + e,
			MarkerError{"r.md", 3, `a second block "runs" (the first begins at line 1); each block may appear once`}},
		{"end names another part", "<!-- rlxp:generated:begin runs -->\n<!-- rlxp:generated:end next -->\n",
			MarkerError{"r.md", 2, `end marker for "next" closes the block "runs" that begins at line 1`}},
		{"unknown part", "<!-- rlxp:generated:begin plots -->\n" + e,
			MarkerError{"r.md", 1, `unknown part "plots" in marker; the parts are task, contract, budget, experiments, leaderboard, runs, next`}},
		{"unknown kind", "<!-- rlxp:generated:start -->\n" + e,
			MarkerError{"r.md", 1, `malformed marker "<!-- rlxp:generated:start -->": unknown kind "start"; want <!-- rlxp:generated:begin --> or <!-- rlxp:generated:end -->, optionally naming a part after begin`}},
		{"unterminated", b + "<!-- rlxp:generated:end\n",
			MarkerError{"r.md", 2, `malformed marker "<!-- rlxp:generated:end": it does not end with -->; want <!-- rlxp:generated:begin --> or <!-- rlxp:generated:end -->, optionally naming a part after begin`}},
		{"too many words", "<!-- rlxp:generated:begin runs next -->\n" + e,
			MarkerError{"r.md", 1, `malformed marker "<!-- rlxp:generated:begin runs next -->": too many words; want <!-- rlxp:generated:begin --> or <!-- rlxp:generated:end -->, optionally naming a part after begin`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseMarkers("r.md", []byte(tc.in))
			var me *MarkerError
			if !errors.As(err, &me) {
				t.Fatalf("err = %v, want a MarkerError", err)
			}
			if diff := cmp.Diff(tc.want, *me); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

// TestRenderKeepsOutside replaces the blocks and checks that everything
// outside them, marker lines included, is kept byte for byte.
func TestRenderKeepsOutside(t *testing.T) {
	in := "# title\r\n\r\n" + BeginMarker + "\nold\n" + EndMarker + "\n\n## Notes\n\nmine, with trailing spaces   \n\tand a tab, no final newline"
	doc, err := ParseMarkers("r.md", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	got := string(doc.Render(func(string) []byte { return []byte("new, without a newline") }))
	want := "# title\r\n\r\n" + BeginMarker + "\nnew, without a newline\n" + EndMarker + "\n\n## Notes\n\nmine, with trailing spaces   \n\tand a tab, no final newline"
	if got != want {
		t.Errorf("Render:\n%q\nwant\n%q", got, want)
	}
}
