package audit

import (
	"path"
	"strings"
)

// depName normalises a requirement to its package name: lower case,
// "-" for "_", without version, extras or markers; a git URL gives the
// repository's name.
func depName(req string) string {
	req = strings.TrimSpace(req)
	switch {
	case strings.Contains(req, "#egg="):
		req = req[strings.Index(req, "#egg=")+len("#egg="):]
	case strings.Contains(req, " @ "):
		req, _, _ = strings.Cut(req, " @ ") // PEP 508: name @ url
	case strings.Contains(req, "://"):
		u := req
		if i := strings.LastIndexByte(u, '@'); i > strings.Index(u, "://") {
			u = u[:i] // a pinned ref: ...rsl_rl.git@v1.0.2
		}
		req = strings.TrimSuffix(path.Base(u), ".git")
	}
	if i := strings.IndexAny(req, "<>=!~;[ @(,"); i >= 0 {
		req = req[:i]
	}
	req = strings.ToLower(strings.TrimSpace(req))
	if req == "" || strings.HasPrefix(req, "-") || strings.ContainsAny(req, "/\\") {
		return ""
	}
	return strings.ReplaceAll(req, "_", "-")
}

// scanPyproject reads pyproject.toml: console scripts and dependencies.
// Only the few tables the audit needs are read, line by line.
func (sc *scanner) scanPyproject(f *facts, t *text) {
	section := ""
	inArray := false
	for i, raw := range strings.Split(t.s, "\n") {
		l := strings.TrimSpace(raw)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if strings.HasPrefix(l, "[") && !inArray {
			section = strings.Trim(l, "[] ")
			continue
		}
		switch {
		case section == "project.scripts" || section == "tool.poetry.scripts" || section == "project.gui-scripts":
			if k, v, ok := strings.Cut(l, "="); ok {
				name := strings.Trim(strings.TrimSpace(k), `"'`)
				target := strings.Trim(strings.TrimSpace(v), `"'`)
				f.scripts = append(f.scripts, hit{name: name, detail: target, line: i + 1, text: snippet(raw), conf: High})
			}
		case section == "tool.poetry.dependencies" || strings.HasPrefix(section, "tool.poetry.group."):
			if k, _, ok := strings.Cut(l, "="); ok {
				if d := depName(strings.Trim(strings.TrimSpace(k), `"'`)); d != "" && d != "python" {
					f.add(catDep, d, "", i+1, raw, High)
				}
			}
		case section == "project" || section == "project.optional-dependencies" || section == "dependency-groups":
			body := l
			if k, v, ok := strings.Cut(l, "="); ok && !inArray {
				key := strings.TrimSpace(k)
				if section == "project" && key != "dependencies" {
					continue
				}
				body = strings.TrimSpace(v)
				inArray = strings.HasPrefix(body, "[")
			}
			if !inArray {
				continue
			}
			for _, part := range strings.Split(body, ",") {
				part = strings.Trim(strings.TrimSpace(part), "[]")
				if v, ok := stringValue(strings.TrimSpace(part)); ok {
					if d := depName(v); d != "" {
						f.add(catDep, d, "", i+1, raw, High)
					}
				}
			}
			if strings.Contains(body, "]") {
				inArray = false
			}
		}
	}
}

// scanSetupCfg reads setup.cfg: console_scripts and install_requires.
func (sc *scanner) scanSetupCfg(f *facts, t *text) {
	key := ""
	for i, raw := range strings.Split(t.s, "\n") {
		l := strings.TrimSpace(raw)
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, ";") {
			continue
		}
		if strings.HasPrefix(l, "[") {
			key = ""
			continue
		}
		indented := raw[0] == ' ' || raw[0] == '\t'
		if !indented {
			k, v, _ := strings.Cut(l, "=")
			key = strings.TrimSpace(k)
			l = strings.TrimSpace(v)
			if l == "" {
				continue
			}
		}
		switch key {
		case "console_scripts":
			if k, v, ok := strings.Cut(l, "="); ok {
				f.scripts = append(f.scripts, hit{name: strings.TrimSpace(k), detail: strings.TrimSpace(v), line: i + 1, text: snippet(raw), conf: High})
			}
		case "install_requires":
			if d := depName(l); d != "" {
				f.add(catDep, d, "", i+1, raw, High)
			}
		}
	}
}

// scanRequirements reads requirements*.txt and environment.yml.
func (sc *scanner) scanRequirements(f *facts, t *text) {
	for i, raw := range strings.Split(t.s, "\n") {
		l := strings.TrimSpace(raw)
		if l == "" || strings.HasPrefix(l, "#") || strings.HasSuffix(l, ":") {
			continue
		}
		l = strings.TrimSpace(strings.TrimPrefix(l, "- "))
		if strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "-e ") {
			continue
		}
		l = strings.TrimSpace(strings.TrimPrefix(l, "-e "))
		if d := depName(l); d != "" {
			f.add(catDep, d, "", i+1, raw, High)
		}
	}
}

// scanSetupPy reads setup.py's console_scripts and install_requires.
func (p *pyScan) setupPy() {
	p.t.each("console_scripts", func(off int) bool {
		open := strings.IndexByte(p.s[off:], '[')
		if open < 0 {
			return false
		}
		inside, ok := balanced(p.s, off+open, 16384)
		if !ok {
			return false
		}
		for _, part := range splitTop(inside[1:len(inside)-1], ',') {
			if v, ok := stringValue(part); ok {
				if k, target, ok := strings.Cut(v, "="); ok {
					p.f.scripts = append(p.f.scripts, hit{name: strings.TrimSpace(k), detail: strings.TrimSpace(target),
						line: p.t.lineOf(off), text: snippet(p.t.line(off)), conf: High})
				}
			}
		}
		return false
	})
	p.t.each("install_requires", func(off int) bool {
		open := strings.IndexByte(p.s[off:], '[')
		if open < 0 || open > 80 {
			return false
		}
		inside, ok := balanced(p.s, off+open, 16384)
		if !ok {
			return false
		}
		for _, part := range splitTop(inside[1:len(inside)-1], ',') {
			if v, ok := stringValue(part); ok {
				if d := depName(v); d != "" {
					p.add(catDep, d, "", off, High)
				}
			}
		}
		return false
	})
}
