package audit

import (
	"regexp"
	"strings"
)

// Environments of robot-learning frameworks (legged_gym, Isaac Lab) sum
// each reward term over an episode and hand the sums to the framework in
// a dict built in a loop over the reward names of their config:
//
//	for key in self.episode_sums.keys():
//	    self.extras["episode"]['rew_' + key] = ...
//
// with episode_sums = {name: ... for name in self.reward_scales.keys()}
// and reward_scales = class_to_dict(self.cfg.rewards.scales). The
// framework logs each key under its own prefix (rsl_rl: Episode/). The
// names are the attributes of the config class, so the tags are drafted
// with them.

var (
	forLoop = regexp.MustCompile(`^(\s*)for\s+(\w+)(?:\s*,\s*\w+)?\s+in\s+(.+?):\s*(?:#.*)?$`)
	// A key written into a dict: d['rew_' + key] = or d[f"rew_{key}"] =.
	loopKey = regexp.MustCompile(`^\s*([\w.]+(?:\[["']\w+["']\])*)\[\s*(?:(['"])(\w*)['"]\s*\+\s*(\w+)|f(['"])(\w*)\{(\w+)\}(\w*)['"])\s*\]\s*=[^=]`)
	// A dict built over another's keys: d = {name: ... for name in src}.
	dictOver = regexp.MustCompile(`\{\s*(\w+)\s*:[^{}]*?\bfor\s+(\w+)\s+in\s+([\w.()]+)`)
	// A value read from a config class: class_to_dict(self.cfg.rewards.scales).
	cfgPath = regexp.MustCompile(`\bcfg((?:\.\w+)+)`)
)

// A loopKey is a key pattern a loop writes into a dict.
type loopKeyHit struct {
	f           *facts
	line        int
	text        string
	dict        string // the dict written: self.extras["episode"]
	pre, suffix string
	names       []string
}

// collection strips a loop's iterable down to the variable it iterates:
// list(self.episode_sums.keys()) -> episode_sums.
func collection(expr string) string {
	e := strings.TrimSpace(expr)
	for _, w := range []string{"list(", "sorted(", "tuple("} {
		if strings.HasPrefix(e, w) && strings.HasSuffix(e, ")") {
			e = e[len(w) : len(e)-1]
		}
	}
	for _, s := range []string{".keys()", ".items()"} {
		e = strings.TrimSuffix(e, s)
	}
	e = strings.TrimPrefix(e, "self.")
	if !isName(e) {
		return ""
	}
	return e
}

// loopKeys finds the dict keys a file writes in loops over a collection
// whose names a config class lists.
func (a *assembler) loopKeys(f *facts, classes map[string][]string) []loopKeyHit {
	if f.src == "" || !strings.Contains(f.src, "for ") {
		return nil
	}
	lines := strings.Split(f.src, "\n")
	var out []loopKeyHit
	for i, l := range lines {
		m := forLoop.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		coll := collection(m[3])
		if coll == "" {
			continue
		}
		indent := len(m[1])
		for j := i + 1; j < len(lines) && j < i+40; j++ {
			b := lines[j]
			t := strings.TrimLeft(b, " \t")
			if t == "" || t[0] == '#' {
				continue
			}
			if len(b)-len(t) <= indent {
				break
			}
			k := loopKey.FindStringSubmatch(b)
			if k == nil {
				continue
			}
			pre, v, suffix := k[3], k[4], ""
			if k[5] != "" {
				pre, v, suffix = k[6], k[7], k[8]
			}
			if v != m[2] {
				continue
			}
			names := configNames(f.src, coll, classes, 3)
			if len(names) == 0 {
				continue
			}
			out = append(out, loopKeyHit{f: f, line: j + 1, text: snippet(b), dict: k[1], pre: pre, suffix: suffix, names: names})
		}
	}
	return out
}

