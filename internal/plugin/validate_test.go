package plugin

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	skillGate   = pluginDir + "/skills/gate/SKILL.md"
	agentMA     = pluginDir + "/agents/metrics-analyst.md"
	hooksFile   = pluginDir + "/hooks/hooks.json"
	gateDescKey = "description: Explain whether"
)

// want is one expected finding: its file, severity, optional line, and words
// its message must contain (case-insensitive).
type want struct {
	file  string
	sev   Severity
	line  int
	words []string
}

func E(file string, words ...string) want { return want{file: file, sev: SeverityError, words: words} }
func W(file string, words ...string) want {
	return want{file: file, sev: SeverityWarning, words: words}
}
func (w want) at(line int) want { w.line = line; return w }

func TestValidateRealPackageIsClean(t *testing.T) {
	root := repoRoot(t)
	for _, dir := range []string{root, filepath.Join(root, pluginDir)} {
		rep, err := Validate(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Findings) != 0 {
			t.Errorf("Validate(%s): want no findings, got:\n%s", dir, dumpFindings(rep.Findings))
		}
		if rep.Errors() != 0 || rep.Warnings() != 0 {
			t.Errorf("Validate(%s): %d errors, %d warnings", dir, rep.Errors(), rep.Warnings())
		}
		wantDir := pluginDir
		if dir != root {
			wantDir = "."
		}
		wantSum := []PluginSummary{{
			Name:     "rl-experiment-assistant",
			Version:  packageVersion(t, root),
			Dir:      wantDir,
			Skills:   packageSkills(t, root),
			Commands: packageCommands(t, root),
			Agents:   packageAgents(t, root),
			Hooks:    []string{"PreToolUse"},
		}}
		if diff := cmp.Diff(wantSum, rep.Plugins); diff != "" {
			t.Errorf("Validate(%s) plugins (-want +got):\n%s", dir, diff)
		}
	}
}

func TestValidateStageSkillsPresent(t *testing.T) {
	root := repoRoot(t)
	skills := packageSkills(t, root)
	for _, s := range []string{"initialize", "audit", "plan-contract", "gate"} {
		if !contains(skills, s) {
			t.Errorf("skill %q missing; have %v", s, skills)
		}
	}
	if diff := cmp.Diff([]string{"experiment-director", "metrics-analyst", "reward-reviewer"}, packageAgents(t, root)); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
}

