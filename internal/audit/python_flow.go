package audit

import (
	"slices"
	"strings"
)

// Tags that reach a logger through the repository's own code, across
// files: a function or method that passes its argument on to a logger (a
// wrapper, followed through several levels, with the prefix it adds from
// a literal or from another of its parameters), the dict a function
// returns that its caller logs, and a context-manager logger whose prefix
// its constructor is given.

// A sink is a function that logs: its argument arg is a tag (t with "#"
// for the argument's value) or a dict of tags (t with "#" for each key).
type sink struct {
	def     *pyDef // nil for a logger's own call
	dict    bool
	arg     string
	t       tmpl
	backend string
}

// baseSink reports a logger's own call by its callee text.
func baseSink(callee string) (sink, bool) {
	last := callee[strings.LastIndexByte(callee, '.')+1:]
	lower := strings.ToLower(callee)
	key := tmpl{{hole: "#"}}
	switch {
	case last == "add_scalar" || callee == "tf.summary.scalar":
		return sink{t: key, backend: "tensorboard"}, true
	case callee == "mlflow.log_metric":
		return sink{t: key, backend: "mlflow"}, true
	case (last == "record" || last == "record_mean") && strings.HasSuffix(lower, "logger."+last):
		return sink{t: key, backend: "sb3"}, true
	case last == "log_scalar" && strings.Contains(callee, "."):
		// torchrl and BenchMARL loggers: logger.log_scalar(name, value, step)
		return sink{t: key, backend: "logger"}, true
	case (last == "logkv" || last == "logkv_mean" || last == "record_tabular" || last == "log_stat") && strings.HasSuffix(lower, "logger."+last):
		// Key-value loggers: OpenAI Baselines' and rllab's module
		// loggers (logger.logkv("eprewmean", v), logger.record_tabular),
		// PyMARL's (self.logger.log_stat("loss", v, t)).
		return sink{t: key, backend: "logger"}, true
	case last == "log" && (strings.Contains(lower, "wandb") || strings.HasSuffix(callee, ".experiment.log")):
		// A Weights & Biases run, also as a Lightning or torchrl
		// logger's experiment.
		return sink{dict: true, t: key, backend: "wandb"}, true
	case callee == "mlflow.log_metrics":
		return sink{dict: true, t: key, backend: "mlflow"}, true
	case callee == "swanlab.log":
		return sink{dict: true, t: key, backend: "swanlab"}, true
	}
	return sink{}, false
}

// A flow holds the repository's Python functions and the sinks among
// them.
type flow struct {
	sc    *scanner
	defs  map[string][]*pyDef
	sinks map[string][]sink // by function name; "__call__" by class
	texts map[*facts]*text
	files []*facts // the Python files
	// adders caches adderKeys by dict attribute.
	adders map[string][]dictKey
}

// sinksOf are the sinks a call may reach.
func (fl *flow) sinksOf(c pyCall) []sink {
	name := c.callee[strings.LastIndexByte(c.callee, '.')+1:]
	if ss := fl.sinks[name]; len(ss) > 0 {
		var out []sink
		for _, s := range ss {
			// A method is called on something; a function by its name.
			if s.def.class != "" && strings.Contains(c.callee, ".") || s.def.class == "" && !strings.HasPrefix(c.callee, "self.") {
				out = append(out, s)
			}
		}
		return out
	}
	if b, ok := baseSink(c.callee); ok {
		return []sink{b}
	}
	return nil
}

// bindCall fills a sink's parameter holes with the call's arguments,
// leaving "#" and self.NAME; the argument for the key or dict comes back
// too.
func bindCall(s sink, c pyCall) (tmpl, string, bool) {
	if s.def == nil {
		a, ok := tagArg(c.args)
		return s.t, a, ok
	}
	arg, ok := argFor(c, s.def, s.arg)
	if !ok {
		return nil, "", false
	}
	t, ok := s.t.subst(func(h string) (tmpl, bool) {
		if h == "#" || strings.HasPrefix(h, "self.") {
			return tmpl{{hole: h}}, true
		}
		v, ok := argFor(c, s.def, h)
		if !ok {
			return nil, false
		}
		return templateOf(v)
	})
	return t, arg, ok
}

