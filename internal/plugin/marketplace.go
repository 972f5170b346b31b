package plugin

import (
	"fmt"
	"strconv"
)

// claudeMarketplaceKeys reports the keys "claude plugin validate" knows at the
// top of marketplace.json.
func claudeMarketplaceKeys(k string) bool {
	return oneOf(k, "name", "owner", "plugins", "description", "version", "metadata",
		"$schema", "renames", "forceRemoveDeletedPlugins", "allowCrossMarketplaceDependenciesOn")
}

// claudeManifestKeys reports the keys Claude Code reads in plugin.json.
func claudeManifestKeys(k string) bool {
	return oneOf(k, "name", "displayName", "version", "description", "author", "homepage",
		"repository", "license", "keywords", "$schema", "defaultEnabled", "dependencies", "settings",
		"userConfig", "channels", "skills", "commands", "agents", "hooks", "mcpServers", "lspServers",
		"outputStyles", "workflows", "experimental")
}

// claudeEntryOnlyKeys reports the keys Claude Code reads only in a marketplace
// entry, on top of the manifest keys.
func claudeEntryOnlyKeys(k string) bool {
	return oneOf(k, "source", "category", "tags", "strict", "relevance")
}

// claudeRemoteSources reports Claude's remote plugin source types, which are
// not validated offline.
func claudeRemoteSources(k string) bool {
	return oneOf(k, "github", "url", "git-subdir", "npm", "archive", "command")
}

// codexRemoteSources reports Codex's remote plugin source types, which are not
// validated offline.
func codexRemoteSources(k string) bool {
	return oneOf(k, "url", "git-subdir")
}

// codexOnlyKey says where a key that only Codex reads belongs, or "".
func codexOnlyKey(k string) string {
	switch k {
	case "interface":
		return ".codex-plugin/plugin.json or .agents/plugins/marketplace.json"
	case "apps":
		return ".codex-plugin/plugin.json"
	case "policy":
		return ".agents/plugins/marketplace.json"
	}
	return ""
}

// codexInstallPolicies reports the values of policy.installation Codex accepts.
func codexInstallPolicies(k string) bool {
	return oneOf(k, "NOT_AVAILABLE", "AVAILABLE", "INSTALLED_BY_DEFAULT")
}

// codexAuthPolicies reports the values of policy.authentication Codex accepts.
func codexAuthPolicies(k string) bool {
	return oneOf(k, "ON_INSTALL", "ON_USE")
}

// oneOf reports whether k is one of options.
func oneOf(k string, options ...string) bool {
	for _, o := range options {
		if k == o {
			return true
		}
	}
	return false
}

// marketplace is what one marketplace file lists.
type marketplace struct {
	file    string
	name    string
	nameLn  int
	entries []mktEntry
}

// mktEntry is one plugin entry of a marketplace.
type mktEntry struct {
	name       string
	line       int
	dir        string // cleaned package-relative dir of a local source; "" otherwise
	remote     bool
	version    string
	hasVersion bool
	versionLn  int
}

func (m *marketplace) entry(name string) *mktEntry {
	if m == nil {
		return nil
	}
	for i := range m.entries {
		if m.entries[i].name == name {
			return &m.entries[i]
		}
	}
	return nil
}

// validateMarketplaces checks both marketplace files, their agreement, and
// every local plugin they list.
func (v *validator) validateMarketplaces(hasClaude, hasCodex bool) {
	var claude, codex *marketplace
	if hasClaude {
		claude = v.claudeMarketplace(ClaudeMarketplaceFile)
	} else {
		v.warnf(CodexMarketplaceFile, 0, "there is no %s: Claude Code cannot add this marketplace", ClaudeMarketplaceFile)
	}
	if hasCodex {
		codex = v.codexMarketplace(CodexMarketplaceFile)
	}

	if claude != nil && codex != nil {
		if claude.name != "" && codex.name != "" && claude.name != codex.name {
			v.errorf(CodexMarketplaceFile, codex.nameLn, "marketplace name %q differs from %q in %s; \"plugin@marketplace\" must be the same string in both hosts",
				codex.name, claude.name, ClaudeMarketplaceFile)
		}
		for _, e := range claude.entries {
			o := codex.entry(e.name)
			switch {
			case o == nil:
				v.errorf(CodexMarketplaceFile, 0, "plugin %q is listed in %s but not here; Codex users cannot install it", e.name, ClaudeMarketplaceFile)
			case e.dir != "" && o.dir != "" && e.dir != o.dir:
				v.errorf(CodexMarketplaceFile, o.line, "plugin %q points at %q here but at %q in %s; both hosts must install the same directory",
					e.name, "./"+o.dir, "./"+e.dir, ClaudeMarketplaceFile)
			}
		}
		for _, o := range codex.entries {
			if claude.entry(o.name) == nil {
				v.errorf(ClaudeMarketplaceFile, 0, "plugin %q is listed in %s but not here; Claude Code users cannot install it", o.name, CodexMarketplaceFile)
			}
		}
	}

	// Validate each local plugin once, in the order the marketplaces list them.
	seen := map[string]bool{}
	var order []string
	expect := map[string]pluginExpect{}
	add := func(m *marketplace, codexSide bool) {
		if m == nil {
			return
		}
		for _, e := range m.entries {
			if e.dir == "" {
				continue
			}
			ex := expect[e.dir]
			if ex.name == "" {
				ex.name = e.name
			}
			if codexSide {
				ex.inCodex = true
			} else {
				ex.inClaude = true
				if e.hasVersion {
					ex.entryVersion, ex.entryVersionFile, ex.entryVersionLn = e.version, m.file, e.versionLn
				}
			}
			expect[e.dir] = ex
			if !seen[e.dir] {
				seen[e.dir] = true
				order = append(order, e.dir)
			}
		}
	}
	add(claude, false)
	add(codex, true)
	if claude == nil && codex == nil {
		return
	}
	for _, dir := range order {
		if !v.isDir(dir) || (!v.isFile(pj(dir, ClaudeManifestFile)) && !v.isFile(pj(dir, CodexManifestFile))) {
			continue // reported with the entry
		}
		v.validatePlugin(dir, expect[dir])
	}
}

