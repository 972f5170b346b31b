package audit

import (
	"strings"
)

func (p *pyScan) tag(tag, backend string, off int, conf Confidence) {
	tag = strings.TrimSpace(tag)
	for strings.Contains(tag, "**") {
		tag = strings.ReplaceAll(tag, "**", "*")
	}
	if tag == "" || len(tag) > 200 || strings.ContainsAny(tag, "\n\r\t") || !literalEnough(tag) {
		return
	}
	for i, t := range p.f.tags {
		if t.tag == tag {
			if rank(conf) > rank(t.conf) {
				p.f.tags[i].conf = conf
			}
			return
		}
	}
	fn := enclosingFunc(p.s, off)
	p.f.tags = append(p.f.tags, tagHit{tag: tag, backend: backend, line: p.t.lineOf(off), text: snippet(p.t.line(off)), conf: conf,
		eval: evalFunc(fn), train: trainFunc(fn)})
}

// literalEnough reports a tag pattern with enough written text to find
// it by: a literal first segment, or a literal segment after a slash.
func literalEnough(tag string) bool {
	segs := strings.Split(tag, "/")
	lit := func(s string) bool {
		return !strings.Contains(s, "*") && strings.IndexFunc(s, func(r rune) bool { return r < 128 && isAlpha(byte(r)) }) >= 0
	}
	if lit(segs[0]) {
		return true
	}
	for _, s := range segs[1:] {
		if lit(s) {
			return true
		}
	}
	return false
}

// tagCalls take the tag as their first argument.
var tagCalls = []struct{ lit, backend string }{
	{"add_scalar(", "tensorboard"},
	{"add_scalars(", "tensorboard"},
	{"tf.summary.scalar(", "tensorboard"},
	{"logger.record(", "sb3"},
	{"logger.record_mean(", "sb3"},
	{"mlflow.log_metric(", "mlflow"},
	{"self.log(", "lightning"},
	// key-value loggers (OpenAI Baselines, rllab, PyMARL)
	{"logger.logkv(", "logger"},
	{"logger.logkv_mean(", "logger"},
	{"logger.record_tabular(", "logger"},
	{"logger.log_stat(", "logger"},
}

// dictCalls take a dict of tags to values as their first argument, or
// as a later one after the name of a group (logger.log_data("results",
// {...})); a literal prefix= puts the keys under it (logger.add({...},
// prefix="episode") logs episode/score).
var dictCalls = []struct{ lit, backend string }{
	{"wandb.log(", "wandb"},
	{".log({", ""},
	{".log(dict(", ""},
	{"log_metrics(", ""},
	{"log_dict(", "lightning"},
	{"log_data(", ""},
	{"logger.add(", "logger"},
	{"mlflow.log_metrics(", "mlflow"},
	{"swanlab.log(", "swanlab"},
	{"metrics.update(", "dict"},
}

// meterCalls update a named meter or aggregator whose values a logger
// writes under that name (aggregator.update("Loss/value_loss", v)).
// A dict's update takes no string, so a tag-shaped string first is a
// meter's name.
var meterCalls = []string{".update("}