// derive finds the functions that pass an argument on to a sink, level by
// level.
func (fl *flow) derive() {
	seen := map[string]bool{}
	all := []*pyDef{}
	for _, ds := range fl.defs {
		all = append(all, ds...)
	}
	for round := 0; round < 4; round++ {
		added := false
		for _, d := range all {
			s := d.f.src
			want := func(name string) bool {
				if len(fl.sinks[name]) > 0 {
					return true
				}
				switch name {
				case "add_scalar", "scalar", "log_metric", "log_scalar", "record", "record_mean", "log", "log_metrics",
					"logkv", "logkv_mean", "record_tabular", "log_stat":
					return true
				}
				return false
			}
			for _, c := range callsIn(s, d.body, d.end, want) {
				for _, sk := range fl.sinksOf(c) {
					if sk.def == d {
						continue
					}
					t, arg, ok := bindCall(sk, c)
					if !ok {
						continue
					}
					nk, ok := fl.wrap(d, sk, t, arg, c.off)
					if !ok {
						continue
					}
					id := d.f.path + ":" + d.name + ":" + nk.arg + ":" + nk.t.String()
					if seen[id] {
						continue
					}
					seen[id] = true
					name := d.name
					if name == "__call__" {
						name = "__call__:" + d.class
					}
					fl.sinks[name] = append(fl.sinks[name], nk)
					added = true
				}
			}
		}
		if !added {
			return
		}
	}
}

// wrap makes d a sink when the argument it gives sink sk (with template t
// bound to the call) comes from one of its parameters.
func (fl *flow) wrap(d *pyDef, sk sink, t tmpl, arg string, off int) (sink, bool) {
	isParam := func(h string) bool {
		for _, p := range d.params {
			if p == h {
				return true
			}
		}
		return false
	}
	// What the template holds once expressed in d's terms: its holes
	// are d's parameters, self.NAME or "#".
	valid := func(t tmpl) bool {
		for _, p := range t {
			if p.hole != "" && p.hole != "#" && !isParam(p.hole) && !strings.HasPrefix(p.hole, "self.") {
				return false
			}
		}
		return true
	}
	s := d.f.src
	loop := func(v string) (string, bool) { return loopOver(s[d.body:off], v) }
	if !sk.dict {
		at, ok := templateOf(arg)
		if !ok {
			return sink{}, false
		}
		// for k, v in P.items(): log(f"train/{k}", v)
		for _, p := range at {
			if p.hole == "" || isParam(p.hole) {
				continue
			}
			if dict, ok := loop(p.hole); ok && isParam(dict) {
				if nt := compose(t, at, p.hole); valid(nt) {
					return sink{def: d, dict: true, arg: dict, t: nt, backend: sk.backend}, true
				}
			}
		}
		key := ""
		for _, p := range at {
			if isParam(p.hole) {
				key = p.hole
			}
		}
		if key == "" {
			return sink{}, false
		}
		nt := compose(t, at, key)
		if !valid(nt) {
			return sink{}, false
		}
		return sink{def: d, arg: key, t: nt, backend: sk.backend}, true
	}
	arg = strings.TrimSpace(arg)
	if isParam(arg) {
		if !valid(t) {
			return sink{}, false
		}
		return sink{def: d, dict: true, arg: arg, t: t, backend: sk.backend}, true
	}
	if strings.HasPrefix(arg, "{") {
		// for k, v in P.items(): wandb.log({f"train/{k}": v})
		inside, ok := balanced(arg, 0, len(arg))
		items := splitTop(strings.TrimSpace(inside[1:max(1, len(inside)-1)]), ',')
		if !ok || len(items) != 1 {
			return sink{}, false
		}
		k, _, ok := cutTop(items[0], ':')
		kt, tok := templateOf(strings.TrimSpace(k))
		if !ok || !tok {
			return sink{}, false
		}
		for _, p := range kt {
			if dict, ok := loop(p.hole); p.hole != "" && ok && isParam(dict) {
				if nt := compose(t, kt, p.hole); valid(nt) {
					return sink{def: d, dict: true, arg: dict, t: nt, backend: sk.backend}, true
				}
			}
		}
		return sink{}, false
	}
	if !isName(arg) {
		return sink{}, false
	}
	// A dict built from a parameter's items under new keys:
	//   for k, v in P.items(): out[EXPR] = v
	//   out = {EXPR: v for k, v in P.items()}
	body := s[d.body:off]
	var keyExpr, dict, kv string
	if i := strings.LastIndex(body, arg+"["); i >= 0 && (i == 0 || !isIdent(body[i-1])) {
		if inside, ok := balanced(body, i+len(arg), 512); ok {
			keyExpr = inside[1 : len(inside)-1]
			for _, p := range splitTop(keyExpr, '+') {
				if t, ok := templateOf(p); ok {
					for _, h := range t {
						if d2, ok := loop(h.hole); h.hole != "" && ok {
							dict, kv = d2, h.hole
						}
					}
				}
			}
		}
	}
	if dict == "" {
		if i := strings.LastIndex(body, arg+" = {"); i >= 0 {
			if inside, ok := balanced(body, i+len(arg)+3, 2048); ok {
				keyExpr, dict, kv = comprehension(inside[1 : len(inside)-1])
			}
		}
	}
	if dict == "" || !isParam(dict) {
		return sink{}, false
	}
	kt, ok := templateOf(keyExpr)
	if !ok {
		return sink{}, false
	}
	nt := compose(t, kt, kv)
	if !valid(nt) {
		return sink{}, false
	}
	return sink{def: d, dict: true, arg: dict, t: nt, backend: sk.backend}, true
}