// claudeMarketplace checks .claude-plugin/marketplace.json.
func (v *validator) claudeMarketplace(file string) *marketplace {
	doc := v.readJSON(file)
	if doc == nil {
		return nil
	}
	return v.claudeMarketplaceDoc(file, doc)
}

// claudeMarketplaceDoc checks a decoded Claude marketplace file.
func (v *validator) claudeMarketplaceDoc(file string, doc *jsonDoc) *marketplace {
	top, ok := doc.Value.(map[string]any)
	if !ok {
		v.errorf(file, 1, "must be a JSON object, not %s", jsonType(doc.Value))
		return nil
	}
	m := &marketplace{file: file}
	if name, ok := v.requireString(file, doc, top, "", "name", "the marketplace name"); ok {
		m.name, m.nameLn = name, doc.line("name")
		v.checkMarketplaceName(file, m.nameLn, name)
	}
	switch owner := top["owner"].(type) {
	case nil:
		v.errorf(file, 0, "\"owner\" is required (an object with a \"name\"); claude plugin validate fails without it")
	case map[string]any:
		if s, _ := owner["name"].(string); s == "" {
			v.errorf(file, doc.line("owner"), "owner.name is required and must be a non-empty string")
		}
	default:
		v.errorf(file, doc.line("owner"), "\"owner\" must be an object with a \"name\", not %s", jsonType(owner))
	}
	if _, ok := top["description"]; !ok {
		v.warnf(file, 0, "no \"description\": claude plugin validate warns and --strict fails")
	}
	for _, k := range sortedKeys(top) {
		if claudeMarketplaceKeys(k) {
			continue
		}
		v.unknownClaudeKey(file, doc.line(k), k, "")
	}
	if !v.eachPluginEntry(file, doc, top, false, m, func(p, where string, ent map[string]any, e *mktEntry) {
		if ver, present := ent["version"]; present {
			if s, ok := ver.(string); ok {
				e.version, e.hasVersion, e.versionLn = s, true, doc.line(p+".version")
				v.checkVersion(file, e.versionLn, s)
			} else {
				v.errorf(file, doc.line(p+".version"), "%s.version must be a string, not %s", where, jsonType(ver))
			}
		}
		srcLine := doc.line(p + ".source")
		switch src := ent["source"].(type) {
		case nil:
			v.errorf(file, e.line, "%s.source is required (a string such as \"./plugins/%s\")", where, orDefault(e.name, "my-plugin"))
		case string:
			dir, problem := cleanRelPath(".", src)
			if problem != "" {
				v.errorf(file, srcLine, "%s.source %s; Claude Code resolves it against the marketplace root (the directory that holds .claude-plugin/), e.g. \"./plugins/%s\"",
					where, problem, orDefault(e.name, "my-plugin"))
				break
			}
			e.dir = dir
			v.checkPluginDir(file, srcLine, where+".source", src, dir)
		case map[string]any:
			kind, _ := src["source"].(string)
			switch {
			case kind == "local":
				v.errorf(file, srcLine, "%s.source is Codex's {\"source\":\"local\",...} form; Claude Code has no local object source (Invalid input): use the string \"./path\"", where)
			case claudeRemoteSources(kind):
				e.remote = true
			default:
				v.errorf(file, srcLine, "%s.source has unknown type %q; Claude Code accepts a \"./path\" string or a github, url, git-subdir, npm, archive or command object", where, kind)
			}
		default:
			v.errorf(file, srcLine, "%s.source must be a \"./path\" string or a source object, not %s", where, jsonType(src))
		}
		for _, k := range sortedKeys(ent) {
			if claudeManifestKeys(k) || claudeEntryOnlyKeys(k) {
				continue
			}
			v.unknownClaudeKey(file, doc.line(p+"."+k), k, where)
		}
	}) {
		return m
	}
	return m
}

