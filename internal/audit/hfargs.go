package audit

import (
	"path"
	"strings"
)

// hfArgClasses are the argument dataclasses of transformers and TRL that
// a training script hands to HfArgumentParser or TrlParser, directly or
// through a dataclass of its own that extends one: the options they give
// every run are written in the library, not in the repository.
var hfArgClasses = map[string]bool{
	"TrainingArguments": true, "Seq2SeqTrainingArguments": true,
	// TRL's trainer configs, each a TrainingArguments.
	"SFTConfig": true, "DPOConfig": true, "GRPOConfig": true, "RewardConfig": true, "PPOConfig": true,
	"RLOOConfig": true, "KTOConfig": true, "ORPOConfig": true, "CPOConfig": true, "OnlineDPOConfig": true,
	"GKDConfig": true, "BCOConfig": true, "PRMConfig": true, "XPOConfig": true, "NashMDConfig": true,
	"IterativeSFTConfig": true, "GOLDConfig": true, "MiniLLMConfig": true,
}

// hfInherited are the options of TrainingArguments a run is placed and
// seeded with.
var hfInherited = []string{"--seed", "--output_dir", "--max_steps", "--report_to", "--logging_dir"}

// hfLibrary reports a name that is one of hfArgClasses as the file uses
// it: qualified (trl.GRPOConfig) or in a file that imports transformers
// or TRL and does not define a class of that name itself (many RL
// repositories have a PPOConfig of their own).
func (p *pyScan) hfLibrary(name string) bool {
	short := name[strings.LastIndexByte(name, '.')+1:]
	if !hfArgClasses[short] {
		return false
	}
	if mod, _, ok := strings.Cut(name, "."); ok {
		return mod == "trl" || mod == "transformers"
	}
	if strings.Contains(p.s, "class "+short+"(") || strings.Contains(p.s, "class "+short+":") {
		return false
	}
	for _, h := range p.f.hits {
		if h.cat == catImport && (h.name == "trl" || h.name == "transformers" ||
			strings.HasPrefix(h.name, "trl.") || strings.HasPrefix(h.name, "transformers.")) {
			return true
		}
	}
	return false
}

// inherit appends the options of a library argument class to the file's,
// as fn's (a dataclass's name, or "" for the parsing script), at line.
func (p *pyScan) inherit(fn string, line int) {
	for _, name := range hfInherited {
		p.f.flags = append(p.f.flags, flagDef{name: name, fn: fn, line: line})
	}
}

// parsedHFClasses gives a script that parses with HfArgumentParser or
// TrlParser the options of the library argument classes it names.
func (p *pyScan) parsedHFClasses() {
	if !p.f.has(catParser, "hf_argparser") {
		return
	}
	for _, name := range sortedKeys(hfArgClasses) {
		found := false
		p.t.eachWord(name, func(off int) bool {
			end := off + len(name)
			if end < len(p.s) && isIdent(p.s[end]) || !p.code(off) {
				return true
			}
			q := off
			for q > 0 && (isIdent(p.s[q-1]) || p.s[q-1] == '.') {
				q--
			}
			if p.hfLibrary(p.s[q:end]) {
				p.inherit("", p.t.lineOf(off))
				found = true
			}
			return false
		})
		if found {
			return
		}
	}
}

// subcommandFlags are the options of the script a console script's
// documented subcommand runs: a CLI that dispatches trl dpo to its
// package's scripts/dpo.py takes that script's options.
func (a *assembler) subcommandFlags(e *EntryPoint) []flagDef {
	if e.Via != "console_script" || len(e.docArgv) < 2 || !isName(e.docArgv[1]) {
		return nil
	}
	pkg, _, _ := strings.Cut(e.Target, ":")
	pkg, _, _ = strings.Cut(pkg, ".")
	var found *facts
	for _, p := range a.byBase[e.docArgv[1]+".py"] {
		f := a.byPath[p]
		if f == nil || isTestPath(p) || len(f.flags) == 0 || !underPackage(p, pkg) {
			continue
		}
		if found != nil {
			return nil // two scripts of that name: which one runs is not known
		}
		found = f
	}
	if found == nil {
		return nil
	}
	return append(append([]flagDef(nil), found.flags...), a.importedFlags(found)...)
}

// underPackage reports a path inside Python package pkg (pkg/... or
// src/pkg/...).
func underPackage(p, pkg string) bool {
	return pkg != "" && (strings.HasPrefix(p, pkg+"/") || strings.HasPrefix(p, "src/"+pkg+"/")) && path.Ext(p) == ".py"
}