func (p *pyScan) tags() {
	for _, c := range tagCalls {
		p.t.each(c.lit, func(off int) bool {
			if !p.code(off) {
				return true
			}
			args, ok := p.call(off + len(c.lit) - 1)
			if !ok || len(args) == 0 {
				return true
			}
			arg, ok := tagArg(args)
			if !ok {
				return true
			}
			tag, ok := literalExpr(arg)
			if (!ok || strings.Contains(tag, "*")) && c.lit != "self.log(" {
				// A key of a dict logged in a loop:
				// for k, v in stats.items(): writer.add_scalar(f"train/{k}", v, step)
				if p.loopKeys(arg, c.backend, off) || !ok {
					return true
				}
			}
			if !ok || (c.lit == "self.log(" && (strings.Contains(tag, " ") || len(tag) > 80)) {
				return true
			}
			conf := High
			if strings.Contains(tag, "*") {
				conf = Medium
			}
			p.tag(tag, c.backend, off, conf)
			if len(args) > 1 {
				p.evalValue(tag, args[1])
			}
			return true
		})
	}
	// Epoch loggers (Spinning Up, rllab): log_tabular("EpRet",
	// with_min_and_max=True) writes AverageEpRet, StdEpRet, MaxEpRet and
	// MinEpRet to a tab-separated progress file; a value given, or
	// average_only, is written under the key itself.
	p.t.each("log_tabular(", func(off int) bool {
		if !p.code(off) || strings.HasPrefix(p.t.line(off), "def ") || strings.Contains(p.t.line(off), "def log_tabular(") {
			return true
		}
		args, ok := p.call(off + len("log_tabular"))
		if !ok || len(args) == 0 {
			return true
		}
		key, ok := stringValue(args[0])
		if !ok {
			return true
		}
		minmax, avgOnly, value := false, false, len(args) > 1 && !isKwarg(args[1])
		if v, ok := kwarg(args, "with_min_and_max"); ok && strings.TrimSpace(v) == "True" {
			minmax = true
		}
		if v, ok := kwarg(args, "average_only"); ok && strings.TrimSpace(v) == "True" {
			avgOnly = true
		}
		if _, ok := kwarg(args, "val"); ok {
			value = true
		}
		switch {
		case value, avgOnly:
			p.tag(key, "tsv", off, High)
		default:
			p.tag("Average"+key, "tsv", off, High)
			p.tag("Std"+key, "tsv", off, High)
		}
		if minmax && !value {
			p.tag("Max"+key, "tsv", off, High)
			p.tag("Min"+key, "tsv", off, High)
		}
		return true
	})
	for _, c := range dictCalls {
		p.t.each(c.lit, func(off int) bool {
			if !p.code(off) {
				return true
			}
			open := off + strings.IndexByte(c.lit, '(')
			args, ok := p.call(open)
			if !ok || len(args) == 0 {
				return true
			}
			backend := c.backend
			if backend == "" {
				backend = receiverBackend(p.s, off)
			}
			prefix := ""
			if v, ok := kwarg(args, "prefix"); ok {
				if pre, ok := stringValue(v); ok && pre != "" {
					prefix = pre + "/"
				}
			}
			p.dictKeys(args[0], backend, prefix, off, High)
			for _, a := range args[1:] {
				if a = strings.TrimSpace(a); !isKwarg(a) && (strings.HasPrefix(a, "{") || strings.HasPrefix(a, "dict(")) {
					p.dictKeys(a, backend, prefix, off, High)
				}
			}
			return true
		})
	}
	for _, lit := range meterCalls {
		p.t.each(lit, func(off int) bool {
			if !p.code(off) {
				return true
			}
			args, ok := p.call(off + len(lit) - 1)
			if !ok || len(args) != 2 {
				return true
			}
			if tag, ok := stringValue(args[0]); ok && p.sc.isTag(tag) {
				backend := p.fileBackend()
				if backend == "" {
					backend = "logger"
				}
				p.tag(tag, backend, off, Medium)
			}
			return true
		})
	}
	// verl style: metrics["actor/entropy"] = value
	p.t.each("metrics[", func(off int) bool {
		if !p.code(off) {
			return true
		}
		rest := p.s[off+len("metrics"):]
		inside, ok := balanced(rest, 0, 512)
		if !ok {
			return true
		}
		after := strings.TrimLeft(rest[len(inside):], " ")
		if !strings.HasPrefix(after, "=") || strings.HasPrefix(after, "==") {
			return true
		}
		if tag, ok := literalExpr(inside[1 : len(inside)-1]); ok {
			p.tag(tag, "dict", off, Medium)
		}
		return true
	})
	// Columns of a CSV header: DictWriter(f, fieldnames=COLUMNS).
	p.t.each("fieldnames=", func(off int) bool {
		expr := p.s[off+len("fieldnames="):]
		end := strings.IndexAny(expr, ",)\n")
		if end < 0 {
			return true
		}
		name := strings.TrimSpace(expr[:end])
		vals := p.f.consts[name]
		if strings.HasPrefix(name, "[") || strings.HasPrefix(name, "(") {
			if inside, ok := balanced(expr, strings.IndexAny(expr, "[("), 4096); ok {
				vals = nil
				for _, part := range splitTop(inside[1:len(inside)-1], ',') {
					if v, ok := stringValue(part); ok {
						vals = append(vals, v)
					}
				}
			}
		}
		for _, v := range vals {
			if p.sc.isTag(v) {
				p.tag(v, "csv", off, High)
			}
		}
		return true
	})
	// Tag-shaped dict keys: {"eval/mean_return": ...}.
	conf := Low
	backend := p.fileBackend()
	if backend != "" {
		conf = Medium
	} else {
		backend = "dict"
	}
	for _, q := range []string{`":`, `':`} {
		p.t.eachAll(q, func(off int) {
			start, _ := p.t.lineAt(off)
			start = max(start, off-256) // a tag is short
			open := strings.LastIndexByte(p.s[start:off], q[0])
			if open < 0 || !p.code(off) {
				return
			}
			open += start
			litStart := open
			for litStart > start && strings.IndexByte("fFrR", p.s[litStart-1]) >= 0 {
				litStart--
			}
			lit, ok := pyString(p.s[:off+1], litStart)
			if ok && lit.end == off+1 && p.sc.isTag(lit.val) {
				p.tag(lit.val, backend, off, conf)
			}
		})
	}
	// Other constants of tag-shaped strings go where the file writes.
	if backend != "dict" {
		for _, name := range sortedKeys(p.f.consts) {
			for _, v := range p.f.consts[name] {
				if !p.sc.isTag(v) {
					continue
				}
				if i := strings.Index(p.s, `"`+v+`"`); i >= 0 {
					p.tag(v, backend, i, Medium)
				}
			}
		}
	}
}