// compose puts key template kt, with its hole key made the new key "#",
// in place of t's "#".
func compose(t, kt tmpl, key string) tmpl {
	out, _ := t.subst(func(h string) (tmpl, bool) {
		if h != "#" {
			return tmpl{{hole: h}}, true
		}
		return kt.subst(func(x string) (tmpl, bool) {
			if x == key {
				return tmpl{{hole: "#"}}, true
			}
			return tmpl{{hole: x}}, true
		})
	})
	return out
}

// loopOver finds the nearest "for v, ... in NAME.items():" in s and
// returns NAME (an attribute's last part).
func loopOver(s, v string) (string, bool) {
	i := strings.LastIndex(s, "for "+v+",")
	if i < 0 {
		return "", false
	}
	rest := s[i:]
	in := strings.Index(rest, " in ")
	end := strings.Index(rest, ".items()")
	if in < 0 || end < in || strings.Contains(rest[:end], "\n") {
		return "", false
	}
	return strings.TrimSpace(rest[in+4 : end]), true
}

// comprehension reads {KEY: v for k, v in NAME.items()}: the key
// expression, NAME and k.
func comprehension(s string) (key, dict, k string) {
	head, tail, ok := strings.Cut(s, " for ")
	if !ok {
		return "", "", ""
	}
	key, _, ok = cutTop(head, ':')
	if !ok {
		return "", "", ""
	}
	vars, src, ok := strings.Cut(tail, " in ")
	if !ok {
		return "", "", ""
	}
	k, _, _ = strings.Cut(vars, ",")
	src = strings.TrimSpace(src)
	if !strings.HasSuffix(src, ".items()") {
		return "", "", ""
	}
	return key, strings.TrimSuffix(src, ".items()"), strings.TrimSpace(k)
}

// evalFunc reports a function name that marks an evaluation path:
// evaluate, eval_policy, run_eval, test_epoch, validation_step.
func evalFunc(name string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		switch w {
		case "eval", "evaluate", "evaluation", "evaluator", "validate", "validation", "val", "valid", "test", "testing":
			return true
		}
		if strings.HasPrefix(w, "eval") {
			return true
		}
	}
	return false
}

