package plugin

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// claudeHookEvent reports the events Claude Code 2.1.197 accepts in a hooks
// file; "claude plugin validate" rejects any other key ("Invalid key in
// record").
func claudeHookEvent(e string) bool {
	return oneOf(e, "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification",
		"UserPromptSubmit", "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop", "StopFailure",
		"SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "PermissionRequest", "PermissionDenied",
		"Setup", "TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult",
		"ConfigChange", "WorktreeCreate", "WorktreeRemove", "InstructionsLoaded", "CwdChanged", "FileChanged",
		"MessageDisplay")
}

// codexHookEvent reports the events Codex 0.171 reads from a hooks file; it
// ignores the hooks of any other event without a word.
func codexHookEvent(e string) bool {
	return oneOf(e, "PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact", "PostCompact",
		"SessionStart", "SessionEnd", "UserPromptSubmit", "SubagentStart", "SubagentStop", "Stop",
		"Interrupt", "PreModelRequest")
}

// exactMatcherRe is a matcher both hosts compare as a list of tool names
// rather than as a regular expression.
var exactMatcherRe = lazyRegexp(`^[A-Za-z0-9_|]*$`)

// pluginRootRe finds a script the plugin root variable points at.
var pluginRootRe = lazyRegexp(`\$\{?(?:CLAUDE_)?PLUGIN_ROOT\}?/([^\s"'` + "`" + `;|&)]+)`)

// checkHooksFile checks a hooks JSON file of the plugin in dir and returns
// the events it has hooks for.
func (v *validator) checkHooksFile(dir, file string) []string {
	doc := v.readJSON(file)
	if doc == nil {
		return nil
	}
	return v.checkHooksDoc(dir, file, doc)
}

// checkHooksDoc checks a decoded hooks file of the plugin in dir: the
// "hooks" wrapper, event names both hosts know, matchers, and command hooks
// that run a script the plugin has. It returns the events with hooks.
func (v *validator) checkHooksDoc(dir, file string, doc *jsonDoc) []string {
	top, ok := doc.Value.(map[string]any)
	if !ok {
		v.errorf(file, 1, "must be a JSON object with a top-level \"hooks\" key, not %s", jsonType(doc.Value))
		return nil
	}
	raw, present := top["hooks"]
	if !present {
		for _, k := range sortedKeys(top) {
			if k != "" && k[0] >= 'A' && k[0] <= 'Z' {
				v.errorf(file, doc.line(k), "missing the top-level \"hooks\" wrapper: write {\"hooks\": {%q: [...]}}; without it Claude Code fails (\"hooks: Invalid input: expected record\")", k)
				return nil
			}
		}
		v.errorf(file, 1, "missing the top-level \"hooks\" object that maps event names to matcher groups")
		return nil
	}
	for _, k := range sortedKeys(top) {
		if k != "hooks" && k != "description" {
			v.errorf(file, doc.line(k), "unknown top-level key %q: Codex then ignores every hook in the file; only \"hooks\" and \"description\" are allowed", k)
		}
	}
	events, ok := raw.(map[string]any)
	if !ok {
		v.errorf(file, doc.line("hooks"), "\"hooks\" must be an object mapping event names to matcher groups, not %s", jsonType(raw))
		return nil
	}
	var found []string
	for _, ev := range sortedKeys(events) {
		p := "hooks." + ev
		switch {
		case !claudeHookEvent(ev) && !codexHookEvent(ev):
			v.errorf(file, doc.line(p), "unknown hook event %q: \"claude plugin validate\" fails (\"Invalid key in record\") and Codex ignores it", ev)
			continue
		case !claudeHookEvent(ev):
			v.errorf(file, doc.line(p), "%q is a Codex event only: \"claude plugin validate\" fails (\"Invalid key in record\")", ev)
		case !codexHookEvent(ev):
			v.warnf(file, doc.line(p), "Codex has no %s event and ignores these hooks silently; they run in Claude Code only", ev)
		}
		groups, ok := events[ev].([]any)
		if !ok {
			v.errorf(file, doc.line(p), "hooks.%s must be an array of matcher groups, not %s", ev, jsonType(events[ev]))
			continue
		}
		if v.checkMatcherGroups(dir, file, doc, ev, groups) {
			found = append(found, ev)
		}
	}
	sort.Strings(found)
	return found
}