// dictKeys records the keys of a dict display or dict(...) call.
func (p *pyScan) dictKeys(expr, backend, prefix string, off int, conf Confidence) {
	expr = strings.TrimSpace(expr)
	switch {
	case isName(expr):
		// A dict filled elsewhere in the file: log_dict["value_loss"] = ...
		for _, k := range p.keysOf(expr) {
			p.tag(prefix+k.key, backend, k.off, Medium)
		}
	case strings.HasPrefix(expr, "{"):
		inside, ok := balanced(expr, 0, len(expr))
		if !ok {
			return
		}
		for _, item := range splitTop(inside[1:len(inside)-1], ',') {
			if name, ok := strings.CutPrefix(strings.TrimSpace(item), "**"); ok {
				// A dict spread into the logged one: {"speed": s, **logs}
				p.dictKeys(name, backend, prefix, off, conf)
				continue
			}
			k, v, ok := cutTop(item, ':')
			if !ok {
				continue
			}
			if tag, ok := literalExpr(k); ok {
				c := conf
				if strings.Contains(tag, "*") {
					c = Medium
				}
				p.tag(prefix+tag, backend, off, c)
				p.evalValue(prefix+tag, v)
			}
		}
	case strings.HasPrefix(expr, "dict("):
		inside, ok := balanced(expr, len("dict"), len(expr))
		if !ok {
			return
		}
		for _, item := range splitTop(inside[1:len(inside)-1], ',') {
			if k, _, ok := strings.Cut(item, "="); ok && isName(strings.TrimSpace(k)) {
				p.tag(prefix+strings.TrimSpace(k), backend, off, conf)
			}
		}
	}
}

// A dictKey is a literal key a dict of the file is given, and where.
type dictKey struct {
	key string
	off int
}