func TestValidateMistakes(t *testing.T) {
	type tc struct {
		name   string
		mutate func(t *testing.T, root string)
		want   []want
	}
	skillWithFrontMatter := func(fm string) func(t *testing.T, root string) {
		return func(t *testing.T, root string) {
			p := filepath.Join(root, skillGate)
			s := readText(t, p)
			end := strings.Index(s[4:], "\n---\n") + 4
			writeText(t, p, "---\n"+fm+s[end:])
		}
	}
	agentWithFrontMatter := func(fm string) func(t *testing.T, root string) {
		return func(t *testing.T, root string) {
			p := filepath.Join(root, agentMA)
			s := readText(t, p)
			end := strings.Index(s[4:], "\n---\n") + 4
			writeText(t, p, "---\n"+fm+s[end:])
		}
	}
	const gateName = "name: gate\n"
	const gateDesc = "description: Explain the launch gate.\n"
	const maFM = "name: metrics-analyst\ndescription: Judges RL evidence.\ntools: Read, Grep\nmodel: inherit\n"
	hooks := func(body string) func(t *testing.T, root string) {
		return func(t *testing.T, root string) { writeText(t, filepath.Join(root, hooksFile), body) }
	}

	cases := []tc{
		// --- Claude plugin.json ---
		{"claude manifest trailing comma", func(t *testing.T, root string) {
			replaceOnce(t, root, claudeManif, `"name": "rl-experiment-assistant",`, `"name": "rl-experiment-assistant",,`)
		}, []want{E(claudeManif, "invalid JSON", "line 2").at(2)}},
		{"claude manifest without name", func(t *testing.T, root string) {
			editJSON(t, root, claudeManif, func(m map[string]any) { delete(m, "name") })
		}, []want{E(claudeManif, "name", "required")}},
		{"claude manifest name with spaces", func(t *testing.T, root string) {
			editJSON(t, root, claudeManif, func(m map[string]any) { m["name"] = "RL Assistant" })
		}, []want{E(claudeManif, "spaces"), E(claudeManif, "does not match", "rl-experiment-assistant")}},
		{"claude manifest name not kebab-case", func(t *testing.T, root string) {
			for _, f := range []string{claudeManif, codexManif} {
				editJSON(t, root, f, func(m map[string]any) { m["name"] = "RL_Assistant" })
			}
			for _, f := range []string{claudeMkt, codexMkt} {
				editJSON(t, root, f, func(m map[string]any) { firstEntry(m)["name"] = "RL_Assistant" })
			}
		}, []want{W(claudeMkt, "kebab"), W(codexMkt, "kebab"), W(claudeManif, "kebab"), W(codexManif, "kebab")}},
		{"codex key interface in claude manifest", func(t *testing.T, root string) {
			editJSON(t, root, claudeManif, func(m map[string]any) { m["interface"] = map[string]any{"displayName": "x"} })
		}, []want{W(claudeManif, "interface", "Codex only", "--strict")}},
		{"unknown key in claude manifest", func(t *testing.T, root string) {
			editJSON(t, root, claudeManif, func(m map[string]any) { m["bogus"] = true })
		}, []want{W(claudeManif, "unknown field", "bogus")}},
		{"marketplace entry key in claude manifest", func(t *testing.T, root string) {
			editJSON(t, root, claudeManif, func(m map[string]any) { m["category"] = "development" })
		}, []want{W(claudeManif, "category", "marketplace entry")}},
		{"claude manifest without version", func(t *testing.T, root string) {
			editJSON(t, root, claudeManif, func(m map[string]any) { delete(m, "version") })
		}, []want{W(claudeManif, "version")}},
		{"claude manifest without description and author", func(t *testing.T, root string) {
			editJSON(t, root, claudeManif, func(m map[string]any) { delete(m, "description"); delete(m, "author") })
		}, []want{W(claudeManif, "description"), W(claudeManif, "author")}},
		{"claude manifest author is a string", func(t *testing.T, root string) {
			editJSON(t, root, claudeManif, func(m map[string]any) { m["author"] = "rlxp" })
		}, []want{E(claudeManif, "author", "object")}},
		{"claude manifest homepage not a URL", func(t *testing.T, root string) {
			editJSON(t, root, claudeManif, func(m map[string]any) { m["homepage"] = "rlxp docs" })
		}, []want{E(claudeManif, "homepage", "URL")}},
		{"agents as a directory string", func(t *testing.T, root string) {
			editJSON(t, root, claudeManif, func(m map[string]any) { m["agents"] = "./agents/" })
		}, []want{E(claudeManif, "directory", "Invalid input")}},
		{"agents as an explicit file list", func(t *testing.T, root string) {
			editJSON(t, root, claudeManif, func(m map[string]any) { m["agents"] = []any{"./agents/metrics-analyst.md"} })
		}, []want{W(claudeManif, "Agents (0)")}},
		{"skills path without ./", func(t *testing.T, root string) {
			editJSON(t, root, claudeManif, func(m map[string]any) { m["skills"] = "skills" })
		}, []want{E(claudeManif, "must start with", "Invalid input")}},
		{"skills path with ..", func(t *testing.T, root string) {
			editJSON(t, root, claudeManif, func(m map[string]any) { m["skills"] = "./../skills" })
		}, []want{E(claudeManif, `".."`)}},
		{"missing commands path", func(t *testing.T, root string) {
			editJSON(t, root, claudeManif, func(m map[string]any) { m["commands"] = "./nope/" })
		}, []want{E(claudeManif, "commands", "not found")}},
		{"hooks path without ./", func(t *testing.T, root string) {
			editJSON(t, root, claudeManif, func(m map[string]any) { m["hooks"] = "hooks/hooks.json" })
		}, []want{E(claudeManif, "hooks path", "./")}},
		{"components inside .claude-plugin", func(t *testing.T, root string) {
			writeText(t, filepath.Join(root, pluginDir, ".claude-plugin/skills/x/SKILL.md"), "---\nname: x\ndescription: y\n---\n")
		}, []want{E(pluginDir+"/.claude-plugin/skills", "plugin root")}},
		{"plugin without .claude-plugin", func(t *testing.T, root string) {
			if err := os.RemoveAll(filepath.Join(root, pluginDir, ".claude-plugin")); err != nil {
				t.Fatal(err)
			}
		}, []want{E(pluginDir+"/.claude-plugin", "No manifest found")}},

		// --- Claude marketplace ---
		{"claude marketplace without owner", func(t *testing.T, root string) {
			editJSON(t, root, claudeMkt, func(m map[string]any) { delete(m, "owner") })
		}, []want{E(claudeMkt, "owner", "required")}},
		{"claude marketplace without description", func(t *testing.T, root string) {
			editJSON(t, root, claudeMkt, func(m map[string]any) { delete(m, "description") })
		}, []want{W(claudeMkt, "description", "--strict")}},
		{"claude marketplace BOM", func(t *testing.T, root string) {
			p := filepath.Join(root, claudeMkt)
			writeText(t, p, "\xef\xbb\xbf"+readText(t, p))
		}, []want{E(claudeMkt, "byte-order mark").at(1)}},
		{"claude entry source without ./", func(t *testing.T, root string) {
			editJSON(t, root, claudeMkt, func(m map[string]any) { firstEntry(m)["source"] = pluginDir })
		}, []want{E(claudeMkt, "must start with", "marketplace root")}},
		{"claude entry source with ..", func(t *testing.T, root string) {
			editJSON(t, root, claudeMkt, func(m map[string]any) { firstEntry(m)["source"] = "../outside" })
		}, []want{E(claudeMkt, `".."`)}},
		{"claude entry uses codex local source and policy", func(t *testing.T, root string) {
			editJSON(t, root, claudeMkt, func(m map[string]any) {
				e := firstEntry(m)
				e["source"] = map[string]any{"source": "local", "path": "./" + pluginDir}
				e["policy"] = map[string]any{"installation": "AVAILABLE"}
			})
		}, []want{E(claudeMkt, "local", "string"), W(claudeMkt, "policy", "Codex only")}},
		{"claude entry source dir missing", func(t *testing.T, root string) {
			editJSON(t, root, claudeMkt, func(m map[string]any) { firstEntry(m)["source"] = "./plugins/does-not-exist" })
		}, []want{E(claudeMkt, "does not exist"), E(codexMkt, "points at", "does-not-exist")}},
		{"claude entry source has no manifest", func(t *testing.T, root string) {
			writeText(t, filepath.Join(root, "plugins/empty/README.md"), "x\n")
			editJSON(t, root, claudeMkt, func(m map[string]any) { firstEntry(m)["source"] = "./plugins/empty" })
		}, []want{E(claudeMkt, "neither"), E(codexMkt, "points at")}},
		{"reserved marketplace name", func(t *testing.T, root string) {
			for _, f := range []string{claudeMkt, codexMkt} {
				editJSON(t, root, f, func(m map[string]any) { m["name"] = "claude-code-plugins" })
			}
		}, []want{E(claudeMkt, "reserved"), E(codexMkt, "reserved")}},
		{"impersonating marketplace name", func(t *testing.T, root string) {
			for _, f := range []string{claudeMkt, codexMkt} {
				editJSON(t, root, f, func(m map[string]any) { m["name"] = "anthropic-official-tools" })
			}
		}, []want{E(claudeMkt, "impersonates"), E(codexMkt, "impersonates")}},
		{"internal marketplace name", func(t *testing.T, root string) {
			for _, f := range []string{claudeMkt, codexMkt} {
				editJSON(t, root, f, func(m map[string]any) { m["name"] = "inline" })
			}
		}, []want{E(claudeMkt, "--plugin-dir"), E(codexMkt, "--plugin-dir")}},
		{"claude entry version differs from plugin.json", func(t *testing.T, root string) {
			editJSON(t, root, claudeMkt, func(m map[string]any) { firstEntry(m)["version"] = "0.2.0" })
		}, []want{E(claudeMkt, "entry version", "0.2.0")}},
		{"claude entry listed twice", func(t *testing.T, root string) {
			editJSON(t, root, claudeMkt, func(m map[string]any) {
				m["plugins"] = append(m["plugins"].([]any), firstEntry(m))
			})
		}, []want{E(claudeMkt, "listed twice")}},

		// --- Codex marketplace ---
		{"codex marketplace bad JSON", func(t *testing.T, root string) {
			replaceOnce(t, root, codexMkt, `"name": "rlxp",`, `"name": "rlxp"`)
		}, []want{E(codexMkt, "invalid JSON", "line 3").at(3)}},
		{"codex marketplace without name", func(t *testing.T, root string) {
			editJSON(t, root, codexMkt, func(m map[string]any) { delete(m, "name") })
		}, []want{E(codexMkt, "name", "required", "whole file")}},
		{"codex marketplace name differs", func(t *testing.T, root string) {
			editJSON(t, root, codexMkt, func(m map[string]any) { m["name"] = "rlxp-codex" })
		}, []want{E(codexMkt, "differs", "plugin@marketplace")}},
		{"codex installation policy unknown", func(t *testing.T, root string) {
			replaceOnce(t, root, codexMkt, `"AVAILABLE"`, `"MAYBE"`)
		}, []want{E(codexMkt, "MAYBE", "whole marketplace file")}},
		{"codex installation policy NOT_AVAILABLE", func(t *testing.T, root string) {
			replaceOnce(t, root, codexMkt, `"AVAILABLE"`, `"NOT_AVAILABLE"`)
		}, []want{W(codexMkt, "NOT_AVAILABLE", "refuses")}},
		{"codex authentication policy unknown", func(t *testing.T, root string) {
			replaceOnce(t, root, codexMkt, `"ON_INSTALL"`, `"LATER"`)
		}, []want{E(codexMkt, "LATER", "ON_USE")}},
		{"codex local path without ./", func(t *testing.T, root string) {
			replaceOnce(t, root, codexMkt, `"path": "./plugins/`, `"path": "plugins/`)
		}, []want{E(codexMkt, "must start with", "silently skips")}},
		{"codex local path missing", func(t *testing.T, root string) {
			replaceOnce(t, root, codexMkt, `"./plugins/rl-experiment-assistant"`, `"./plugins/nope"`)
		}, []want{E(codexMkt, "does not exist"), E(codexMkt, "points at", "nope")}},
		{"codex string source", func(t *testing.T, root string) {
			editJSON(t, root, codexMkt, func(m map[string]any) { firstEntry(m)["source"] = "./" + pluginDir })
		}, []want{W(codexMkt, "plain string", `"source":"local"`)}},
		{"codex unknown source type", func(t *testing.T, root string) {
			replaceOnce(t, root, codexMkt, `"source": "local"`, `"source": "folder"`)
		}, []want{E(codexMkt, "unknown type", "folder")}},
		{"plugin missing from codex marketplace", func(t *testing.T, root string) {
			editJSON(t, root, codexMkt, func(m map[string]any) { m["plugins"] = []any{} })
		}, []want{W(codexMkt, "empty"), E(codexMkt, "not here", "Codex users")}},
		{"plugin missing from claude marketplace", func(t *testing.T, root string) {
			editJSON(t, root, claudeMkt, func(m map[string]any) { m["plugins"] = []any{} })
		}, []want{W(claudeMkt, "empty"), E(claudeMkt, "not here", "Claude Code users")}},
		{"no claude marketplace", func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, claudeMkt)); err != nil {
				t.Fatal(err)
			}
		}, []want{W(codexMkt, "Claude Code cannot add")}},

		// --- Codex plugin.json ---
		{"codex manifest trailing comma", func(t *testing.T, root string) {
			replaceOnce(t, root, codexManif, `"name": "rl-experiment-assistant",`, `"name": "rl-experiment-assistant",}`)
		}, []want{E(codexManif, "invalid JSON")}},
		{"codex manifest duplicate key", func(t *testing.T, root string) {
			replaceOnce(t, root, codexManif, `"name": "rl-experiment-assistant",`, `"name": "rl-experiment-assistant", "version": "0.0.1",`)
		}, []want{E(codexManif, "duplicate", "version")}},
		{"codex manifest name differs from entry", func(t *testing.T, root string) {
			editJSON(t, root, codexManif, func(m map[string]any) { m["name"] = "other-name" })
		}, []want{E(codexManif, "other-name", "Codex refuses")}},
		{"codex manifest without name", func(t *testing.T, root string) {
			editJSON(t, root, codexManif, func(m map[string]any) { delete(m, "name") })
		}, []want{W(codexManif, "directory name")}},
		{"codex manifest missing", func(t *testing.T, root string) {
			if err := os.RemoveAll(filepath.Join(root, pluginDir, ".codex-plugin")); err != nil {
				t.Fatal(err)
			}
		}, []want{W(pluginDir+"/.codex-plugin", "falls back")}},
		{"versions differ", func(t *testing.T, root string) {
			editJSON(t, root, codexManif, func(m map[string]any) { m["version"] = "0.1.1" })
		}, []want{E(codexManif, "0.1.1", "differs")}},
		{"version with a space", func(t *testing.T, root string) {
			for _, f := range []string{claudeManif, codexManif} {
				editJSON(t, root, f, func(m map[string]any) { m["version"] = "0.1 beta" })
			}
			editJSON(t, root, claudeMkt, func(m map[string]any) { delete(firstEntry(m), "version") })
		}, []want{E(claudeManif, "may only contain"), E(codexManif, "may only contain")}},
		{"codex skills path missing", func(t *testing.T, root string) {
			editJSON(t, root, codexManif, func(m map[string]any) { m["skills"] = "./nope/" })
		}, []want{E(codexManif, "zero skills"), E(codexManif, "different skill directories")}},
		{"codex skills path without ./", func(t *testing.T, root string) {
			editJSON(t, root, codexManif, func(m map[string]any) { m["skills"] = "skills" })
		}, []want{E(codexManif, "must start with", "silently ignores"), E(codexManif, "different skill directories")}},
		{"agents key in codex manifest", func(t *testing.T, root string) {
			editJSON(t, root, codexManif, func(m map[string]any) { m["agents"] = []any{"./agents/metrics-analyst.md"} })
		}, []want{E(codexManif, "agents", "silently ignored")}},
		{"commands key in codex manifest", func(t *testing.T, root string) {
			editJSON(t, root, codexManif, func(m map[string]any) { m["commands"] = "./commands" })
		}, []want{E(codexManif, "commands", "silently ignored")}},
		{"codex default prompt too long", func(t *testing.T, root string) {
			editJSON(t, root, codexManif, func(m map[string]any) {
				m["interface"].(map[string]any)["defaultPrompt"] = []any{strings.Repeat("x", 129)}
			})
		}, []want{W(codexManif, "129", "128")}},
		{"codex brand colour", func(t *testing.T, root string) {
			editJSON(t, root, codexManif, func(m map[string]any) { m["interface"].(map[string]any)["brandColor"] = "blue" })
		}, []want{W(codexManif, "brandColor")}},

		// --- skills ---
		{"skill without front matter", func(t *testing.T, root string) {
			writeText(t, filepath.Join(root, skillGate), "# Gate\n\nbody\n")
		}, []want{E(skillGate, "no front matter", "Codex drops").at(1)}},
		{"skill front matter not closed", func(t *testing.T, root string) {
			writeText(t, filepath.Join(root, skillGate), "---\nname: gate\ndescription: x\n")
		}, []want{E(skillGate, "not closed")}},
		{"skill front matter with BOM", func(t *testing.T, root string) {
			p := filepath.Join(root, skillGate)
			writeText(t, p, "\xef\xbb\xbf"+readText(t, p))
		}, []want{E(skillGate, "byte-order mark")}},
		{"skill YAML does not parse", func(t *testing.T, root string) {
			replaceOnce(t, root, skillGate, gateDescKey, "description: Gate: explain whether")
		}, []want{E(skillGate, "not valid YAML", "quote").at(3)}},
		{"skill front matter is a list", skillWithFrontMatter("- name\n- description\n"),
			[]want{E(skillGate, "mapping")}},
		{"skill without description", skillWithFrontMatter(gateName),
			[]want{E(skillGate, "description", "required", "Codex drops")}},
		{"skill with empty description", skillWithFrontMatter(gateName + "description: \"\"\n"),
			[]want{E(skillGate, "empty")}},
		{"skill description too long", skillWithFrontMatter(gateName + "description: " + strings.Repeat("x", 1025) + "\n"),
			[]want{E(skillGate, "1025", "1024")}},
		{"skill description not a string", skillWithFrontMatter(gateName + "description: [a, b]\n"),
			[]want{E(skillGate, "description", "must be a string")}},
		{"skill description on several lines", skillWithFrontMatter(gateName + "description: >\n  Explain the\n  launch gate.\n"),
			[]want{W(skillGate, "several lines")}},
		{"skill description cut at comment", skillWithFrontMatter(gateName + "description: Explain the gate #1 skill\n"),
			[]want{W(skillGate, "comment", "quote")}},
		{"skill without name", skillWithFrontMatter(gateDesc),
			[]want{E(skillGate, "name", "required", "gate")}},
		{"skill name differs from directory", skillWithFrontMatter("name: gatekeeper\n" + gateDesc),
			[]want{E(skillGate, "gatekeeper", "directory name").at(2)}},
		{"skill directory not kebab-case", func(t *testing.T, root string) {
			from := filepath.Join(root, pluginDir, "skills/gate")
			to := filepath.Join(root, pluginDir, "skills/Gate_Check")
			if err := os.Rename(from, to); err != nil {
				t.Fatal(err)
			}
			replaceOnce(t, root, pluginDir+"/skills/Gate_Check/SKILL.md", "name: gate\n", "name: Gate_Check\n")
		}, []want{E(pluginDir+"/skills/Gate_Check/SKILL.md", "kebab-case")}},
		{"claude-only skill key", skillWithFrontMatter(gateName + gateDesc + "disable-model-invocation: true\n"),
			[]want{W(skillGate, "disable-model-invocation", "Claude Code only")}},
		{"unknown skill key", skillWithFrontMatter(gateName + gateDesc + "bogus-key: 1\n"),
			[]want{W(skillGate, "bogus-key", "neither host")}},
		{"skill body uses CLAUDE_PLUGIN_ROOT", func(t *testing.T, root string) {
			p := filepath.Join(root, skillGate)
			writeText(t, p, readText(t, p)+"\nRun `${CLAUDE_PLUGIN_ROOT}/scripts/rlxp gate`.\n")
		}, []want{W(skillGate, "${CLAUDE_PLUGIN_ROOT}", "Codex")}},
		{"skill body uses dynamic context", func(t *testing.T, root string) {
			p := filepath.Join(root, skillGate)
			writeText(t, p, readText(t, p)+"\nStatus: !`rlxp contract status`\n")
		}, []want{W(skillGate, "Codex shows it literally")}},
		{"nested SKILL.md", func(t *testing.T, root string) {
			writeText(t, filepath.Join(root, pluginDir, "skills/gate/examples/x/SKILL.md"), "---\nname: x\ndescription: example\n---\n")
		}, []want{E(pluginDir+"/skills/gate/examples/x/SKILL.md", "nested", "extra skill")}},
		{"SKILL.md at the skills root", func(t *testing.T, root string) {
			writeText(t, filepath.Join(root, pluginDir, "skills/SKILL.md"), "---\nname: skills\ndescription: x\n---\n")
		}, []want{E(pluginDir+"/skills/SKILL.md", "extra skill")}},
		{"skill file named skill.md", func(t *testing.T, root string) {
			if err := os.Rename(filepath.Join(root, skillGate), filepath.Join(root, pluginDir, "skills/gate/skill.md")); err != nil {
				t.Fatal(err)
			}
		}, []want{E(pluginDir+"/skills/gate/skill.md", "SKILL.md exactly")}},
		{"skill directory without SKILL.md", func(t *testing.T, root string) {
			writeText(t, filepath.Join(root, pluginDir, "skills/notes/README.md"), "notes\n")
		}, []want{W(pluginDir+"/skills/notes", "no SKILL.md")}},

		// --- agents ---
		{"agent without front matter", func(t *testing.T, root string) {
			writeText(t, filepath.Join(root, agentMA), "You analyse metrics.\n")
		}, []want{E(agentMA, "no front matter", "file name")}},
		{"agent YAML does not parse", agentWithFrontMatter("name: metrics-analyst\ndescription: Judges: evidence\n"),
			[]want{E(agentMA, "not valid YAML").at(3)}},
		{"agent without description", agentWithFrontMatter("name: metrics-analyst\ntools: Read\n"),
			[]want{E(agentMA, "description", "required")}},
		{"agent without name", agentWithFrontMatter("description: Judges RL evidence.\n"),
			[]want{E(agentMA, "name", "required", "metrics-analyst")}},
		{"agent name with colon", agentWithFrontMatter("name: rl:metrics-analyst\ndescription: Judges RL evidence.\n"),
			[]want{E(agentMA, "':'")}},
		{"agent permissionMode", agentWithFrontMatter(maFM + "permissionMode: acceptEdits\n"),
			[]want{W(agentMA, "permissionMode", "ignored for plugin agents")}},
		{"agent hooks and mcpServers", agentWithFrontMatter(maFM + "hooks: {}\nmcpServers: {}\ninitialPrompt: go\n"),
			[]want{W(agentMA, "hooks", "ignored"), W(agentMA, "mcpServers", "ignored"), W(agentMA, "initialPrompt", "ignored")}},
		{"agent tools wrong type", agentWithFrontMatter("name: metrics-analyst\ndescription: Judges RL evidence.\ntools: {Read: true}\n"),
			[]want{E(agentMA, "tools")}},
		{"agent model unknown", agentWithFrontMatter("name: metrics-analyst\ndescription: Judges RL evidence.\nmodel: gpt-5\n"),
			[]want{W(agentMA, "gpt-5")}},
		{"agent defined twice", func(t *testing.T, root string) {
			writeText(t, filepath.Join(root, pluginDir, "agents/analyst-copy.md"), readText(t, filepath.Join(root, agentMA)))
		}, []want{E(pluginDir+"/agents/metrics-analyst.md", "defined twice")}},

		// --- hooks ---
		{"hooks.json without wrapper", hooks(`{"PreToolUse":[{"matcher":"Bash|Edit|Write|MultiEdit|NotebookEdit|apply_patch","hooks":[{"type":"command","command":"\"${CLAUDE_PLUGIN_ROOT}/scripts/rlxp\" guard"}]}]}`),
			[]want{E(hooksFile, "wrapper", "expected record")}},
		{"hooks.json command unquoted", hooks(`{"hooks":{"PreToolUse":[{"matcher":"Bash|Edit|Write|MultiEdit|NotebookEdit|apply_patch","hooks":[{"type":"command","command":"${CLAUDE_PLUGIN_ROOT}/scripts/rlxp guard"}]}]}}`),
			[]want{W(hooksFile, "unquoted")}},
		{"hooks.json async hook", hooks(`{"hooks":{"PreToolUse":[{"matcher":"Bash|Edit|Write|MultiEdit|NotebookEdit|apply_patch","hooks":[{"type":"command","command":"\"${CLAUDE_PLUGIN_ROOT}/scripts/rlxp\" guard","async":true}]}]}}`),
			[]want{W(hooksFile, "async", "Codex skips")}},
		{"hooks.json event not an array", hooks(`{"hooks":{"PreToolUse":{"matcher":"Bash"}}}`),
			[]want{E(hooksFile, "PreToolUse", "array")}},
		{"hooks.json unknown top-level key", hooks(`{"version":1,"hooks":{"PreToolUse":[{"matcher":"Bash|Edit|Write|MultiEdit|NotebookEdit|apply_patch","hooks":[{"type":"command","command":"\"${CLAUDE_PLUGIN_ROOT}/scripts/rlxp\" guard"}]}]}}`),
			[]want{E(hooksFile, "unknown top-level key \"version\"", "Codex then ignores every hook").at(1)}},
		{"hooks.json unknown event", hooks(`{"hooks":{"PreToolUze":[{"matcher":"Bash|Edit|Write|MultiEdit|NotebookEdit|apply_patch","hooks":[{"type":"command","command":"\"${CLAUDE_PLUGIN_ROOT}/scripts/rlxp\" guard"}]}]}}`),
			[]want{E(hooksFile, "unknown hook event \"PreToolUze\"", "Invalid key in record")}},
		{"hooks.json Claude-only event", hooks(`{"hooks":{"Notification":[{"hooks":[{"type":"command","command":"\"${CLAUDE_PLUGIN_ROOT}/scripts/rlxp\" guard"}]}]}}`),
			[]want{W(hooksFile, "Codex has no Notification event")}},
		{"hooks.json Codex-only event", hooks(`{"hooks":{"Interrupt":[{"hooks":[{"type":"command","command":"\"${CLAUDE_PLUGIN_ROOT}/scripts/rlxp\" guard"}]}]}}`),
			[]want{E(hooksFile, "\"Interrupt\" is a Codex event only")}},
		{"hooks.json matcher not a regular expression", hooks(`{"hooks":{"PreToolUse":[{"matcher":"Bash(","hooks":[{"type":"command","command":"\"${CLAUDE_PLUGIN_ROOT}/scripts/rlxp\" guard"}]}]}}`),
			[]want{E(hooksFile, "matcher \"Bash(\" is not a valid regular expression")}},
		{"hooks.json matcher not a string", hooks(`{"hooks":{"PreToolUse":[{"matcher":["Bash"],"hooks":[{"type":"command","command":"\"${CLAUDE_PLUGIN_ROOT}/scripts/rlxp\" guard"}]}]}}`),
			[]want{E(hooksFile, "matcher must be a string")}},
		{"hooks.json hook without type", hooks(`{"hooks":{"PreToolUse":[{"matcher":"Bash|Edit|Write|MultiEdit|NotebookEdit|apply_patch","hooks":[{"command":"\"${CLAUDE_PLUGIN_ROOT}/scripts/rlxp\" guard"}]}]}}`),
			[]want{E(hooksFile, "type is required")}},
		{"hooks.json unknown hook type", hooks(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"shell","command":"x"}]}]}}`),
			[]want{E(hooksFile, "type \"shell\" is not a hook type")}},
		{"hooks.json http hook", hooks(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"http","url":"http://127.0.0.1:9/hook"}]}]}}`),
			[]want{E(hooksFile, "http hook", "Codex cannot read the file")}},
		{"hooks.json prompt hook", hooks(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"prompt","prompt":"Is this safe? $ARGUMENTS"}]}]}}`),
			[]want{W(hooksFile, "prompt hook", "Codex runs command hooks only")}},
		{"hooks.json guard misses the file tools", hooks(`{"hooks":{"PreToolUse":[{"matcher":"Bash|Edit|Write","hooks":[{"type":"command","command":"\"${CLAUDE_PLUGIN_ROOT}/scripts/rlxp\" guard"}]}]}}`),
			[]want{E(hooksFile, "no PreToolUse matcher sends MultiEdit to rlxp guard"), E(hooksFile, "sends NotebookEdit"), E(hooksFile, "sends apply_patch")}},
		{"hooks.json command missing", hooks(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command"}]}]}}`),
			[]want{E(hooksFile, "command is required")}},
		{"hooks.json timeout as a string", hooks(`{"hooks":{"PreToolUse":[{"matcher":"Bash|Edit|Write|MultiEdit|NotebookEdit|apply_patch","hooks":[{"type":"command","command":"\"${CLAUDE_PLUGIN_ROOT}/scripts/rlxp\" guard","timeout":"10"}]}]}}`),
			[]want{E(hooksFile, "timeout must be a whole number of seconds above 0")}},
		{"hooks.json fractional timeout", hooks(`{"hooks":{"PreToolUse":[{"matcher":"Bash|Edit|Write|MultiEdit|NotebookEdit|apply_patch","hooks":[{"type":"command","command":"\"${CLAUDE_PLUGIN_ROOT}/scripts/rlxp\" guard","timeout":1.5}]}]}}`),
			[]want{E(hooksFile, "timeout must be a whole number")}},
		{"hooks.json script missing", hooks(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"\"${CLAUDE_PLUGIN_ROOT}/scripts/guard.sh\" --strict"}]}]}}`),
			[]want{E(hooksFile, "runs "+pluginDir+"/scripts/guard.sh, which the plugin does not have", "never blocks")}},
		{"hooks.json script argument missing", hooks(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"node \"${PLUGIN_ROOT}/hooks/guard.js\""}]}]}}`),
			[]want{E(hooksFile, "runs "+pluginDir+"/hooks/guard.js, which the plugin does not have")}},

		// --- other files ---
		{"command named like a skill, entering none", func(t *testing.T, root string) {
			writeText(t, filepath.Join(root, pluginDir, "commands/gate.md"), "---\ndescription: gate\n---\nbody\n")
		}, []want{E(pluginDir+"/commands/gate.md", "has the name of a skill", "/rl-experiment-assistant:gate"),
			E(pluginDir+"/commands/gate.md", "names no skill of this plugin", "Codex ignores commands")}},
		{"command entering a skill the plugin lacks", func(t *testing.T, root string) {
			writeText(t, filepath.Join(root, pluginDir, "commands/go.md"), "---\ndescription: go\n---\nUse the rl-experiment-assistant:train skill.\n")
		}, []want{E(pluginDir+"/commands/go.md", "names the skill rl-experiment-assistant:train, which this plugin does not have")}},
		{"command without description", func(t *testing.T, root string) {
			writeText(t, filepath.Join(root, pluginDir, "commands/go.md"), "---\nmodel: sonnet\nname: go\n---\nUse the rl-experiment-assistant:launch skill.\n")
		}, []want{E(pluginDir+"/commands/go.md", "\"description\" is required"), W(pluginDir+"/commands/go.md", "unknown front-matter key \"name\"")}},
		{"command without front matter", func(t *testing.T, root string) {
			writeText(t, filepath.Join(root, pluginDir, "commands/go.md"), "Use the rl-experiment-assistant:launch skill.\n")
		}, []want{E(pluginDir+"/commands/go.md", "no front matter")}},
		{"CLAUDE.md at plugin root", func(t *testing.T, root string) {
			writeText(t, filepath.Join(root, pluginDir, "CLAUDE.md"), "notes\n")
		}, []want{W(pluginDir+"/CLAUDE.md", "does not load")}},
		{"shim not executable", func(t *testing.T, root string) {
			if err := os.Chmod(filepath.Join(root, pluginDir, "scripts/rlxp"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []want{W(pluginDir+"/scripts/rlxp", "not executable"), E(hooksFile, "runs "+pluginDir+"/scripts/rlxp, which is not executable", "never blocks").at(10),
			E(hooksFile, "runs "+pluginDir+"/scripts/rlxp, which is not executable", "never blocks").at(20)}},
		{"docs say marketplace add .", func(t *testing.T, root string) {
			p := filepath.Join(root, pluginDir, "templates/README.md")
			writeText(t, p, readText(t, p)+"\nInstall with `claude plugin marketplace add .` from the root.\n")
		}, []want{W(pluginDir+"/templates/README.md", "marketplace add ./")}},
	}

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			copyPackage(t, root)
			c.mutate(t, root)
			rep, err := Validate(root)
			if err != nil {
				t.Fatal(err)
			}
			checkFindings(t, c.want, rep.Findings)
		})
	}
}