// guardTools are the tools whose PreToolUse calls rlxp guard must see: the
// shell tool (Bash in both hosts) and the file-writing tools (Claude Code's
// Edit, Write, MultiEdit and NotebookEdit; Codex's apply_patch), so that
// the records rlxp alone writes are written by rlxp alone.
var guardTools = []string{"Bash", "Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch"}

// guardCommandRe finds a hook command that runs rlxp guard.
var guardCommandRe = lazyRegexp(`rlxp"?\s+guard\b`)

// checkMatcherGroups checks an event's matcher groups and reports whether
// any holds a hook. When PreToolUse groups run rlxp guard, their matchers
// together must select every tool in guardTools.
func (v *validator) checkMatcherGroups(dir, file string, doc *jsonDoc, ev string, groups []any) bool {
	has := false
	var guardMatchers []string
	defer func() {
		if ev != "PreToolUse" || len(guardMatchers) == 0 {
			return
		}
		for _, tool := range guardTools {
			selected := false
			for _, m := range guardMatchers {
				selected = selected || matcherSelects(m, tool)
			}
			if !selected {
				v.errorf(file, doc.line("hooks."+ev), "no PreToolUse matcher sends %s to rlxp guard: the guard then never sees what that tool does (matchers must together name %s)", tool, strings.Join(guardTools, ", "))
			}
		}
	}()
	for gi, g := range groups {
		gp := "hooks." + ev + "." + strconv.Itoa(gi)
		gm, ok := g.(map[string]any)
		if !ok {
			v.errorf(file, doc.line(gp), "hooks.%s[%d] must be an object with \"matcher\" and \"hooks\"", ev, gi)
			continue
		}
		if m, present := gm["matcher"]; present {
			s, ok := m.(string)
			if !ok {
				v.errorf(file, doc.line(gp+".matcher"), "hooks.%s[%d].matcher must be a string", ev, gi)
			} else if !exactMatcherRe().MatchString(s) && s != "*" {
				if _, err := regexp.Compile(s); err != nil {
					v.errorf(file, doc.line(gp+".matcher"), "hooks.%s[%d].matcher %q is not a valid regular expression: Codex skips the group (\"invalid matcher\")", ev, gi, s)
				}
			}
		}
		list, ok := gm["hooks"].([]any)
		if !ok {
			v.errorf(file, doc.line(gp), "hooks.%s[%d].hooks must be an array of hook commands", ev, gi)
			continue
		}
		if m, ok := validMatcher(gm); ok {
			for _, h := range list {
				if hm, ok := h.(map[string]any); ok {
					if cmd, _ := hm["command"].(string); guardCommandRe().MatchString(cmd) {
						guardMatchers = append(guardMatchers, m)
						break
					}
				}
			}
		}
		for hi, h := range list {
			if v.checkHook(dir, file, doc, gp+".hooks."+strconv.Itoa(hi), "hooks."+ev+"["+strconv.Itoa(gi)+"].hooks["+strconv.Itoa(hi)+"]", h) {
				has = true
			}
		}
	}
	return has
}