// newFlow reads the functions of the repository's Python files.
func newFlow(sc *scanner, files []*facts) *flow {
	fl := &flow{sc: sc, defs: map[string][]*pyDef{}, sinks: map[string][]sink{}, texts: map[*facts]*text{}, adders: map[string][]dictKey{}}
	for _, f := range files {
		if f.src == "" {
			continue
		}
		fl.files = append(fl.files, f)
		for _, d := range pyDefs(f) {
			fl.defs[d.name] = append(fl.defs[d.name], d)
		}
	}
	return fl
}

func (fl *flow) text(f *facts) *text {
	t := fl.texts[f]
	if t == nil {
		t = newText(f.src, nil)
		fl.texts[f] = t
	}
	return t
}

// defAt is the innermost function of f holding off.
func (fl *flow) defAt(f *facts, off int) *pyDef {
	var in *pyDef
	for _, ds := range fl.defs {
		for _, d := range ds {
			if d.f == f && d.body <= off && off < d.end && (in == nil || d.body > in.body) {
				in = d
			}
		}
	}
	return in
}

// tagKey is a key a logging call is given: short, one word, or a
// spaced section tag ("Loss / Policy loss").
func tagKey(s string) bool {
	return s != "" && len(s) <= 100 && (!strings.ContainsAny(s, " \t\n{}()%,;") || spacedTag(s)) && literalEnough(s)
}

// spacedTag reports a TensorBoard tag written as spaced words under a
// section: "Loss / Policy loss", "Reward / Total reward (mean)".
func spacedTag(s string) bool {
	if len(s) > 100 || !strings.Contains(s, " / ") || strings.Contains(s, "  ") || strings.TrimSpace(s) != s {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isIdent(c) && !strings.ContainsRune(" /()-.", rune(c)) {
			return false
		}
	}
	return true
}

// tagArg is the tag a logger's call is given: its tag= (key=, name=)
// keyword, else its first positional argument.
func tagArg(args []string) (string, bool) {
	for _, k := range []string{"tag", "key", "name", "main_tag"} {
		if v, ok := kwarg(args, k); ok {
			return v, true
		}
	}
	if len(args) == 0 || isKwarg(args[0]) {
		return "", false
	}
	return args[0], true
}

// calls records the tags each call of a wrapper logs.
func (fl *flow) calls(files []*facts) {
	derived := func(name string) bool {
		for _, s := range fl.sinks[name] {
			if s.def != nil {
				return true
			}
		}
		return false
	}
	callable := false
	for name := range fl.sinks {
		callable = callable || strings.HasPrefix(name, "__call__:")
	}
	for _, f := range files {
		if f.src == "" {
			continue
		}
		// A logger's own dict call is followed too: the dict it logs may
		// be one a function in another module fills and returns
		// (outputs = trainer.train_iteration(); wandb.log(outputs)).
		want := func(name string) bool { return derived(name) || name == "log" || name == "log_metrics" }
		for _, c := range callsIn(f.src, 0, len(f.src), want) {
			for _, sk := range fl.sinksOf(c) {
				if sk.def == nil && !sk.dict || sk.def != nil && sk.def.f == f && sk.def.body <= c.off && c.off < sk.def.end {
					continue
				}
				fl.emit(f, sk, c, nil)
			}
		}
		if callable {
			fl.contexts(f)
		}
		fl.loops(f)
	}
}

// emit records the tags of one call of sink sk; attrs fill self.NAME.
func (fl *flow) emit(f *facts, sk sink, c pyCall, attrs map[string]string) {
	t, arg, ok := bindCall(sk, c)
	if !ok {
		return
	}
	var keys []dictKey
	d := fl.defAt(f, c.off)
	if sk.dict {
		keys = fl.dictKeys(f, arg, c.off, 5)
	} else if k, ok := stringValue(arg); ok && tagKey(k) {
		keys = []dictKey{{k, c.off}}
	} else if a := strings.TrimSpace(arg); isName(a) {
		// A name the function assigns a string above the call, or one of
		// two (prefix = "test_" if test_mode else ""): each value is a
		// part of the tag the sink completes.
		head := f.src[:c.off]
		if d != nil {
			head = f.src[d.body:c.off]
		}
		for _, v := range assignedStrings(head, a) {
			keys = append(keys, dictKey{v, c.off})
		}
	}
	eval := d != nil && evalFunc(d.name)
	tx := fl.text(f)
	for _, k := range keys {
		r, ok := t.subst(func(h string) (tmpl, bool) {
			if h == "#" {
				return tmpl{{lit: k.key}}, true
			}
			if v, ok := attrs[strings.TrimPrefix(h, "self.")]; ok {
				return tmpl{{lit: v}}, true
			}
			return nil, false
		})
		if !ok {
			continue
		}
		tag, ok := r.literal()
		if !ok || !tagKey(tag) {
			continue
		}
		addTag(f, tx, tagHit{tag: tag, backend: sk.backend, conf: Medium, eval: eval}, c.off)
	}
}