// codexMarketplace checks .agents/plugins/marketplace.json.
func (v *validator) codexMarketplace(file string) *marketplace {
	doc := v.readJSON(file)
	if doc == nil {
		return nil
	}
	return v.codexMarketplaceDoc(file, doc)
}

// codexMarketplaceDoc checks a decoded Codex marketplace file.
func (v *validator) codexMarketplaceDoc(file string, doc *jsonDoc) *marketplace {
	top, ok := doc.Value.(map[string]any)
	if !ok {
		v.errorf(file, 1, "must be a JSON object, not %s", jsonType(doc.Value))
		return nil
	}
	m := &marketplace{file: file}
	if name, ok := v.requireString(file, doc, top, "", "name", "the marketplace name (Codex rejects the whole file without it)"); ok {
		m.name, m.nameLn = name, doc.line("name")
		v.checkMarketplaceName(file, m.nameLn, name)
	}
	if iface, present := top["interface"]; present {
		if obj, ok := iface.(map[string]any); !ok {
			v.errorf(file, doc.line("interface"), "\"interface\" must be an object, not %s", jsonType(iface))
		} else if dn, present := obj["displayName"]; present {
			if _, ok := dn.(string); !ok {
				v.errorf(file, doc.line("interface.displayName"), "interface.displayName must be a string, not %s", jsonType(dn))
			}
		}
	}
	if !v.eachPluginEntry(file, doc, top, true, m, func(p, where string, ent map[string]any, e *mktEntry) {
		srcLine := doc.line(p + ".source")
		switch src := ent["source"].(type) {
		case nil:
			v.errorf(file, e.line, "%s.source is required: {\"source\":\"local\",\"path\":\"./plugins/%s\"}", where, orDefault(e.name, "my-plugin"))
		case string:
			dir, problem := cleanRelPath(".", src)
			if problem != "" {
				v.errorf(file, srcLine, "%s.source %s; Codex silently skips the entry (\"plugin was not found in marketplace\")", where, problem)
				break
			}
			e.dir = dir
			v.warnf(file, srcLine, "%s.source is a plain string; use the documented Codex form {\"source\":\"local\",\"path\":%q}", where, src)
			v.checkPluginDir(file, srcLine, where+".source", src, dir)
		case map[string]any:
			kind, _ := src["source"].(string)
			switch {
			case kind == "local":
				pathLine := doc.line(p + ".source.path")
				if pathLine == 0 {
					pathLine = srcLine
				}
				sp, ok := src["path"].(string)
				if !ok {
					v.errorf(file, pathLine, "%s.source.path is required and must be a string such as \"./plugins/%s\"", where, orDefault(e.name, "my-plugin"))
					break
				}
				dir, problem := cleanRelPath(".", sp)
				if problem != "" {
					v.errorf(file, pathLine, "%s.source.path %s; Codex silently skips the entry (\"plugin was not found in marketplace\"). Paths resolve against the marketplace root (the parent of .agents/)", where, problem)
					break
				}
				e.dir = dir
				v.checkPluginDir(file, pathLine, where+".source.path", sp, dir)
			case codexRemoteSources(kind):
				e.remote = true
			default:
				v.errorf(file, srcLine, "%s.source has unknown type %q; Codex accepts \"local\", \"url\" or \"git-subdir\" and rejects the whole file otherwise", where, kind)
			}
		default:
			v.errorf(file, srcLine, "%s.source must be {\"source\":\"local\",\"path\":\"./...\"}, not %s", where, jsonType(src))
		}
		switch pol := ent["policy"].(type) {
		case nil:
		case map[string]any:
			if inst, present := pol["installation"]; present {
				ln := doc.line(p + ".policy.installation")
				s, _ := inst.(string)
				switch {
				case !codexInstallPolicies(s):
					v.errorf(file, ln, "%s.policy.installation %s is not NOT_AVAILABLE, AVAILABLE or INSTALLED_BY_DEFAULT; Codex rejects the whole marketplace file", where, quoteValue(inst))
				case s == "NOT_AVAILABLE":
					v.warnf(file, ln, "%s.policy.installation is NOT_AVAILABLE: Codex lists the plugin but refuses to install it", where)
				}
			}
			if auth, present := pol["authentication"]; present {
				if s, _ := auth.(string); !codexAuthPolicies(s) {
					v.errorf(file, doc.line(p+".policy.authentication"), "%s.policy.authentication %s is not ON_INSTALL or ON_USE; Codex rejects the whole marketplace file", where, quoteValue(auth))
				}
			}
			if prods, present := pol["products"]; present {
				if _, ok := prods.([]any); !ok {
					v.errorf(file, doc.line(p+".policy.products"), "%s.policy.products must be an array, not %s", where, jsonType(prods))
				}
			}
		default:
			v.errorf(file, doc.line(p+".policy"), "%s.policy must be an object, not %s", where, jsonType(pol))
		}
		if cat, present := ent["category"]; present {
			if _, ok := cat.(string); !ok {
				v.errorf(file, doc.line(p+".category"), "%s.category must be a string, not %s", where, jsonType(cat))
			}
		}
	}) {
		return m
	}
	return m
}