// checkFindings compares findings by file and severity with go-cmp, then
// checks each expected finding's words and line.
func checkFindings(t *testing.T, wants []want, got []Finding) {
	t.Helper()
	var wantKeys, gotKeys []string
	for _, w := range wants {
		wantKeys = append(wantKeys, w.file+" "+string(w.sev))
	}
	for _, f := range got {
		gotKeys = append(gotKeys, f.File+" "+string(f.Severity))
	}
	sort.Strings(wantKeys)
	sort.Strings(gotKeys)
	if diff := cmp.Diff(wantKeys, gotKeys); diff != "" {
		t.Errorf("findings (-want +got):\n%s\nall findings:\n%s", diff, dumpFindings(got))
		return
	}
	for _, w := range wants {
		found := false
		for _, f := range got {
			if f.File == w.file && f.Severity == w.sev && containsAllFold(f.Message, w.words) && (w.line == 0 || f.Line == w.line) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no %s finding in %s (line %d) containing %q; findings:\n%s", w.sev, w.file, w.line, w.words, dumpFindings(got))
		}
	}
}

func containsAllFold(s string, words []string) bool {
	ls := strings.ToLower(s)
	for _, w := range words {
		if !strings.Contains(ls, strings.ToLower(w)) {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func dumpFindings(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s\n", f)
	}
	return b.String()
}

func TestValidateDirErrors(t *testing.T) {
	if _, err := Validate(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Validate(missing dir): want error")
	}
	file := filepath.Join(t.TempDir(), "f")
	writeText(t, file, "x")
	if _, err := Validate(file); err == nil {
		t.Error("Validate(file): want error")
	}
	rep, err := Validate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	checkFindings(t, []want{E(".", "no plugin package")}, rep.Findings)
	if rep.Plugins == nil || rep.Findings == nil {
		t.Error("Plugins and Findings must be non-nil slices so JSON shows []")
	}
}

func TestFindingString(t *testing.T) {
	got := []string{
		Finding{File: "a/b.json", Line: 3, Severity: SeverityError, Message: "bad"}.String(),
		Finding{File: "a", Severity: SeverityWarning, Message: "meh"}.String(),
	}
	if diff := cmp.Diff([]string{"a/b.json:3: error: bad", "a: warning: meh"}, got); diff != "" {
		t.Error(diff)
	}
}

func TestParseJSONLines(t *testing.T) {
	src := "{\n  \"name\": \"x\",\n  \"plugins\": [\n    {\"name\": \"p\",\n     \"source\": \"./p\"},\n    \"s\"\n  ]\n}\n"
	doc, serr := decodeJSONFile([]byte(src))
	if serr != nil {
		t.Fatal(serr)
	}
	got := map[string]int{}
	for _, k := range []string{"", "name", "plugins", "plugins.0", "plugins.0.name", "plugins.0.source", "plugins.1"} {
		got[k] = doc.line(k)
	}
	wantLines := map[string]int{"": 1, "name": 2, "plugins": 3, "plugins.0": 4, "plugins.0.name": 4, "plugins.0.source": 5, "plugins.1": 6}
	if diff := cmp.Diff(wantLines, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		src       string
		line, col int
	}{
		{"{\n  \"a\": 1,\n}\n", 3, 1},
		{"{\"a\": }", 1, 7},
		{"{\"a\": 1", 1, 7},
		{"", 1, 1},
		{"{} x", 1, 4},
	} {
		_, serr := decodeJSONFile([]byte(c.src))
		if serr == nil {
			t.Errorf("%q: want syntax error", c.src)
			continue
		}
		if serr.Line != c.line || serr.Col != c.col {
			t.Errorf("%q: error at %d:%d (%s), want %d:%d", c.src, serr.Line, serr.Col, serr.Msg, c.line, c.col)
		}
	}
}

func TestPluginRootQuoted(t *testing.T) {
	for cmd, want := range map[string]bool{
		`"${CLAUDE_PLUGIN_ROOT}/scripts/rlxp" guard`: true,
		`${CLAUDE_PLUGIN_ROOT}/scripts/rlxp guard`:   false,
		`'${CLAUDE_PLUGIN_ROOT}/scripts/rlxp' guard`: false,
		`sh -c "\"$CLAUDE_PLUGIN_ROOT/x\""`:          true,
		`rlxp guard`:                                 true,
		`"a" $PLUGIN_ROOT/x`:                         false,
	} {
		if got := pluginRootQuoted(cmd); got != want {
			t.Errorf("pluginRootQuoted(%q) = %v, want %v", cmd, got, want)
		}
	}
}