// addTag records a tag the file logs at off, once.
func addTag(f *facts, t *text, h tagHit, off int) {
	for i, x := range f.tags {
		if x.tag == h.tag {
			f.tags[i].eval = x.eval || h.eval
			return
		}
	}
	h.line, h.text = t.lineOf(off), snippet(t.line(off))
	f.tags = append(f.tags, h)
}

// contexts follows context-manager loggers: with X(..., prefix) as log:
// log("key", v), where X is a class whose __call__ logs, or a function
// returning one, and the class keeps the prefix it is given.
func (fl *flow) contexts(f *facts) {
	s := f.src
	lineStarts(s, "with", func(at, indent int) {
		expr, v, end, ok := withTarget(s, at+len("with"))
		if ok {
			fl.context(f, expr, v, end, indent)
		}
	})
}

// withTarget reads "EXPR as NAME:" after a with keyword: the expression,
// the name and where the statement's block starts.
func withTarget(s string, from int) (expr, name string, body int, ok bool) {
	colon := strings.IndexByte(s[from:], ':')
	if colon < 0 || colon > 1024 {
		return "", "", 0, false
	}
	head := strings.TrimSpace(s[from : from+colon])
	i := strings.LastIndex(head, " as ")
	if i < 0 {
		return "", "", 0, false
	}
	expr, name = strings.TrimSpace(head[:i]), strings.TrimSpace(head[i+len(" as "):])
	if !isName(name) {
		return "", "", 0, false
	}
	return expr, name, from + colon + 1, true
}

// context follows one with statement's logger: "with EXPR as v:" and
// the calls of v in its block.
func (fl *flow) context(f *facts, expr, v string, bodyAt, indent int) {
	outer := callsIn(expr, 0, len(expr), func(string) bool { return true })
	if len(outer) == 0 || outer[0].off != 0 || !strings.HasSuffix(expr, ")") {
		return
	}
	call := outer[0]
	class, ctor := call.callee[strings.LastIndexByte(call.callee, '.')+1:], call
	for _, d := range fl.defs[class] {
		// A factory: def ctx(self, step, ty): return Ctx(self, step, ty)
		r := strings.Index(d.f.src[d.body:d.end], "return ")
		if r < 0 {
			continue
		}
		ret := strings.TrimSpace(strings.SplitN(d.f.src[d.body+r+len("return "):d.end], "\n", 2)[0])
		inner := callsIn(ret, 0, len(ret), func(string) bool { return true })
		if len(inner) == 0 || inner[0].off != 0 {
			continue
		}
		args := make([]string, len(inner[0].args))
		for i, a := range inner[0].args {
			k, val, kw := strings.Cut(a, "=")
			if !isKwarg(a) {
				val, kw = a, false
			}
			if e, ok := argFor(call, d, strings.TrimSpace(val)); ok {
				val = e
			}
			args[i] = val
			if kw {
				args[i] = strings.TrimSpace(k) + "=" + val
			}
		}
		class, ctor = inner[0].callee[strings.LastIndexByte(inner[0].callee, '.')+1:], pyCall{args: args}
		break
	}
	sinks := fl.sinks["__call__:"+class]
	if len(sinks) == 0 {
		return
	}
	attrs := fl.ctorAttrs(class, ctor)
	s := f.src
	for _, c := range callsIn(s, bodyAt, blockEnd(s, nextLine(s, bodyAt), indent), func(n string) bool { return n == v }) {
		if c.callee != v {
			continue
		}
		for _, sk := range sinks {
			fl.emit(f, sk, c, attrs)
		}
	}
}

