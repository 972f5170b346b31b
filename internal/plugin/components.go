package plugin

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// maxDescription is the Agent Skills specification's limit on a skill
// description.
const maxDescription = 1024

// maxSkillName is the Agent Skills limit on a skill name.
const maxSkillName = 64

// portableSkillKeys reports the front-matter keys of the portable Agent Skills subset.
func portableSkillKeys(k string) bool {
	return oneOf(k, "name", "description", "license", "compatibility", "metadata", "allowed-tools")
}

// claudeSkillKeys reports the skill front-matter keys that only Claude Code reads.
func claudeSkillKeys(k string) bool {
	return oneOf(k, "when_to_use", "argument-hint", "arguments", "disable-model-invocation",
		"user-invocable", "disallowed-tools", "model", "effort", "context", "agent", "background", "hooks",
		"paths", "shell")
}

// agentKeys reports the agent front-matter keys Claude Code reads for plugin agents.
func agentKeys(k string) bool {
	return oneOf(k, "name", "description", "tools", "disallowedTools", "model", "effort", "maxTurns",
		"skills", "memory", "background", "isolation", "color", "omitClaudeMd")
}

// agentIgnoredKeys reports the agent front-matter keys Claude Code ignores for
// plugin agents.
func agentIgnoredKeys(k string) bool {
	return oneOf(k, "permissionMode", "hooks", "mcpServers", "initialPrompt")
}

// isAgentModel reports the model aliases an agent may name.
func isAgentModel(k string) bool {
	return oneOf(k, "sonnet", "opus", "haiku", "inherit")
}

var (
	marketplaceAddDotRe = lazyRegexp("claude plugin marketplace add \\.(?:[\\s`\"')]|$)")
	dynamicContextRe    = lazyRegexp("(?:^|\\s)!`")
)

// claudeOnlyPlaceholders are the placeholders Claude Code substitutes in skill
// bodies and Codex does not.
func claudeOnlyPlaceholders() []string {
	return []string{"${CLAUDE_PLUGIN_ROOT}", "${CLAUDE_SKILL_DIR}", "${CLAUDE_PLUGIN_DATA}", "${CLAUDE_PROJECT_DIR}", "$ARGUMENTS"}
}