// keysOf finds the literal keys the file gives a dict variable: by
// subscript assignment (name["k"] = v), a dict literal or dict() call
// assigned to it, or update({...}) and update(k=v). The name may be an attribute's last
// part (self.stats).
func (p *pyScan) keysOf(name string) []dictKey {
	var out []dictKey
	seen := map[string]bool{}
	add := func(k string, off int) {
		if !seen[k] && (p.sc.isTag(k) || isName(k) || spacedTag(k)) {
			seen[k] = true
			out = append(out, dictKey{k, off})
		}
	}
	p.t.eachWord(name+"[", func(off int) bool {
		if !p.code(off) {
			return true
		}
		rest := p.s[off+len(name):]
		inside, ok := balanced(rest, 0, 256)
		if !ok {
			return true
		}
		after := strings.TrimLeft(rest[len(inside):], " ")
		// name["k"] = v, or a dict of lists: name["k"].append(v)
		if (!strings.HasPrefix(after, "=") || strings.HasPrefix(after, "==")) && !strings.HasPrefix(after, ".append(") {
			return true
		}
		if k, ok := stringValue(inside[1 : len(inside)-1]); ok {
			add(k, off)
		}
		return true
	})
	for _, lit := range []string{name + " = {", name + " = dict(", name + ".update({", name + ".update(dict(", name + ".update("} {
		p.t.eachWord(lit, func(off int) bool {
			if !p.code(off) {
				return true
			}
			open := off + len(lit) - 1
			inside, ok := balanced(p.s, open, 8192)
			if !ok {
				return true
			}
			body := inside[1 : len(inside)-1]
			for _, item := range splitTop(body, ',') {
				if strings.HasSuffix(lit, "(") {
					if k, _, ok := strings.Cut(item, "="); ok && isKwarg(item) && isName(strings.TrimSpace(k)) {
						add(strings.TrimSpace(k), off)
					}
					continue
				}
				if k, _, ok := cutTop(item, ':'); ok {
					if v, ok := stringValue(k); ok {
						add(v, off)
					}
				}
			}
			return true
		})
	}
	return out
}

// loopKeys resolves a tag argument built from names whose values are
// known statically: the keys of a dict looped over (for k, v in
// stats.items()), the items of a literal list or tuple or of a module
// constant looped over (for k in ["loss", "entropy"]), or a name assigned
// a string literal above (prefix = "train"), in an f-string,
// "%s/%s" % (prefix, k), "{}/{}".format(...) or a concatenation.
func (p *pyScan) loopKeys(arg, backend string, off int) bool {
	t, ok := templateOf(arg)
	if !ok {
		return false
	}
	head := p.s[max(0, off-2048):off]
	tags := []string{""}
	for _, part := range t {
		vals := []string{part.lit}
		if part.hole != "" {
			if vals = p.holeValues(head, part.hole); len(vals) == 0 {
				return false
			}
		}
		var next []string
		for _, pre := range tags {
			for _, v := range vals {
				if len(next) < 64 {
					next = append(next, pre+v)
				}
			}
		}
		tags = next
	}
	n := 0
	for _, tag := range tags {
		if tagKey(tag) {
			p.tag(tag, backend, off, Medium)
			n++
		}
	}
	return n > 0
}

// holeValues are the values a name in a tag expression takes, as far as
// the text above the call tells: the nearest loop over it, or else the
// nearest assignment of a string literal to it.
func (p *pyScan) holeValues(head, v string) []string {
	loop := max(strings.LastIndex(head, "for "+v+","), strings.LastIndex(head, "for "+v+" in "))
	assign := strings.LastIndex(head, v+" = ")
	if assign > 0 && isIdent(head[assign-1]) {
		assign = -1
	}
	if assign > loop {
		line, _, _ := strings.Cut(head[assign+len(v+" = "):], "\n")
		if s, ok := stringValue(line); ok {
			return []string{s}
		}
		return nil
	}
	if loop < 0 {
		return nil
	}
	rest, _, _ := strings.Cut(head[loop:], "\n")
	_, src, ok := strings.Cut(rest, " in ")
	if !ok {
		return nil
	}
	src = strings.TrimSuffix(strings.TrimSpace(src), ":")
	var out []string
	switch {
	case strings.HasPrefix(src, "[") || strings.HasPrefix(src, "("):
		for _, item := range splitTop(src[1:len(src)-1], ',') {
			if s, ok := stringValue(item); ok {
				out = append(out, s)
			}
		}
		return out
	case strings.HasSuffix(src, ".items()"), strings.HasSuffix(src, ".keys()"):
		src = src[:strings.LastIndexByte(src, '.')]
	}
	if vals, ok := p.f.consts[src]; ok {
		return vals
	}
	if j := strings.LastIndexByte(src, '.'); j >= 0 {
		src = src[j+1:]
	}
	if !isName(src) {
		return nil
	}
	for _, k := range p.keysOf(src) {
		out = append(out, k.key)
	}
	return out
}