// ctorAttrs are the string attributes a class's __init__ keeps from the
// literal arguments of one construction: self.ty = ty.
func (fl *flow) ctorAttrs(class string, c pyCall) map[string]string {
	out := map[string]string{}
	for _, d := range fl.defs["__init__"] {
		if d.class != class {
			continue
		}
		body := d.f.src[d.body:d.end]
		for _, p := range d.params {
			e, ok := argFor(c, d, p)
			if !ok {
				continue
			}
			v, ok := stringValue(e)
			if !ok {
				continue
			}
			for _, line := range strings.Split(body, "\n") {
				l, r, ok := strings.Cut(strings.TrimSpace(line), "=")
				if ok && strings.TrimSpace(r) == p && strings.HasPrefix(strings.TrimSpace(l), "self.") {
					out[strings.TrimPrefix(strings.TrimSpace(l), "self.")] = v
				}
			}
		}
	}
	return out
}

// dictKeys are the literal keys of the dict expr names at off in f: a
// dict display, dict(...), a variable given keys in the file, or what
// the function it is assigned from (or updated with) returns.
func (fl *flow) dictKeys(f *facts, expr string, off, depth int) []dictKey {
	expr = strings.TrimSpace(expr)
	if depth <= 0 || expr == "" {
		return nil
	}
	p := &pyScan{sc: fl.sc, f: f, t: fl.text(f), s: f.src}
	switch {
	case strings.HasPrefix(expr, "{"):
		var out []dictKey
		if inside, ok := balanced(expr, 0, len(expr)); ok {
			for _, item := range splitTop(inside[1:len(inside)-1], ',') {
				if k, _, ok := cutTop(item, ':'); ok {
					if v, ok := stringValue(k); ok {
						out = append(out, dictKey{v, off})
					}
				}
			}
		}
		return out
	case strings.HasPrefix(expr, "dict("):
		var out []dictKey
		if inside, ok := balanced(expr, len("dict"), len(expr)); ok {
			for _, item := range splitTop(inside[1:len(inside)-1], ',') {
				if k, _, ok := strings.Cut(item, "="); ok && isName(strings.TrimSpace(k)) {
					out = append(out, dictKey{strings.TrimSpace(k), off})
				}
			}
		}
		return out
	case strings.HasSuffix(expr, ")"):
		return fl.returned(f, expr, depth-1)
	}
	name := strings.TrimPrefix(expr, "self.")
	if !isName(name) {
		return nil
	}
	out := p.keysOf(name)
	if strings.HasPrefix(expr, "self.") {
		out = append(out, fl.adderKeys(name)...)
	}
	// name = f(...), name.update(f(...)), name.update(other)
	for _, lit := range []string{name + " = ", name + " |= ", name + ".update("} {
		p.t.eachWord(lit, func(at int) bool {
			rest := f.src[at+len(lit):]
			if strings.HasSuffix(lit, "(") {
				inside, ok := balanced(f.src, at+len(lit)-1, 4096)
				if !ok {
					return true
				}
				rest = inside[1 : len(inside)-1]
			} else if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
				rest = rest[:nl]
			}
			rest = strings.TrimSpace(rest)
			if rest == expr || rest == name || strings.HasPrefix(rest, "{") || strings.HasPrefix(rest, "dict(") && lit == name+" = " {
				return true
			}
			out = append(out, fl.dictKeys(f, rest, at, depth-1)...)
			return true
		})
	}
	return out
}

