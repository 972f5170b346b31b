package plugin

import (
	"strings"
	"unicode/utf8"
)

// commandKeys are the front-matter keys Claude Code reads in commands/*.md.
func commandKeys(k string) bool {
	switch k {
	case "description", "argument-hint", "allowed-tools", "model", "disable-model-invocation", "effort":
		return true
	}
	return false
}

// skillRefRe finds "<plugin>:<skill>" in a command's body; the skill part
// is what must exist (the plugin part follows renames).
var skillRefRe = lazyRegexp(`\b([a-z0-9][a-z0-9-]*):([a-z0-9][a-z0-9-]*)\b`)

// checkCommands checks commands/*.md, which Claude Code reads and Codex
// ignores. Each command is a short entry into a skill, so that Codex users
// get the same step through the skill: its body must name an existing skill
// of this plugin as "<plugin>:<skill>", and its name must differ from every
// skill's (Claude Code lists both as slash commands and shows the name
// twice). It returns the commands' names.
func (v *validator) checkCommands(dir, plugin string, skills []string) []string {
	cmds := pj(dir, "commands")
	if !v.isDir(cmds) {
		return []string{}
	}
	skillSet := map[string]bool{}
	for _, s := range skills {
		skillSet[s] = true
	}
	names := []string{}
	for _, e := range v.readDir(cmds) {
		file := pj(cmds, e.Name())
		if e.IsDir() {
			v.warnf(file, 0, "a directory of commands: Claude Code names them with a %q prefix; keep commands flat, one file per step", e.Name()+":")
			continue
		}
		if !strings.HasSuffix(e.Name(), ".md") {
			v.warnf(file, 0, "not a .md file: Claude Code ignores it")
			continue
		}
		name := strings.TrimSuffix(e.Name(), ".md")
		names = append(names, name)
		data, ok := v.readFile(file)
		if !ok {
			continue
		}
		if !utf8.Valid(data) {
			v.errorf(file, 0, "is not valid UTF-8")
		}
		if !kebabRe().MatchString(name) {
			v.errorf(file, 0, "command name %q is not kebab-case (lowercase letters, digits, hyphens)", name)
		}
		if skillSet[name] {
			v.errorf(file, 0, "command %q has the name of a skill: Claude Code lists both as /%s:%s; a skill is already a slash command, so drop the command or rename it", name, plugin, name)
		}
		fm := parseFrontMatter(data)
		if !v.frontMatterOK(file, fm, "command", "Claude Code shows the command without a description") {
			continue
		}
		if f, has := fm.field("description"); !has || f.Value == nil {
			v.errorf(file, 1, "\"description\" is required: Claude Code shows it in the / menu")
		} else if s, ok := f.Value.(string); !ok || strings.TrimSpace(s) == "" {
			v.errorf(file, f.Line, "\"description\" must be a non-empty string")
		}
		for _, f := range fm.Fields {
			if !commandKeys(f.Key) {
				v.warnf(file, f.Line, "unknown front-matter key %q for a command: Claude Code ignores it", f.Key)
			}
		}
		named := false
		for _, m := range skillRefRe().FindAllStringSubmatch(fm.Body, -1) {
			switch {
			case skillSet[m[2]]:
				named = true
			case m[1] == plugin:
				named = true
				v.errorf(file, 0, "names the skill %s:%s, which this plugin does not have", plugin, m[2])
			}
		}
		if !named {
			v.errorf(file, 0, "names no skill of this plugin (as %s:<skill>): a command is a short entry into a skill, which is what Codex users get, since Codex ignores commands", plugin)
		}
	}
	return names
}