// cutTop cuts s at the first sep outside brackets and strings.
func cutTop(s string, sep byte) (string, string, bool) {
	parts := splitTop(s, sep)
	if len(parts) < 2 {
		return s, "", false
	}
	return parts[0], s[len(parts[0])+1:], true
}

func isName(s string) bool {
	if s == "" || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isIdent(s[i]) {
			return false
		}
	}
	return true
}

// receiverBackend guesses the backend of x.log({...}) from x.
func receiverBackend(s string, off int) string {
	start := off
	for start > 0 && (isIdent(s[start-1]) || s[start-1] == '.') {
		start--
	}
	recv := strings.ToLower(s[start:off])
	switch {
	case strings.Contains(recv, "wandb") || recv == "run" || strings.HasSuffix(recv, ".run"):
		return "wandb"
	case strings.Contains(recv, "accelerator"):
		return "accelerate"
	case strings.Contains(recv, "swanlab"):
		return "swanlab"
	case strings.Contains(recv, "mlflow"):
		return "mlflow"
	}
	return "logger"
}

// enclosingFunc names the innermost function or method holding off.
func enclosingFunc(s string, off int) string {
	start := strings.LastIndexByte(s[:off], '\n') + 1
	line := s[start:]
	indent := len(line) - len(strings.TrimLeft(line, " \t"))
	for end := start - 1; end > 0; {
		ls := strings.LastIndexByte(s[:end], '\n') + 1
		l := s[ls:end]
		t := strings.TrimLeft(l, " \t")
		end = ls - 1
		// A closing bracket ends a header or call spread over lines
		// (def f(\n    a,\n):), not the block.
		if t == "" || t[0] == '#' || t[0] == ')' || t[0] == ']' || t[0] == '}' || len(l)-len(t) >= indent {
			continue
		}
		indent = len(l) - len(t)
		t = strings.TrimPrefix(t, "async ")
		if name, ok := strings.CutPrefix(t, "def "); ok {
			if i := strings.IndexByte(name, '('); i > 0 {
				return strings.TrimSpace(name[:i])
			}
		}
		if strings.HasPrefix(t, "class ") || indent == 0 {
			return ""
		}
	}
	return ""
}

// evalVarName says whether a variable's name is named for evaluation. "val"
// counts only as its first word before another (val_acc, val_loss): in
// old_val, q_val or next_val it is a value, not validation.
func evalVarName(name string) bool {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	for i, w := range words {
		if w == "val" && (i > 0 || len(words) == 1) {
			continue
		}
		if evalFunc(w) {
			return true
		}
	}
	return false
}

// evalValue marks a tag held out when the value logged under it is named
// for evaluation (normalized_eval_score, test_returns, val_acc): a name
// with an eval, test or val word, not one that merely starts with the
// letters (values, value_loss).
func (p *pyScan) evalValue(tag, value string) {
	eval := false
	for _, w := range strings.FieldsFunc(value, func(r rune) bool { return !(r < 128 && isIdent(byte(r))) }) {
		eval = eval || !isDigit(w[0]) && evalVarName(w)
	}
	if !eval {
		return
	}
	for i := range p.f.tags {
		if p.f.tags[i].tag == tag {
			p.f.tags[i].eval = true
		}
	}
}