// validatePlugin checks one plugin directory and records its summary.
func (v *validator) validatePlugin(dir string, ex pluginExpect) {
	cl := v.claudeManifest(dir, ex)
	cx := v.codexManifest(dir, ex)
	sum := PluginSummary{Dir: dir, Skills: []string{}, Agents: []string{}, Hooks: []string{}}

	if ex.name != "" {
		if cl.name != "" && cl.name != ex.name {
			v.errorf(cl.file, cl.nameLn, "plugin name %q does not match the marketplace entry name %q; both must be the same", cl.name, ex.name)
		}
		if cx.name != "" && cx.name != ex.name {
			v.errorf(cx.file, cx.nameLn, "plugin name %q does not match the marketplace entry name %q; Codex refuses to install it", cx.name, ex.name)
		}
	} else if cl.name != "" && cx.name != "" && cl.name != cx.name {
		v.errorf(cx.file, cx.nameLn, "plugin name %q differs from %q in %s; the two hosts would install different plugins", cx.name, cl.name, ClaudeManifestFile)
	}
	sum.Name = firstNonEmpty(cl.name, cx.name, ex.name, path.Base(dir))

	if cl.hasVersion && cx.hasVersion && cl.version != cx.version {
		v.errorf(cx.file, cx.versionLn, "version %q differs from %q in %s; keep both manifests at the same version", cx.version, cl.version, ClaudeManifestFile)
	}
	if ex.entryVersionFile != "" && cl.hasVersion && ex.entryVersion != cl.version {
		v.errorf(ex.entryVersionFile, ex.entryVersionLn, "entry version %q differs from %q in %s; plugin.json wins at install time and the entry version is silently ignored (claude plugin validate warns and --strict fails)", ex.entryVersion, cl.version, cl.file)
	}
	sum.Version = firstNonEmpty(cl.version, cx.version)

	// Which skill directories does each host scan? Claude adds declared
	// paths to skills/; Codex replaces skills/ with them.
	def := pj(dir, "skills")
	var claudeRoots, codexRoots []string
	if v.isDir(def) {
		claudeRoots = append(claudeRoots, def)
	}
	claudeRoots = appendUnique(claudeRoots, cl.skillDirs...)
	codexSrc := cx
	if !cx.present {
		codexSrc = cl
	}
	if codexSrc.skillsDeclared {
		codexRoots = appendUnique(nil, codexSrc.skillDirs...)
	} else if v.isDir(def) {
		codexRoots = []string{def}
	}
	if !sameSet(claudeRoots, codexRoots) {
		v.errorf(firstNonEmpty(cx.fileIfPresent(), cl.fileIfPresent(), dir), 0,
			"the hosts scan different skill directories: Claude Code %s, Codex %s; Claude Code always adds skills/, Codex replaces it with the manifest's \"skills\"",
			listOrNone(claudeRoots), listOrNone(codexRoots))
	}
	sum.Skills = v.checkSkillRoots(appendUnique(claudeRoots, codexRoots...))
	sum.Agents = v.checkAgents(dir, cl)

	var hookFiles []string
	if v.isFile(pj(dir, "hooks", "hooks.json")) {
		hookFiles = append(hookFiles, pj(dir, "hooks", "hooks.json"))
	}
	hookFiles = appendUnique(hookFiles, cl.hookFiles...)
	hookFiles = appendUnique(hookFiles, cx.hookFiles...)
	for _, f := range hookFiles {
		sum.Hooks = appendUnique(sum.Hooks, v.checkHooksFile(dir, f)...)
	}
	sort.Strings(sum.Hooks)

	sum.Commands = v.checkCommands(dir, sum.Name, sum.Skills)
	if v.isFile(pj(dir, "CLAUDE.md")) {
		v.warnf(pj(dir, "CLAUDE.md"), 0, "Claude Code does not load a CLAUDE.md at a plugin root; put the guidance in a skill or an agent")
	}
	v.checkChecksums(dir, sum.Version)
	v.checkExecutables(pj(dir, "scripts"))
	v.checkExecutables(pj(dir, "bin"))
	v.checkDocs(dir)
	v.plugins = append(v.plugins, sum)
}

func (mi manifestInfo) fileIfPresent() string {
	if mi.present {
		return mi.file
	}
	return ""
}

// checkSkillRoots checks every skill under the given directories and returns
// the skill names (directory names), sorted.
func (v *validator) checkSkillRoots(roots []string) []string {
	names := []string{}
	seen := map[string]string{}
	for _, root := range roots {
		if v.isFile(pj(root, "SKILL.md")) {
			v.errorf(pj(root, "SKILL.md"), 0, "a SKILL.md directly in the skills directory is loaded by Codex as an extra skill but ignored by Claude Code; move it into its own <skill>/ directory")
		}
		for _, e := range v.readDir(root) {
			sd := pj(root, e.Name())
			if strings.HasPrefix(e.Name(), ".") || !v.isDir(sd) {
				continue
			}
			nested := v.checkNestedSkills(sd)
			skillFile := pj(sd, "SKILL.md")
			switch {
			case v.isFile(skillFile):
				name := v.checkSkill(skillFile, e.Name())
				if prev, dup := seen[name]; dup {
					v.errorf(skillFile, 0, "skill %q is defined twice (also in %s)", name, prev)
					continue
				}
				seen[name] = skillFile
				names = append(names, name)
			case v.caseVariant(sd, "SKILL.md") != "":
				alt := v.caseVariant(sd, "SKILL.md")
				v.errorf(pj(sd, alt), 0, "the skill file is named %s; both hosts look for SKILL.md exactly", alt)
			case nested == 0:
				v.warnf(sd, 0, "has no SKILL.md: neither host loads it as a skill")
			}
		}
	}
	sort.Strings(names)
	return names
}