// checkPluginDir reports a local source that does not exist or holds no manifest.
func (v *validator) checkPluginDir(file string, line int, where, src, dir string) {
	fi, err := v.stat(dir)
	switch {
	case err != nil:
		v.errorf(file, line, "%s %q does not exist; installing fails (\"Source path does not exist\" / \"missing plugin.json\")", where, src)
	case !fi.IsDir():
		v.errorf(file, line, "%s %q is not a directory", where, src)
	case !v.isFile(pj(dir, ClaudeManifestFile)) && !v.isFile(pj(dir, CodexManifestFile)):
		v.errorf(file, line, "%s %q has neither %s nor %s", where, src, ClaudeManifestFile, CodexManifestFile)
	}
}

// eachPluginEntry checks what both hosts require of a marketplace's
// "plugins": an array of objects with valid, unique names. It calls check
// for each entry's host-specific fields and records the entry in m. It
// returns false when there is no plugins array to walk.
func (v *validator) eachPluginEntry(file string, doc *jsonDoc, top map[string]any, codex bool, m *marketplace, check func(p, where string, ent map[string]any, e *mktEntry)) bool {
	plugins, ok := top["plugins"].([]any)
	if !ok {
		if top["plugins"] == nil {
			v.errorf(file, 0, "\"plugins\" is required (an array of plugin entries)")
		} else {
			v.errorf(file, doc.line("plugins"), "\"plugins\" must be an array, not %s", jsonType(top["plugins"]))
		}
		return false
	}
	if len(plugins) == 0 {
		v.warnf(file, doc.line("plugins"), "\"plugins\" is empty: the marketplace offers nothing to install")
	}
	names := map[string]int{}
	for i, raw := range plugins {
		p := "plugins." + strconv.Itoa(i)
		where := describeJSONPath(p)
		ent, ok := raw.(map[string]any)
		if !ok {
			v.errorf(file, doc.line(p), "%s must be an object, not %s", where, jsonType(raw))
			continue
		}
		e := mktEntry{line: doc.line(p)}
		if name, ok := v.requireString(file, doc, ent, p, "name", "the plugin name"); ok {
			e.name = name
			v.checkPluginName(file, doc.line(p+".name"), name, codex)
			if first, dup := names[name]; dup {
				v.errorf(file, doc.line(p+".name"), "plugin %q is listed twice (first at line %d)", name, first)
			}
			names[name] = doc.line(p + ".name")
		}
		check(p, where, ent, &e)
		m.entries = append(m.entries, e)
	}
	return true
}

// requireString reports a missing or non-string key and returns its value.
func (v *validator) requireString(file string, doc *jsonDoc, obj map[string]any, base, key, what string) (string, bool) {
	p := joinPath(base, key)
	raw, present := obj[key]
	if !present || raw == nil {
		v.errorf(file, doc.line(base), "%s is required: %s", describeJSONPath(p), what)
		return "", false
	}
	s, ok := raw.(string)
	if !ok {
		v.errorf(file, doc.line(p), "%s must be a string, not %s", describeJSONPath(p), jsonType(raw))
		return "", false
	}
	if s == "" {
		v.errorf(file, doc.line(p), "%s must not be empty", describeJSONPath(p))
		return "", false
	}
	return s, true
}

// unknownClaudeKey reports a key Claude Code does not read (a warning that
// fails "claude plugin validate --strict").
func (v *validator) unknownClaudeKey(file string, line int, key, where string) {
	field := key
	if where != "" {
		field = where + "." + key
	}
	if dest := codexOnlyKey(key); dest != "" {
		v.warnf(file, line, "%s is read by Codex only (it belongs in %s); claude plugin validate warns \"Unknown field\" and --strict fails", field, dest)
		return
	}
	v.warnf(file, line, "unknown field %s: Claude Code ignores it; claude plugin validate warns and --strict fails", field)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func quoteValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}