// configNames are the names a collection of src holds when it is built
// from a config class's attributes, following dicts built over other
// dicts up to depth steps.
func configNames(src, coll string, classes map[string][]string, depth int) []string {
	if depth == 0 {
		return nil
	}
	for _, asg := range []string{"self." + coll + " = ", "\n" + coll + " = ", " " + coll + " = "} {
		for off := 0; ; {
			i := strings.Index(src[off:], asg)
			if i < 0 {
				break
			}
			at := off + i + len(asg)
			off = at
			rhs := src[at:min(len(src), at+400)]
			if m := dictOver.FindStringSubmatch(rhs); m != nil && strings.HasPrefix(strings.TrimSpace(rhs), "{") && m[1] == m[2] {
				if inner := collection(m[3]); inner != "" && inner != coll {
					if names := configNames(src, inner, classes, depth-1); len(names) > 0 {
						return names
					}
				}
				continue
			}
			stmt, _, _ := strings.Cut(rhs, "\n")
			if m := cfgPath.FindStringSubmatch(stmt); m != nil {
				parts := strings.Split(strings.TrimPrefix(m[1], "."), ".")
				if len(parts) >= 2 {
					if names := classes[parts[len(parts)-2]+"."+parts[len(parts)-1]]; len(names) > 0 {
						return names
					}
				}
			}
		}
	}
	return nil
}

// configClasses lists the attributes of classes nested in classes
// (class rewards: class scales: tracking_lin_vel = 1.0), by
// "outer.inner", over every Python file, in order of first appearance.
func (a *assembler) configClasses() map[string][]string {
	out := map[string][]string{}
	seen := map[string]bool{}
	for _, f := range a.files {
		if f.kind != kindPython || f.src == "" || !strings.Contains(f.src, "class ") || isTestPath(f.path) {
			continue
		}
		var stack []struct {
			name   string
			indent int
		}
		for _, l := range strings.Split(f.src, "\n") {
			t := strings.TrimLeft(l, " \t")
			if t == "" || t[0] == '#' {
				continue
			}
			indent := len(l) - len(t)
			for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
				stack = stack[:len(stack)-1]
			}
			if name, ok := strings.CutPrefix(t, "class "); ok {
				n := 0
				for n < len(name) && isIdent(name[n]) {
					n++
				}
				stack = append(stack, struct {
					name   string
					indent int
				}{name[:n], indent})
				continue
			}
			if len(stack) < 2 || strings.HasPrefix(t, "def ") {
				continue
			}
			attr, _, ok := strings.Cut(t, "=")
			attr = strings.TrimSpace(attr)
			if !ok || !isName(attr) || strings.HasPrefix(strings.TrimSpace(t[len(attr):]), "==") {
				continue
			}
			key := stack[len(stack)-2].name + "." + stack[len(stack)-1].name
			if !seen[key+" "+attr] {
				seen[key+" "+attr] = true
				out[key] = append(out[key], attr)
			}
		}
	}
	return out
}

// episodeTags adds the tags a framework logs from the keys an
// environment writes into its episode dict in a loop over config names.
func (a *assembler) episodeTags(idx map[string]int) {
	prefix, backend := "", ""
	for _, i := range a.trusted() {
		if p := a.profiles[i]; p.EpisodeKeys != "" {
			prefix = p.EpisodeKeys
			if len(p.Backends) > 0 {
				backend = p.Backends[0]
			}
			break
		}
	}
	if prefix == "" {
		return
	}
	var classes map[string][]string
	for _, f := range a.files {
		if f.kind != kindPython || !strings.Contains(f.src, `["episode"]`) && !strings.Contains(f.src, `['episode']`) {
			continue
		}
		if classes == nil {
			classes = a.configClasses()
		}
		for _, h := range a.loopKeys(f, classes) {
			if !strings.HasSuffix(h.dict, `["episode"]`) && !strings.HasSuffix(h.dict, `['episode']`) {
				continue
			}
			for _, n := range h.names {
				tag := prefix + h.pre + n + h.suffix
				if _, ok := idx[tag]; ok {
					continue
				}
				// One term of the reward, not the reward a run is judged by.
				role := tagRole(tag)
				if role == roleTrainReward {
					role = "task_term"
				}
				idx[tag] = len(a.rep.Tags)
				a.rep.Tags = append(a.rep.Tags, Tag{Tag: tag, Backend: backend, Role: role, Confidence: Medium,
					Evidence: []Evidence{ev(h.f, h.line, h.text)}})
			}
		}
	}
}