// checkNestedSkills reports SKILL.md files below a skill directory: Codex
// scans skills/ recursively (hidden directories excepted) and loads each as
// an extra skill; Claude Code does not. It returns how many it found.
func (v *validator) checkNestedSkills(skillDir string) int {
	n := 0
	base := v.abs(skillDir)
	_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != base && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() != "SKILL.md" || filepath.Dir(p) == base {
			return nil
		}
		rel, err := filepath.Rel(v.root, p)
		if err != nil {
			return nil
		}
		n++
		v.errorf(filepath.ToSlash(rel), 0, "nested SKILL.md: Codex scans skills/ recursively and loads it as an extra skill, Claude Code does not; rename it (e.g. EXAMPLE.md) or move it out of skills/")
		return nil
	})
	return n
}

// caseVariant returns a file in dir whose name equals want case-insensitively
// but not exactly.
func (v *validator) caseVariant(dir, want string) string {
	ents, err := os.ReadDir(v.abs(dir))
	if err != nil {
		return ""
	}
	for _, e := range ents {
		if e.Name() != want && strings.EqualFold(e.Name(), want) {
			return e.Name()
		}
	}
	return ""
}

// checkSkill checks one SKILL.md and returns the skill's name as Claude Code
// sees it (the directory name).
func (v *validator) checkSkill(file, dirName string) string {
	data, ok := v.readFile(file)
	if !ok {
		return dirName
	}
	return v.checkSkillContent(file, dirName, data)
}

// checkSkillContent checks the content of a SKILL.md in directory dirName.
func (v *validator) checkSkillContent(file, dirName string, data []byte) string {
	if !utf8.Valid(data) {
		v.errorf(file, 0, "is not valid UTF-8")
	}
	fm := parseFrontMatter(data)
	if !v.frontMatterOK(file, fm, "skill", "Codex drops the skill (\"missing YAML frontmatter delimited by ---\") and Claude Code loads it without a description") {
		return dirName
	}
	if !kebabRe().MatchString(dirName) {
		v.errorf(file, 0, "skill directory %q is not kebab-case (lowercase letters, digits, hyphens), which skill names must be", dirName)
	}
	if f, has := fm.field("name"); !has || f.Value == nil {
		v.errorf(file, 1, "\"name\" is required and must equal the directory name %q", dirName)
	} else if s, ok := f.Value.(string); !ok || f.Kind != "string" {
		v.errorf(file, f.Line, "\"name\" must be a single-line string, not %s", yamlKind(f))
	} else {
		if s != dirName {
			v.errorf(file, f.Line, "name %q differs from the directory name %q: Claude Code calls the skill %q and Codex %q; make them equal", s, dirName, dirName, s)
		}
		if len(s) > maxSkillName {
			v.errorf(file, f.Line, "name is %d characters; skill names are limited to %d", len(s), maxSkillName)
		}
	}
	v.checkDescription(file, fm, "skill", true)
	for _, f := range fm.Fields {
		switch {
		case portableSkillKeys(f.Key):
			if f.Key == "metadata" && f.Kind != "mapping" && f.Kind != "null" {
				v.warnf(file, f.Line, "\"metadata\" must be a mapping; Codex reads metadata.short-description from it")
			}
		case claudeSkillKeys(f.Key):
			v.warnf(file, f.Line, "%q is read by Claude Code only; Codex ignores it, so the skill behaves differently in the two hosts", f.Key)
		default:
			v.warnf(file, f.Line, "unknown front-matter key %q: neither host reads it", f.Key)
		}
	}
	v.checkSkillBody(file, fm)
	return dirName
}

// frontMatterOK reports missing, unclosed or unparsable front matter.
func (v *validator) frontMatterOK(file string, fm frontMatter, kind, consequence string) bool {
	switch {
	case fm.BOM:
		v.errorf(file, 1, "starts with a UTF-8 byte-order mark, so the first line is not \"---\": %s; save the file without the BOM", consequence)
	case !fm.Present:
		v.errorf(file, 1, "no front matter: the first line must be \"---\"; %s", consequence)
	case !fm.Closed:
		v.errorf(file, 1, "front matter is not closed by a \"---\" line; %s", consequence)
	case fm.Err != nil:
		v.errorf(file, fm.Err.Line, "front matter is not valid YAML: %s; Claude Code loads the %s with empty metadata and \"claude plugin validate\" fails (quote values that contain \": \")", fm.Err.Msg, kind)
	case fm.NotMapping != "":
		v.errorf(file, 2, "front matter must be a mapping of keys, not a YAML %s", fm.NotMapping)
	default:
		return true
	}
	return false
}

