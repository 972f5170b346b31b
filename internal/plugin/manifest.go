package plugin

import (
	"net/url"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// pluginExpect is what the marketplaces say about a plugin directory.
type pluginExpect struct {
	name             string // entry name; "" in plugin mode
	inClaude         bool
	inCodex          bool
	entryVersion     string
	entryVersionFile string
	entryVersionLn   int
}

// manifestInfo is what one plugin.json declares.
type manifestInfo struct {
	file       string
	present    bool
	name       string
	nameLn     int
	version    string
	versionLn  int
	hasVersion bool
	// skillsDeclared is set when "skills" is present; skillDirs are the
	// declared directories that exist.
	skillsDeclared bool
	skillDirs      []string
	// agentFiles are explicitly listed agent files (Claude only).
	agentsDeclared bool
	agentFiles     []string
	hookFiles      []string
	commands       bool
}

// claudeMisplacedEntryKeys reports the marketplace-entry keys that Claude Code
// reports as misplaced in plugin.json.
func claudeMisplacedEntryKeys(k string) bool {
	return oneOf(k, "source", "category", "tags", "strict", "id", "relevance")
}

// codexUnsupportedKey explains a key Codex does not support in its manifest
// (it ignores them silently), or returns "".
func codexUnsupportedKey(k string) string {
	switch k {
	case "agents":
		return "Codex does not load Claude subagents"
	case "commands":
		return "Codex does not load commands; write a skill"
	case "outputStyles":
		return "Codex has no output styles"
	}
	return ""
}

// claudeManifest checks <dir>/.claude-plugin/plugin.json.
func (v *validator) claudeManifest(dir string, ex pluginExpect) manifestInfo {
	file := pj(dir, ClaudeManifestFile)
	mi := manifestInfo{file: file}
	if !v.isFile(file) {
		if v.isDir(pj(dir, ".claude-plugin")) || ex.inClaude || ex.name == "" {
			v.errorf(pj(dir, ".claude-plugin"), 0, "no %s: \"claude plugin validate\" fails (\"No manifest found\") and Claude Code shows the plugin as \"Version: unknown\"", ClaudeManifestFile)
		}
		return mi
	}
	mi.present = true
	for _, stray := range []string{"skills", "agents", "commands", "hooks"} {
		if v.isDir(pj(dir, ".claude-plugin", stray)) {
			v.errorf(pj(dir, ".claude-plugin", stray), 0, "components belong at the plugin root, not inside .claude-plugin/; neither host loads %s from here", stray)
		}
	}
	doc := v.readJSON(file)
	if doc == nil {
		return mi
	}
	return v.claudeManifestDoc(dir, doc, mi)
}

// claudeManifestDoc checks a decoded Claude plugin.json of the plugin in dir.
func (v *validator) claudeManifestDoc(dir string, doc *jsonDoc, mi manifestInfo) manifestInfo {
	file := mi.file
	top, ok := doc.Value.(map[string]any)
	if !ok {
		v.errorf(file, 1, "must be a JSON object, not %s", jsonType(doc.Value))
		return mi
	}
	if name, ok := v.requireString(file, doc, top, "", "name", "the plugin name, which namespaces its skills and agents"); ok {
		mi.name, mi.nameLn = name, doc.line("name")
		v.checkPluginName(file, mi.nameLn, name, false)
	}
	mi.version, mi.versionLn, mi.hasVersion = v.manifestVersion(file, doc, top)
	if !mi.hasVersion {
		v.warnf(file, 0, "no \"version\": claude plugin validate warns and --strict fails; Claude Code caches installs by version")
	}
	if _, ok := top["description"]; !ok {
		v.warnf(file, 0, "no \"description\": claude plugin validate warns and --strict fails")
	} else if _, ok := top["description"].(string); !ok {
		v.errorf(file, doc.line("description"), "\"description\" must be a string, not %s", jsonType(top["description"]))
	}
	switch a := top["author"].(type) {
	case nil:
		if _, present := top["author"]; !present {
			v.warnf(file, 0, "no \"author\": claude plugin validate warns and --strict fails")
		} else {
			v.errorf(file, doc.line("author"), "\"author\" must be an object with a \"name\"")
		}
	case map[string]any:
		if s, _ := a["name"].(string); s == "" {
			v.errorf(file, doc.line("author"), "author.name is required and must be a non-empty string")
		}
	default:
		v.errorf(file, doc.line("author"), "\"author\" must be an object with a \"name\", not %s", jsonType(a))
	}
	if hp, present := top["homepage"]; present {
		s, _ := hp.(string)
		if u, err := url.Parse(s); err != nil || u.Scheme == "" || u.Host == "" {
			v.errorf(file, doc.line("homepage"), "\"homepage\" must be an absolute URL, got %s", quoteValue(hp))
		}
	}
	if kw, present := top["keywords"]; present {
		if !isStringArray(kw) {
			v.errorf(file, doc.line("keywords"), "\"keywords\" must be an array of strings")
		}
	}
	for _, k := range sortedKeys(top) {
		switch {
		case claudeManifestKeys(k):
		case claudeMisplacedEntryKeys(k):
			v.warnf(file, doc.line(k), "%q belongs in the marketplace entry, not plugin.json; claude plugin validate warns and --strict fails", k)
		default:
			v.unknownClaudeKey(file, doc.line(k), k, "")
		}
	}

	// Component paths. Every one must start with "./", stay inside the plugin
	// and exist.
	if raw, present := top["skills"]; present {
		mi.skillsDeclared = true
		for _, p := range v.pathList(file, doc, "skills", raw, false) {
			if p.rel == "" {
				continue
			}
			switch fi, err := v.stat(p.rel); {
			case err != nil:
				v.errorf(file, p.line, "skills path %q not found; Claude Code reports a load failure", p.raw)
			case !fi.IsDir():
				v.errorf(file, p.line, "skills path %q is a file; skills entries must be directories that hold <skill>/SKILL.md", p.raw)
			default:
				mi.skillDirs = append(mi.skillDirs, p.rel)
			}
		}
	}
	if raw, present := top["agents"]; present {
		mi.agentsDeclared = true
		valid := 0
		for _, p := range v.pathList(file, doc, "agents", raw, false) {
			if p.rel == "" {
				continue
			}
			fi, err := v.stat(p.rel)
			switch {
			case err != nil:
				v.errorf(file, p.line, "agents path %q not found; Claude Code reports a load failure", p.raw)
			case fi.IsDir():
				v.errorf(file, p.line, "agents path %q is a directory: Claude Code accepts only .md files here (\"agents: Invalid input\") and the plugin fails to load; remove the key to use the default agents/ directory", p.raw)
			case !strings.HasSuffix(p.rel, ".md"):
				v.errorf(file, p.line, "agents path %q must be a .md file", p.raw)
			default:
				valid++
				mi.agentFiles = append(mi.agentFiles, p.rel)
			}
		}
		if valid > 0 {
			v.warnf(file, doc.line("agents"), "\"agents\" replaces the default agents/ scan, and an explicit file list has been seen to load zero agents (\"plugin details\" shows Agents (0)); remove the key and keep the agents in agents/")
		}
	}
	if raw, present := top["commands"]; present {
		mi.commands = true
		if obj, ok := raw.(map[string]any); ok {
			for _, name := range sortedKeys(obj) {
				c, _ := obj[name].(map[string]any)
				if src, ok := c["source"].(string); ok {
					v.existingPath(file, doc.line("commands."+name), "commands."+name+".source", dir, src)
				}
			}
		} else {
			for _, p := range v.pathList(file, doc, "commands", raw, false) {
				if p.rel != "" && !v.exists(p.rel) {
					v.errorf(file, p.line, "commands path %q not found; Claude Code reports a load failure", p.raw)
				}
			}
		}
	}
	mi.hookFiles = v.hookPaths(file, doc, top, dir)
	for _, key := range []string{"mcpServers", "lspServers", "outputStyles", "workflows"} {
		raw, present := top[key]
		if !present {
			continue
		}
		if _, inline := raw.(map[string]any); inline {
			continue
		}
		for _, p := range v.pathList(file, doc, key, raw, false) {
			if p.rel != "" && !v.exists(p.rel) {
				v.errorf(file, p.line, "%s path %q not found; Claude Code reports a load failure", key, p.raw)
			}
		}
	}
	return mi
}

// codexManifest checks <dir>/.codex-plugin/plugin.json.
func (v *validator) codexManifest(dir string, ex pluginExpect) manifestInfo {
	file := pj(dir, CodexManifestFile)
	mi := manifestInfo{file: file}
	if !v.isFile(file) {
		if ex.inCodex {
			v.warnf(pj(dir, ".codex-plugin"), 0, "no %s: Codex falls back to %s and loses its own metadata (interface, skills path)", CodexManifestFile, ClaudeManifestFile)
		}
		return mi
	}
	mi.present = true
	doc := v.readJSON(file)
	if doc == nil {
		return mi
	}
	return v.codexManifestDoc(dir, doc, mi)
}

// codexManifestDoc checks a decoded Codex plugin.json of the plugin in dir.
func (v *validator) codexManifestDoc(dir string, doc *jsonDoc, mi manifestInfo) manifestInfo {
	file := mi.file
	top, ok := doc.Value.(map[string]any)
	if !ok {
		v.errorf(file, 1, "must be a JSON object, not %s", jsonType(doc.Value))
		return mi
	}
	switch n := top["name"].(type) {
	case nil:
		base := v.dirName(dir)
		v.warnf(file, 0, "no \"name\": Codex uses the directory name %q", base)
		mi.name = base
	case string:
		if n == "" {
			base := v.dirName(dir)
			v.warnf(file, doc.line("name"), "empty \"name\": Codex uses the directory name %q", base)
			mi.name = base
		} else {
			mi.name, mi.nameLn = n, doc.line("name")
			v.checkPluginName(file, mi.nameLn, n, true)
		}
	default:
		v.errorf(file, doc.line("name"), "\"name\" must be a string, not %s", jsonType(n))
	}
	mi.version, mi.versionLn, mi.hasVersion = v.manifestVersion(file, doc, top)
	if !mi.hasVersion {
		v.warnf(file, 0, "no \"version\": Codex installs it as version \"local\" while Claude Code uses %s's version", ClaudeManifestFile)
	}
	if d, present := top["description"]; present {
		if _, ok := d.(string); !ok {
			v.errorf(file, doc.line("description"), "\"description\" must be a string, not %s", jsonType(d))
		}
	}
	if kw, present := top["keywords"]; present && !isStringArray(kw) {
		v.errorf(file, doc.line("keywords"), "\"keywords\" must be an array of strings")
	}
	for _, k := range sortedKeys(top) {
		if why := codexUnsupportedKey(k); why != "" {
			v.errorf(file, doc.line(k), "%q is not supported in the Codex manifest and is silently ignored (%s); remove it", k, why)
		}
	}
	if raw, present := top["skills"]; present {
		mi.skillsDeclared = true
		for _, p := range v.pathList(file, doc, "skills", raw, true) {
			if p.rel == "" {
				continue
			}
			if fi, err := v.stat(p.rel); err != nil || !fi.IsDir() {
				v.errorf(file, p.line, "skills path %q is not a directory: Codex loads zero skills and says nothing", p.raw)
				continue
			}
			mi.skillDirs = append(mi.skillDirs, p.rel)
		}
	}
	mi.hookFiles = v.hookPaths(file, doc, top, dir)
	for _, key := range []string{"mcpServers", "apps"} {
		raw, present := top[key]
		if !present {
			continue
		}
		if _, inline := raw.(map[string]any); inline && key == "mcpServers" {
			continue
		}
		s, ok := raw.(string)
		if !ok {
			v.errorf(file, doc.line(key), "%q must be a \"./\" path, not %s", key, jsonType(raw))
			continue
		}
		v.existingPath(file, doc.line(key), key, dir, s)
	}
	if raw, present := top["interface"]; present {
		v.codexInterface(file, doc, raw, dir)
	}
	return mi
}

// codexInterface checks the Codex "interface" block. Codex drops bad values
// with a log line the CLI does not print, so these are warnings.
func (v *validator) codexInterface(file string, doc *jsonDoc, raw any, dir string) {
	iface, ok := raw.(map[string]any)
	if !ok {
		v.errorf(file, doc.line("interface"), "\"interface\" must be an object, not %s", jsonType(raw))
		return
	}
	for _, k := range []string{"displayName", "shortDescription", "longDescription", "developerName", "category",
		"websiteURL", "privacyPolicyURL", "termsOfServiceURL"} {
		if val, present := iface[k]; present {
			if _, ok := val.(string); !ok {
				v.warnf(file, doc.line("interface."+k), "interface.%s must be a string, not %s", k, jsonType(val))
			}
		}
	}
	if caps, present := iface["capabilities"]; present && !isStringArray(caps) {
		v.warnf(file, doc.line("interface.capabilities"), "interface.capabilities must be an array of strings")
	}
	if dp, present := iface["defaultPrompt"]; present {
		ln := doc.line("interface.defaultPrompt")
		var prompts []string
		switch t := dp.(type) {
		case string:
			prompts = []string{t}
		case []any:
			if len(t) > 3 {
				v.warnf(file, ln, "interface.defaultPrompt has %d prompts; Codex shows at most 3", len(t))
			}
			for _, p := range t {
				s, ok := p.(string)
				if !ok {
					v.warnf(file, ln, "interface.defaultPrompt entries must be strings")
					continue
				}
				prompts = append(prompts, s)
			}
		default:
			v.warnf(file, ln, "interface.defaultPrompt must be a string or up to 3 strings, not %s", jsonType(dp))
		}
		for i, p := range prompts {
			if n := utf8.RuneCountInString(p); n > 128 {
				v.warnf(file, doc.line("interface.defaultPrompt."+strconv.Itoa(i)), "interface.defaultPrompt entry %d is %d characters; Codex allows 128", i+1, n)
			}
		}
	}
	if bc, present := iface["brandColor"]; present {
		if s, _ := bc.(string); !brandColorRe().MatchString(s) {
			v.warnf(file, doc.line("interface.brandColor"), "interface.brandColor must be #RRGGBB, got %s", quoteValue(bc))
		}
	}
	for _, k := range []string{"composerIcon", "logo"} {
		if val, present := iface[k]; present {
			s, ok := val.(string)
			if !ok {
				v.warnf(file, doc.line("interface."+k), "interface.%s must be a \"./\" path", k)
				continue
			}
			v.interfaceAsset(file, doc.line("interface."+k), "interface."+k, dir, s)
		}
	}
	if shots, present := iface["screenshots"]; present {
		arr, ok := shots.([]any)
		if !ok {
			v.warnf(file, doc.line("interface.screenshots"), "interface.screenshots must be an array of \"./\" paths")
		}
		for i, s := range arr {
			str, _ := s.(string)
			v.interfaceAsset(file, doc.line("interface.screenshots."+strconv.Itoa(i)), "interface.screenshots["+strconv.Itoa(i)+"]", dir, str)
		}
	}
}

func (v *validator) interfaceAsset(file string, line int, field, dir, p string) {
	rel, problem := cleanRelPath(dir, p)
	if problem != "" {
		v.warnf(file, line, "%s %s; Codex drops it", field, problem)
		return
	}
	if !v.exists(rel) {
		v.warnf(file, line, "%s %q does not exist; Codex drops it", field, p)
	}
}

// manifestVersion reads and checks "version".
func (v *validator) manifestVersion(file string, doc *jsonDoc, top map[string]any) (string, int, bool) {
	raw, present := top["version"]
	if !present {
		return "", 0, false
	}
	s, ok := raw.(string)
	if !ok {
		v.errorf(file, doc.line("version"), "\"version\" must be a string, not %s", jsonType(raw))
		return "", 0, false
	}
	v.checkVersion(file, doc.line("version"), s)
	return s, doc.line("version"), true
}

// hookPaths checks a manifest's "hooks" value and returns the hook files it names.
func (v *validator) hookPaths(file string, doc *jsonDoc, top map[string]any, dir string) []string {
	raw, present := top["hooks"]
	if !present {
		return nil
	}
	items := []any{raw}
	if arr, ok := raw.([]any); ok {
		items = arr
	}
	var files []string
	for i, it := range items {
		p := "hooks"
		if _, isArr := raw.([]any); isArr {
			p = "hooks." + strconv.Itoa(i)
		}
		switch h := it.(type) {
		case map[string]any:
			if _, wrapped := h["hooks"]; wrapped {
				v.errorf(file, doc.line(p), "inline \"hooks\" in a manifest is the bare event map; the \"hooks\" wrapper belongs only in hooks/hooks.json")
			}
		case string:
			rel, problem := cleanRelPath(dir, h)
			if problem != "" {
				v.errorf(file, doc.line(p), "hooks path %s", problem)
				continue
			}
			if !strings.HasSuffix(rel, ".json") {
				v.errorf(file, doc.line(p), "hooks path %q must be a .json file", h)
				continue
			}
			if !v.isFile(rel) {
				v.errorf(file, doc.line(p), "hooks path %q not found; the hosts report a load failure", h)
				continue
			}
			files = append(files, rel)
		default:
			v.errorf(file, doc.line(p), "hooks must be a \"./\" path to a .json file, an inline object or an array of those, not %s", jsonType(it))
		}
	}
	return files
}

// manifestPath is one path a manifest names.
type manifestPath struct {
	raw  string
	rel  string // cleaned package-relative path; "" when invalid
	line int
}

// pathList reads a "./path" string or an array of them.
func (v *validator) pathList(file string, doc *jsonDoc, key string, raw any, codex bool) []manifestPath {
	dir := path.Dir(path.Dir(file)) // <dir>/.claude-plugin/plugin.json -> <dir>
	var out []manifestPath
	add := func(p string, line int, s string) {
		rel, problem := cleanRelPath(dir, s)
		if problem != "" {
			if codex {
				v.errorf(file, line, "%s path %s; Codex silently ignores the value", key, problem)
			} else {
				v.errorf(file, line, "%s path %s; Claude Code rejects it (\"%s: Invalid input\")", key, problem, key)
			}
		}
		out = append(out, manifestPath{raw: s, rel: rel, line: line})
	}
	switch t := raw.(type) {
	case string:
		add(key, doc.line(key), t)
	case []any:
		for i, e := range t {
			p := key + "." + strconv.Itoa(i)
			s, ok := e.(string)
			if !ok {
				v.errorf(file, doc.line(p), "%s[%d] must be a \"./\" path string, not %s", key, i, jsonType(e))
				continue
			}
			add(p, doc.line(p), s)
		}
	default:
		v.errorf(file, doc.line(key), "%q must be a \"./\" path or an array of them, not %s", key, jsonType(raw))
	}
	return out
}

// existingPath checks one "./" path that must exist.
func (v *validator) existingPath(file string, line int, field, dir, p string) {
	rel, problem := cleanRelPath(dir, p)
	if problem != "" {
		v.errorf(file, line, "%s %s", field, problem)
		return
	}
	if !v.exists(rel) {
		v.errorf(file, line, "%s %q not found", field, p)
	}
}

func (v *validator) exists(rel string) bool {
	_, err := v.stat(rel)
	return err == nil
}

func isStringArray(x any) bool {
	arr, ok := x.([]any)
	if !ok {
		return false
	}
	for _, e := range arr {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}

// dirName is the base name of a package directory, resolving "." to the
// validated directory's own name.
func (v *validator) dirName(dir string) string {
	if dir != "." {
		return path.Base(dir)
	}
	if abs, err := filepath.Abs(v.root); err == nil {
		return filepath.Base(abs)
	}
	return filepath.Base(v.root)
}
