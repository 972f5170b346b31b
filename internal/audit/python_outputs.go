package audit

import (
	"strings"
)

// runDirVar reports variable names that hold a run's output directory.
func runDirVar(v string) bool {
	v = strings.ToLower(strings.TrimSpace(v))
	for _, p := range []string{"self.", "args.", "cfg.", "config.", "opts.", "opt.", "flags.", "training_args.", "self.cfg."} {
		v = strings.TrimPrefix(v, p)
	}
	switch v {
	case "out", "out_dir", "outdir", "output", "output_dir", "output_path", "out_path", "log_dir", "logdir", "log_path",
		"run_dir", "rundir", "save_dir", "save_path", "savedir", "exp_dir", "experiment_dir", "results_dir",
		"result_dir", "run_path", "checkpoint_dir", "ckpt_dir", "train_dir", "log_folder", "folder":
		return true
	}
	return false
}

// outputKind classifies a written file by its name.
func outputKind(name string) (kind, format string) {
	lower := strings.ToLower(name)
	ext := extOf(lower)
	switch ext {
	case "csv":
		return "metrics", "csv"
	case "jsonl", "ndjson":
		return "metrics", "jsonl"
	case "pt", "pth", "ckpt", "safetensors", "onnx", "cleanrl_model":
		return "checkpoint", ""
	case "pkl", "npz", "msgpack", "h5", "zip", "bin", "pickle":
		if lowerHas(lower, "policy", "model", "ckpt", "checkpoint", "weights", "agent", "params") {
			return "checkpoint", ""
		}
		return "", ""
	case "log", "out":
		return "log", ""
	case "json", "yaml", "yml":
		switch {
		case lowerHas(lower, "policy", "model", "ckpt", "checkpoint", "weights", "agent"):
			return "checkpoint", ""
		case lowerHas(lower, "config", "cfg", "param", "args", "hparams"):
			return "config", ""
		case ext == "json" && lowerHas(lower, "metric", "eval", "progress", "result", "summary", "stats", "score"):
			return "metrics", "json"
		}
	}
	if strings.Contains(lower, "tfevents") {
		return "metrics", "tfevents"
	}
	return "", ""
}

func (p *pyScan) output(name, dirVar, kind, format string, off int, conf Confidence) {
	for i, o := range p.f.outputs {
		if o.name == name {
			if rank(conf) > rank(o.conf) {
				p.f.outputs[i].conf, p.f.outputs[i].line, p.f.outputs[i].text = conf, p.t.lineOf(off), snippet(p.t.line(off))
			}
			return
		}
	}
	p.f.outputs = append(p.f.outputs, outHit{name: name, dirVar: dirVar, kind: kind, format: format,
		line: p.t.lineOf(off), text: snippet(p.t.line(off)), conf: conf})
}

// pathParts splits a path expression into its directory variable and
// the literal file name at its end: os.path.join(out, "a.csv"),
// f"{out}/a.csv", Path(out) / "a.csv".
func pathParts(expr string) (dirVar, name string) {
	expr = strings.TrimSpace(expr)
	switch {
	case strings.HasPrefix(expr, "os.path.join("):
		inside, ok := balanced(expr, len("os.path.join"), len(expr))
		if !ok {
			return "", ""
		}
		args := splitTop(inside[1:len(inside)-1], ',')
		last, ok := literalExpr(args[len(args)-1])
		if !ok {
			return "", ""
		}
		if len(args) >= 2 {
			dirVar = strings.TrimSpace(args[0])
		}
		return dirVar, last
	case strings.Contains(expr, " / "):
		i := strings.LastIndex(expr, " / ")
		if v, ok := stringValue(expr[i+3:]); ok {
			d := strings.TrimSpace(expr[:i])
			d = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(d, "Path("), "pathlib.Path("), ")")
			return d, v
		}
	case isQuoteStart(expr, 0):
		lit, ok := pyString(expr, 0)
		if !ok {
			return "", ""
		}
		v := lit.val
		if lit.fstring && strings.HasPrefix(v, "*/") {
			// f"{out}/a.csv": the variable is the first field.
			if j := strings.IndexByte(expr, '{'); j >= 0 {
				if k := strings.IndexByte(expr[j:], '}'); k > 0 {
					dirVar = expr[j+1 : j+k]
				}
			}
			return dirVar, v[2:]
		}
		return "", v
	}
	return "", ""
}

// saveCalls write checkpoints and arrays.
var saveCalls = []string{"torch.save(", "save_checkpoint(", ".save(", "np.savez(", "save_pretrained("}

func (p *pyScan) outputs() {
	p.t.each("open(", func(off int) bool {
		if !p.code(off) || (off > 0 && isIdent(p.s[off-1])) {
			return true
		}
		args, ok := p.call(off + len("open"))
		if !ok || len(args) < 2 {
			return true
		}
		mode, ok := stringValue(args[1])
		if !ok {
			mode, _ = kwarg(args, "mode")
			mode, _ = stringValue(mode)
		}
		if !strings.ContainsAny(mode, "wa") {
			return true
		}
		expr := strings.TrimSpace(args[0])
		if isName(expr) {
			// path = os.path.join(logdir, f"{name}.csv"); open(path, "a")
			head := p.s[max(0, off-1024):off]
			if i := strings.LastIndex(head, expr+" = "); i >= 0 && (i == 0 || !isIdent(head[i-1]) && head[i-1] != '.') {
				expr = strings.TrimSpace(strings.SplitN(head[i+len(expr)+3:], "\n", 2)[0])
			}
		}
		dirVar, name := pathParts(expr)
		if kind, format := outputKind(name); kind != "" {
			p.output(name, dirVar, kind, format, off, High)
		}
		return true
	})
	for _, lit := range saveCalls {
		p.t.each(lit, func(off int) bool {
			if !p.code(off) {
				return true
			}
			args, ok := p.call(off + len(lit) - 1)
			if !ok || len(args) == 0 {
				return true
			}
			for _, a := range args {
				dirVar, name := pathParts(a)
				if kind, format := outputKind(name); kind != "" {
					p.output(name, dirVar, kind, format, off, High)
				}
			}
			return true
		})
	}
	p.t.each("os.path.join(", func(off int) bool {
		if !p.code(off) {
			return true
		}
		inside, ok := balanced(p.s, off+len("os.path.join"), 2048)
		if !ok {
			return true
		}
		dirVar, name := pathParts("os.path.join" + inside)
		if kind, format := outputKind(name); kind != "" && runDirVar(dirVar) {
			p.output(name, dirVar, kind, format, off, Low)
		}
		return true
	})
	p.t.each("SummaryWriter(", func(off int) bool {
		if !p.code(off) {
			return true
		}
		args, ok := p.call(off + len("SummaryWriter"))
		if !ok {
			return true
		}
		expr := ""
		if len(args) > 0 && !isKwarg(args[0]) {
			expr = strings.TrimSpace(args[0])
		}
		for _, k := range []string{"log_dir", "logdir"} {
			if v, ok := kwarg(args, k); ok {
				expr = v
			}
		}
		dir := ""
		if expr != "" {
			if v, ok := literalExpr(expr); ok {
				dir = v
			} else {
				dir = "{" + expr + "}"
			}
		}
		if dir == "" {
			dir = "runs/* (SummaryWriter default)"
		}
		p.output(dir, "", "logdir", "tfevents", off, Medium)
		return false
	})
}