// checkDescription checks the "description" key of a skill or agent.
func (v *validator) checkDescription(file string, fm frontMatter, kind string, skill bool) {
	f, has := fm.field("description")
	if !has || f.Value == nil {
		if skill {
			v.errorf(file, 1, "\"description\" is required: Codex drops a skill without one, and both hosts use it to decide when to load the skill")
		} else {
			v.errorf(file, 1, "\"description\" is required: Claude Code uses it to decide when to delegate to the agent (claude plugin validate warns and --strict fails)")
		}
		return
	}
	s, ok := f.Value.(string)
	if !ok || (f.Kind != "string" && f.Kind != "block") {
		v.errorf(file, f.Line, "\"description\" must be a string, not %s", yamlKind(f))
		return
	}
	if strings.TrimSpace(s) == "" {
		v.errorf(file, f.Line, "\"description\" is empty; the %s cannot be selected (Codex drops an empty-description skill)", kind)
		return
	}
	if n := utf8.RuneCountInString(s); n > maxDescription {
		v.errorf(file, f.Line, "\"description\" is %d characters; the limit is %d", n, maxDescription)
	}
	if f.Multiline {
		v.warnf(file, f.Line, "\"description\" spans several lines; keep front matter to simple single-line values, which every YAML parser reads the same way")
	}
	if f.CutAtComment {
		v.warnf(file, f.Line, "unquoted \"description\" contains \" #\", which YAML reads as a comment: it is cut to %q; quote the value", s)
	}
}

// checkSkillBody reports Claude-only substitutions in a skill body.
func (v *validator) checkSkillBody(file string, fm frontMatter) {
	lines := strings.Split(fm.Body, "\n")
	reported := map[string]bool{}
	for i, l := range lines {
		ln := fm.BodyLine + i
		for _, ph := range claudeOnlyPlaceholders() {
			if reported[ph] || !strings.Contains(l, ph) {
				continue
			}
			reported[ph] = true
			v.warnf(file, ln, "%s is substituted by Claude Code only; Codex shows it literally. Refer to files relative to the plugin root instead (e.g. \"scripts/x in the plugin root, two levels above this SKILL.md\")", ph)
		}
		if !reported["!`"] && dynamicContextRe().MatchString(l) {
			reported["!`"] = true
			v.warnf(file, ln, "!`command` context injection runs in Claude Code only; Codex shows it literally")
		}
	}
}

