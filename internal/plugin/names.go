package plugin

import (
	"regexp"
	"strings"
	"sync"
)

// lazyRegexp compiles on first use: rlxp starts on every agent call, and
// most calls never validate a plugin.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

var (
	kebabRe = lazyRegexp(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	// Characters Codex allows in a plugin id segment.
	codexIDRe = lazyRegexp(`^[A-Za-z0-9_-]+$`)
	// Characters both hosts allow in a version (Codex uses it as a directory name).
	versionRe = lazyRegexp(`^[A-Za-z0-9._+-]+$`)
	// Claude Code treats marketplace names matching this as impersonating an
	// official marketplace.
	impersonationRe = lazyRegexp(`(?i)(?:official[^a-z0-9]*(anthropic|claude)|(?:anthropic|claude)[^a-z0-9]*official|^(?:anthropic|claude)[^a-z0-9]*(marketplace|plugins|official))`)
	// Hex colour for Codex interface.brandColor.
	brandColorRe = lazyRegexp(`^#[0-9A-Fa-f]{6}$`)
)

// isReservedMarketplaceName reports the official and community marketplace
// names that "claude plugin marketplace add" refuses for a local source.
func isReservedMarketplaceName(k string) bool {
	return oneOf(k,
		"claude-code-marketplace",
		"claude-code-plugins",
		"claude-plugins-official",
		"anthropic-marketplace",
		"anthropic-plugins",
		"agent-skills",
		"anthropic-agent-skills",
		"life-sciences",
		"knowledge-work-plugins",
		"claude-for-legal",
		"claude-for-financial-services",
		"financial-services-plugins",
		"claude-community",
		"claude-plugins-community",
	)
}

// internalMarketplaceName explains names used by Claude Code itself.
func internalMarketplaceName(k string) string {
	switch k {
	case "inline":
		return "it is reserved for --plugin-dir session plugins"
	case "builtin":
		return "it is reserved for built-in plugins"
	case "skills-dir":
		return "it is reserved for plugins auto-loaded from .claude/skills/"
	}
	return ""
}

// checkMarketplaceName reports problems with a marketplace name.
func (v *validator) checkMarketplaceName(file string, line int, name string) {
	lower := strings.ToLower(name)
	switch {
	case strings.ContainsAny(name, " \t"):
		v.errorf(file, line, "marketplace name %q contains spaces; Claude Code rejects it (use kebab-case)", name)
		return
	case strings.ContainsAny(name, `/\`) || strings.Contains(name, "..") || name == ".":
		v.errorf(file, line, "marketplace name %q contains a path separator or \"..\"; Claude Code rejects it", name)
		return
	case isReservedMarketplaceName(lower):
		v.errorf(file, line, "marketplace name %q is reserved for official marketplaces; \"claude plugin marketplace add\" refuses it", name)
		return
	case internalMarketplaceName(lower) != "":
		v.errorf(file, line, "marketplace name %q cannot be used: %s", name, internalMarketplaceName(lower))
		return
	case impersonationRe().MatchString(name):
		v.errorf(file, line, "marketplace name %q impersonates an official Anthropic/Claude marketplace; Claude Code rejects it", name)
		return
	case strings.HasPrefix(lower, "anthropic") || strings.HasPrefix(lower, "claude") || lower == "npm" || lower == "github":
		v.warnf(file, line, "marketplace name %q is close to names Claude Code reserves (claude-*, anthropic-*, source types); pick a neutral name", name)
	}
	for _, r := range name {
		if r < 0x20 || r > 0x7e {
			v.errorf(file, line, "marketplace name %q contains non-ASCII characters; Claude Code rejects it", name)
			return
		}
	}
	if !kebabRe().MatchString(name) {
		v.warnf(file, line, "marketplace name %q is not kebab-case (lowercase letters, digits, hyphens); only those are safe in both hosts and in \"plugin@marketplace\" ids", name)
	}
}

// checkPluginName reports problems with a plugin name as the host that reads
// file sees it.
func (v *validator) checkPluginName(file string, line int, name string, codex bool) {
	switch {
	case strings.ContainsAny(name, " \t"):
		v.errorf(file, line, "plugin name %q contains spaces; Claude Code rejects it (use kebab-case)", name)
		return
	case strings.ContainsAny(name, `@:/\`):
		v.errorf(file, line, "plugin name %q contains '@', ':' or a path separator; it cannot form a \"plugin@marketplace\" id or a \"plugin:skill\" namespace", name)
		return
	}
	if codex && !codexIDRe().MatchString(name) {
		v.errorf(file, line, "plugin name %q is not a valid Codex plugin id (ASCII letters, digits, '_' and '-')", name)
		return
	}
	if !kebabRe().MatchString(name) {
		v.warnf(file, line, "plugin name %q is not kebab-case; \"claude plugin validate\" warns and --strict fails", name)
	}
}

// checkVersion reports a version with characters Codex refuses.
func (v *validator) checkVersion(file string, line int, version string) {
	if !versionRe().MatchString(version) {
		v.errorf(file, line, "version %q may only contain ASCII letters, digits, '.', '+', '_' and '-'; Codex refuses to install it and both hosts use it as a cache directory name", version)
	}
}
