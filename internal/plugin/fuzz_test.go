package plugin

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// packageFiles returns the contents of the package files matching the globs
// (relative to the repository root).
func packageFiles(t testing.TB, globs ...string) [][]byte {
	t.Helper()
	root := repoRoot(t)
	var out [][]byte
	for _, g := range globs {
		matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(g)))
		if err != nil {
			t.Fatal(err)
		}
		if len(matches) == 0 {
			t.Fatalf("no package files match %s", g)
		}
		for _, m := range matches {
			b, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
	}
	return out
}

func FuzzFrontMatter(f *testing.F) {
	for _, b := range packageFiles(f, pluginDir+"/skills/*/SKILL.md", pluginDir+"/agents/*.md") {
		f.Add(b)
	}
	for _, s := range []string{
		"", "---", "---\n", "---\n---\n", "---\n---", "\xef\xbb\xbf---\nname: x\n---\n",
		"---\r\nname: x\r\ndescription: y\r\n---\r\nbody\r\n",
		"---\nname: [\n---\n", "---\nname: x\ndescription: a: b\n---\n",
		"---\na: &x [1, 2]\nb: *x\n---\n", "---\n- a\n- b\n---\n", "---\nplain\n---\n",
		"---\ndescription: a #b\n---\n", "---\ndescription: |\n  x\n  y\n---\n",
		"---\nname: x\nname: y\n---\n", "---\n? [a]\n: b\n---\n", "---\nx: .nan\n---\n",
		"---\nname: !!str 12\ndescription: !!binary aGk=\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a := parseFrontMatter(data)
		b := parseFrontMatter(data)
		if diff := cmp.Diff(a, b, cmpopts.EquateNaNs()); diff != "" {
			t.Fatalf("parseFrontMatter is not deterministic (-first +second):\n%s", diff)
		}
		if !a.Present && (len(a.Fields) != 0 || a.Err != nil || a.Closed) {
			t.Fatalf("no front matter but fields/err/closed set: %+v", a)
		}
		if a.BOM && a.Present {
			t.Fatal("BOM and Present both set")
		}
		if a.Err != nil && a.Err.Line < 1 {
			t.Fatalf("error line %d < 1", a.Err.Line)
		}
		if a.ok() {
			for _, fl := range a.Fields {
				if fl.Line < 2 || fl.Line >= a.BodyLine {
					t.Fatalf("field %q at line %d outside front matter (body at %d)", fl.Key, fl.Line, a.BodyLine)
				}
			}
		}
		check := func() []Finding {
			v := &validator{root: "."}
			v.checkSkillContent("skills/x/SKILL.md", "x", data)
			v.checkAgentContent("agents/x.md", data)
			return v.findings
		}
		if diff := cmp.Diff(check(), check()); diff != "" {
			t.Fatalf("skill/agent checks are not deterministic:\n%s", diff)
		}
	})
}

func FuzzManifestJSON(f *testing.F) {
	for _, b := range packageFiles(f, claudeMkt, codexMkt, claudeManif, codexManif) {
		f.Add(b)
	}
	for _, s := range []string{
		"", " ", "{}", "[]", "null", "{\"a\":1,}", "{\"a\":1} x", "\xef\xbb\xbf{}",
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"\"${CLAUDE_PLUGIN_ROOT}/x\""}]}]}}`,
		`{"name":"x","plugins":[{"name":"p","source":{"source":"local","path":"./p"},"policy":{"installation":"MAYBE"}}]}`,
		`{"name":"x","skills":["./a","../b",3],"agents":"./agents/","interface":{"defaultPrompt":[1,"a"],"screenshots":["./s.png"]}}`,
		`{"a":{"a":{"a":[[[[{"b":"c"}]]]]}},"a":2}`,
	} {
		f.Add([]byte(s))
	}
	root := f.TempDir()
	for _, d := range []string{"p/.claude-plugin", "p/.codex-plugin", "p/skills", "p/agents", "p/hooks"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, serr := decodeJSONFile(data)
		valid := json.Valid(data) && !bytes.HasPrefix(data, []byte("\xef\xbb\xbf"))
		if (serr == nil) != valid {
			t.Fatalf("decode error %v, but json.Valid = %v", serr, valid)
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		if serr != nil {
			if serr.Line < 1 || serr.Col < 1 || serr.Line > lines {
				t.Fatalf("error position %d:%d out of range (%d lines)", serr.Line, serr.Col, lines)
			}
			return
		}
		var want any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("stdlib decode failed on valid JSON: %v", err)
		}
		if diff := cmp.Diff(want, doc.Value); diff != "" {
			t.Fatalf("decoded value differs from encoding/json (-want +got):\n%s", diff)
		}
		for p, ln := range doc.Lines {
			if ln < 1 || ln > lines {
				t.Fatalf("path %q at line %d out of range (%d lines)", p, ln, lines)
			}
		}
		check := func() []Finding {
			v := &validator{root: root}
			v.decodeJSON("x.json", data)
			v.claudeMarketplaceDoc(ClaudeMarketplaceFile, doc)
			v.codexMarketplaceDoc(CodexMarketplaceFile, doc)
			v.claudeManifestDoc("p", doc, manifestInfo{file: "p/" + ClaudeManifestFile, present: true})
			v.codexManifestDoc("p", doc, manifestInfo{file: "p/" + CodexManifestFile, present: true})
			v.checkHooksDoc("p", "p/hooks/hooks.json", doc)
			return v.findings
		}
		if diff := cmp.Diff(check(), check()); diff != "" {
			t.Fatalf("checks are not deterministic:\n%s", diff)
		}
	})
}