// checkAgents checks the Claude subagents and returns their names, sorted.
func (v *validator) checkAgents(dir string, cl manifestInfo) []string {
	var files []string
	if cl.agentsDeclared {
		files = cl.agentFiles
	} else if agentsDir := pj(dir, "agents"); v.isDir(agentsDir) {
		base := v.abs(agentsDir)
		_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if strings.HasPrefix(d.Name(), ".") && p != base {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".md") {
				if rel, err := filepath.Rel(v.root, p); err == nil {
					files = append(files, filepath.ToSlash(rel))
				}
			}
			return nil
		})
	}
	names := []string{}
	seen := map[string]string{}
	for _, f := range files {
		name := v.checkAgent(f)
		if prev, dup := seen[name]; dup {
			v.errorf(f, 0, "agent %q is defined twice (also in %s)", name, prev)
			continue
		}
		seen[name] = f
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// checkAgent checks one subagent file and returns its name.
func (v *validator) checkAgent(file string) string {
	base := strings.TrimSuffix(path.Base(file), ".md")
	data, ok := v.readFile(file)
	if !ok {
		return base
	}
	return v.checkAgentContent(file, data)
}

// checkAgentContent checks the content of a subagent file.
func (v *validator) checkAgentContent(file string, data []byte) string {
	base := strings.TrimSuffix(path.Base(file), ".md")
	fm := parseFrontMatter(data)
	if !v.frontMatterOK(file, fm, "agent", "Claude Code loads the agent under its file name with no description, so it is never chosen automatically") {
		return base
	}
	name := base
	if f, has := fm.field("name"); !has || f.Value == nil {
		v.errorf(file, 1, "\"name\" is required (Claude Code falls back to the file name %q)", base)
	} else if s, ok := f.Value.(string); !ok || f.Kind != "string" {
		v.errorf(file, f.Line, "\"name\" must be a single-line string, not %s", yamlKind(f))
	} else {
		name = s
		switch {
		case strings.Contains(s, ":"):
			v.errorf(file, f.Line, "agent name %q must not contain ':'; Claude Code adds the plugin namespace itself (plugin:agent)", s)
		case !kebabRe().MatchString(s):
			v.warnf(file, f.Line, "agent name %q is not kebab-case", s)
		}
	}
	v.checkDescription(file, fm, "agent", false)
	for _, f := range fm.Fields {
		switch {
		case agentIgnoredKeys(f.Key):
			v.warnf(file, f.Line, "%q is ignored for plugin agents; Claude Code reads it only for agents in .claude/agents/", f.Key)
		case f.Key == "tools" || f.Key == "disallowedTools":
			if !(f.Kind == "string" || (f.Kind == "sequence" && isStringArray(f.Value)) || f.Kind == "null") {
				v.errorf(file, f.Line, "%q must be a comma-separated string or a list of tool names", f.Key)
			}
		case f.Key == "model":
			s, _ := f.Value.(string)
			if !isAgentModel(s) && !strings.HasPrefix(s, "claude-") {
				v.warnf(file, f.Line, "model %s is not sonnet, opus, haiku, inherit or a full claude-* model id", quoteValue(f.Value))
			}
		case agentKeys(f.Key):
		default:
			v.warnf(file, f.Line, "unknown front-matter key %q: Claude Code ignores it", f.Key)
		}
	}
	return name
}

// checkExecutables warns about scripts with a shebang that are not executable.
func (v *validator) checkExecutables(dir string) {
	if !v.isDir(dir) {
		return
	}
	base := v.abs(dir)
	_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Mode().Perm()&0o111 != 0 {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		head := make([]byte, 2)
		n, _ := f.Read(head)
		_ = f.Close()
		if n == 2 && bytes.Equal(head, []byte("#!")) {
			if rel, err := filepath.Rel(v.root, p); err == nil {
				v.warnf(filepath.ToSlash(rel), 0, "starts with #! but is not executable; skills and hooks that run it get \"permission denied\" (chmod +x)")
			}
		}
		return nil
	})
}

// checkDocs looks through the plugin's Markdown for instructions that fail
// on the real clients.
func (v *validator) checkDocs(dir string) {
	base := v.abs(dir)
	_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != base && (strings.HasPrefix(d.Name(), ".") || d.Name() == "bin" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(d.Name(), ".md") || !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		rel, err := filepath.Rel(v.root, p)
		if err != nil {
			return nil
		}
		for i, l := range strings.Split(string(data), "\n") {
			if marketplaceAddDotRe().MatchString(l) {
				v.warnf(filepath.ToSlash(rel), i+1, "\"claude plugin marketplace add .\" fails (\"Invalid marketplace source format\"); write \"claude plugin marketplace add ./\"")
			}
		}
		return nil
	})
}

func yamlKind(f fmField) string {
	switch f.Kind {
	case "string":
		return "a string"
	case "block":
		return "a block scalar"
	case "sequence":
		return "a list"
	case "mapping":
		return "a mapping"
	case "null":
		return "null"
	case "alias":
		return "an alias"
	}
	return "a " + f.Kind
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func appendUnique(list []string, items ...string) []string {
	for _, it := range items {
		dup := false
		for _, l := range list {
			if l == it {
				dup = true
				break
			}
		}
		if !dup {
			list = append(list, it)
		}
	}
	return list
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]bool{}
	for _, x := range a {
		m[x] = true
	}
	for _, x := range b {
		if !m[x] {
			return false
		}
	}
	return true
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}