// adderKeys are the literal keys the repository's calls give a dict
// attribute through a method that files its argument under it, in any
// subclass or module:
//
//	def track_data(self, tag, value): self.tracking_data[tag].append(value)
//	self.track_data("Loss / Policy loss", loss)
func (fl *flow) adderKeys(name string) []dictKey {
	if ks, ok := fl.adders[name]; ok {
		return ks
	}
	var out []dictKey
	seen := map[string]bool{}
	for _, dn := range sortedKeys(fl.defs) {
		for _, d := range fl.defs[dn] {
			if d.class == "" {
				continue
			}
			body := d.f.src[d.body:d.end]
			for _, p := range d.params {
				if !strings.Contains(body, "self."+name+"["+p+"]") {
					continue
				}
				for _, f := range fl.files {
					if !strings.Contains(f.src, "."+d.name+"(") {
						continue
					}
					for _, c := range callsIn(f.src, 0, len(f.src), func(n string) bool { return n == d.name }) {
						v, ok := argFor(c, d, p)
						if !ok || !strings.Contains(c.callee, ".") {
							continue
						}
						if k, ok := stringValue(v); ok && tagKey(k) && !seen[k] {
							seen[k] = true
							out = append(out, dictKey{k, c.off})
						}
					}
				}
			}
		}
	}
	fl.adders[name] = out
	return out
}

// returned are the keys of the dicts the functions a call in file f may
// reach return. A function of that name in f itself is the one called:
// single-file algorithms each define their own train() or update().
func (fl *flow) returned(f *facts, call string, depth int) []dictKey {
	cs := callsIn(call, 0, len(call), func(string) bool { return true })
	if len(cs) == 0 || cs[0].off != 0 || depth <= 0 {
		return nil
	}
	name := cs[0].callee[strings.LastIndexByte(cs[0].callee, '.')+1:]
	defs := fl.defs[name]
	var local []*pyDef
	for _, d := range defs {
		if d.f == f {
			local = append(local, d)
		}
	}
	if len(local) > 0 {
		defs = local
	}
	var out []dictKey
	for _, d := range defs {
		body := d.f.src[d.body:d.end]
		for i := strings.Index(body, "return "); i >= 0; {
			pos := d.body + i + len("return ")
			line := strings.SplitN(d.f.src[pos:], "\n", 2)[0]
			e := strings.TrimSpace(line)
			pos += strings.Index(line, e)
			switch {
			case strings.HasPrefix(e, "{"):
				if inside, ok := balanced(d.f.src, pos, 8192); ok {
					e = inside
				}
				// A helper that renames a dict it is given's keys:
				// return {f"{prefix}{k}": v for k, v in d.items()}
				out = append(out, fl.renamed(f, cs[0], d, e, depth)...)
			case strings.HasPrefix(e, "dict("):
				if inside, ok := balanced(d.f.src, pos+len("dict"), 8192); ok {
					e = "dict" + inside
				}
			}
			out = append(out, fl.dictKeys(d.f, e, pos, depth)...)
			j := strings.Index(body[i+1:], "return ")
			if j < 0 {
				break
			}
			i += j + 1
		}
	}
	return out
}

// loops follows a logger's own call in a loop over a dict's items whose
// keys the file does not give: the dict a function in another module
// returns (eval_stats = evaluate(...)), or a nested dict another module
// fills (info["episode"]["return"] = ...).
func (fl *flow) loops(f *facts) {
	s := f.src
	base := func(name string) bool {
		switch name {
		case "add_scalar", "scalar", "log_metric", "record", "record_mean", "log_scalar":
			return true
		}
		return false
	}
	tx := fl.text(f)
	for _, c := range callsIn(s, 0, len(s), base) {
		sk, ok := baseSink(c.callee)
		if !ok || sk.dict {
			continue
		}
		a, ok := tagArg(c.args)
		if !ok {
			continue
		}
		at, ok := templateOf(a)
		if !ok {
			continue
		}
		head := s[max(0, c.off-2048):c.off]
		for _, p := range at {
			if p.hole == "" {
				continue
			}
			src, ok := loopOver(head, p.hole)
			if !ok {
				continue
			}
			var keys []string
			if key, ok := subscript(src); ok {
				keys = fl.nestedKeys(key)
			} else {
				for _, k := range fl.dictKeys(f, src, c.off, 3) {
					keys = append(keys, k.key)
				}
			}
			d := fl.defAt(f, c.off)
			eval := d != nil && evalFunc(d.name) || evalFunc(src)
			for _, k := range keys {
				r, ok := at.subst(func(h string) (tmpl, bool) {
					if h == p.hole {
						return tmpl{{lit: k}}, true
					}
					return nil, false
				})
				if !ok {
					continue
				}
				if tag, ok := r.literal(); ok && tagKey(tag) {
					addTag(f, tx, tagHit{tag: tag, backend: sk.backend, conf: Medium, eval: eval}, c.off)
				}
			}
		}
	}
}