// checkHook checks one hook handler at JSON path hp (where names it in
// messages) and reports whether it is one.
func (v *validator) checkHook(dir, file string, doc *jsonDoc, hp, where string, h any) bool {
	hm, ok := h.(map[string]any)
	if !ok {
		v.errorf(file, doc.line(hp), "%s must be an object", where)
		return false
	}
	typ, _ := hm["type"].(string)
	switch typ {
	case "":
		v.errorf(file, doc.line(hp), "%s.type is required (e.g. \"command\"): both hosts reject the file without it", where)
		return false
	case "command":
		cmd, _ := hm["command"].(string)
		if cmd == "" {
			v.errorf(file, doc.line(hp), "%s.command is required for a command hook", where)
		} else {
			if !pluginRootQuoted(cmd) {
				v.warnf(file, doc.line(hp+".command"), "%s.command uses the plugin root unquoted; write \"\\\"${CLAUDE_PLUGIN_ROOT}/scripts/...\\\"\" so paths with spaces work in both hosts (Codex runs it through $SHELL -lc)", where)
			}
			v.checkHookScripts(dir, file, doc.line(hp+".command"), where, cmd)
		}
	case "prompt", "agent":
		v.warnf(file, doc.line(hp+".type"), "%s is a %s hook: Codex runs command hooks only", where, typ)
	case "http", "mcp_tool":
		v.errorf(file, doc.line(hp+".type"), "%s is an %s hook: Codex cannot read the file then and ignores every hook in it", where, typ)
	default:
		v.errorf(file, doc.line(hp+".type"), "%s.type %q is not a hook type (command, prompt, agent, http, mcp_tool): both hosts reject the file", where, typ)
	}
	if t, present := hm["timeout"]; present {
		if n, ok := t.(json.Number); !ok || !positiveInt(n.String()) {
			v.errorf(file, doc.line(hp+".timeout"), "%s.timeout must be a whole number of seconds above 0: Codex ignores every hook in the file otherwise", where)
		}
	}
	if async, _ := hm["async"].(bool); async {
		v.warnf(file, doc.line(hp+".async"), "%s is async: Codex skips async hooks", where)
	}
	return true
}

// checkHookScripts checks that each script a hook command reaches through
// the plugin root exists, and that the one it runs directly is executable:
// a hook that cannot start fails, and both hosts then let the tool call
// through.
func (v *validator) checkHookScripts(dir, file string, line int, where, cmd string) {
	for _, m := range pluginRootRe().FindAllStringSubmatchIndex(cmd, -1) {
		rel := pj(dir, cmd[m[2]:m[3]])
		fi, err := v.stat(rel)
		switch {
		case err != nil || fi.IsDir():
			v.errorf(file, line, "%s.command runs %s, which the plugin does not have: the hook cannot start, so it never blocks anything", where, rel)
		case strings.Trim(cmd[:m[0]], `" `) == "" && fi.Mode().Perm()&0o111 == 0: // the program itself
			v.errorf(file, line, "%s.command runs %s, which is not executable: the hook fails with \"permission denied\" and never blocks anything (chmod +x)", where, rel)
		}
	}
}

// validMatcher is a group's matcher ("" when absent, which selects every
// tool) when it is a string both hosts can use.
func validMatcher(group map[string]any) (string, bool) {
	m, present := group["matcher"]
	if !present {
		return "", true
	}
	s, ok := m.(string)
	if !ok {
		return "", false
	}
	if exactMatcherRe().MatchString(s) || s == "*" {
		return s, true
	}
	_, err := regexp.Compile(s)
	return s, err == nil
}

// matcherSelects applies a matcher the way both hosts do: names separated
// by | compare exactly; anything else is a regular expression. Codex also
// selects apply_patch by Write and Edit.
func matcherSelects(matcher, tool string) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	if exactMatcherRe().MatchString(matcher) {
		for _, m := range strings.Split(matcher, "|") {
			if m == tool {
				return true
			}
		}
		return false
	}
	re, err := regexp.Compile(matcher)
	return err == nil && re.MatchString(tool)
}

// positiveInt reports a JSON number that is a whole number above 0.
func positiveInt(s string) bool {
	n, err := strconv.ParseUint(s, 10, 32)
	return err == nil && n > 0
}

// pluginRootQuoted reports whether every use of the plugin root variable in a
// shell command sits inside double quotes.
func pluginRootQuoted(cmd string) bool {
	inDouble, inSingle := false, false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == '\\' && !inSingle:
			i++
		case c == '"' && !inSingle:
			inDouble = !inDouble
		case c == '\'' && !inDouble:
			inSingle = !inSingle
		case c == '$':
			rest := cmd[i:]
			for _, ph := range []string{"${CLAUDE_PLUGIN_ROOT}", "$CLAUDE_PLUGIN_ROOT", "${PLUGIN_ROOT}", "$PLUGIN_ROOT"} {
				if strings.HasPrefix(rest, ph) {
					if !inDouble || inSingle {
						return false
					}
					break
				}
			}
		}
	}
	return true
}