// subscript reads the key of NAME["key"].
func subscript(expr string) (string, bool) {
	i := strings.IndexByte(expr, '[')
	if i <= 0 || !strings.HasSuffix(expr, "]") || !isName(expr[:i]) {
		return "", false
	}
	return stringValue(expr[i+1 : len(expr)-1])
}

// nestedKeys are the keys any file gives a dict kept under key in
// another dict: x["episode"]["return"] = ...
func (fl *flow) nestedKeys(key string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range fl.files {
		s := f.src
		for _, q := range []string{`["` + key + `"][`, `['` + key + `'][`} {
			for i := strings.Index(s, q); i >= 0; {
				rest := s[i+len(q)-1:]
				if inside, ok := balanced(rest, 0, 256); ok {
					after := strings.TrimLeft(rest[len(inside):], " ")
					if k, ok := stringValue(inside[1 : len(inside)-1]); ok && strings.HasPrefix(after, "=") && !strings.HasPrefix(after, "==") && !seen[k] {
						seen[k] = true
						out = append(out, k)
					}
				}
				j := strings.Index(s[i+1:], q)
				if j < 0 {
					break
				}
				i += j + 1
			}
		}
	}
	return out
}

// assignedStrings are the values of the nearest assignment to name in
// head: a string literal, or both of a conditional's string literals
// ("test_" if test_mode else "").
func assignedStrings(head, name string) []string {
	at := -1
	for i := strings.LastIndex(head, name+" = "); i >= 0; i = strings.LastIndex(head[:i], name+" = ") {
		if i == 0 || !isIdent(head[i-1]) && head[i-1] != '.' {
			at = i
			break
		}
	}
	if at < 0 {
		return nil
	}
	expr, _, _ := strings.Cut(head[at+len(name+" = "):], "\n")
	expr = strings.TrimSpace(expr)
	if v, ok := stringValue(expr); ok {
		return []string{v}
	}
	i, j := strings.Index(expr, " if "), strings.LastIndex(expr, " else ")
	if i < 0 || j < i {
		return nil
	}
	a, okA := stringValue(expr[:i])
	b, okB := stringValue(expr[j+len(" else "):])
	if !okA || !okB {
		return nil
	}
	return []string{a, b}
}

// renamed are the keys a call of d returns when d returns a comprehension
// over a parameter's items whose key is built from the item's key and
// other parameters (dict_add_prefix(stats, "rollout/")).
func (fl *flow) renamed(f *facts, c pyCall, d *pyDef, e string, depth int) []dictKey {
	if len(e) < 2 {
		return nil
	}
	key, src, k := comprehension(e[1 : len(e)-1])
	if key == "" || !slices.Contains(d.params, src) {
		return nil
	}
	t, ok := templateOf(key)
	if !ok {
		return nil
	}
	arg, ok := argFor(c, d, src)
	if !ok {
		return nil
	}
	var out []dictKey
	for _, dk := range fl.dictKeys(f, arg, c.off, depth) {
		r, ok := t.subst(func(h string) (tmpl, bool) {
			if h == k {
				return tmpl{{lit: dk.key}}, true
			}
			if v, ok := argFor(c, d, h); ok {
				if s, ok := stringValue(v); ok {
					return tmpl{{lit: s}}, true
				}
			}
			return nil, false
		})
		if !ok {
			continue
		}
		if tag, ok := r.literal(); ok && tagKey(tag) {
			out = append(out, dictKey{tag, dk.off})
		}
	}
	return out
}
