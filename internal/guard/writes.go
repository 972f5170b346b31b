package guard

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlxp/rlxp/internal/state"
)

// protectedAdvice is what a refused write to rlxp's records says.
const protectedAdvice = "the approvals log, the ledger, run records and the .rlxp/*.yaml files are written by rlxp alone (approvals, launches and scores go through rlxp commands; edit contract.yaml, experiments.yaml and adapter.yaml with the file-editing tool, where the user sees the change)"

// recordsAdvice is what a refused file-tool write says.
const recordsAdvice = "the approvals log, the ledger and run records are written by rlxp alone: approvals, launches and scores go through rlxp commands"

// protectedRecord reports a path rlxp alone writes: the approvals log, the
// ledger, run records, or the .rlxp directory itself.
func protectedRecord(p string) bool {
	rest, ok := underState(p)
	if !ok {
		return false
	}
	if len(rest) == 0 {
		return true
	}
	switch rest[0] {
	case "approvals.jsonl", "ledger.jsonl", "runs":
		return true
	}
	return strings.HasPrefix(rest[0], "approvals.jsonl") || strings.HasPrefix(rest[0], "ledger.jsonl")
}

// protectedShellWrite reports a path the shell must not write: a record,
// or one of .rlxp's YAML files, which agents edit with the file tools,
// where the user sees the change.
func protectedShellWrite(p string) bool {
	if protectedRecord(p) {
		return true
	}
	rest, ok := underState(p)
	if !ok || len(rest) != 1 {
		return false
	}
	ext := filepath.Ext(rest[0])
	return ext == ".yaml" || ext == ".yml"
}

// underState splits a path at its last .rlxp component: the components
// after it, and whether it has one.
func underState(p string) ([]string, bool) {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(p)), "/")
	for i := len(parts) - 1; i >= 0; i-- {
		if parts[i] == state.DirName {
			return parts[i+1:], true
		}
	}
	return nil, false
}

// shellWrites refuses a command that writes one of rlxp's files: tee, sed
// -i, cp, mv, ln, rm, truncate and the like naming one, or inline code
// (python -c, a here-document) that opens one for writing.
func (g *Guard) shellWrites(c call) Decision {
	if c.opaqueWhy != "" {
		return Decision{}
	}
	name := programName(c.argv[0], c.exact[0])
	unresolved := map[string]bool{}
	for i, a := range c.argv {
		if !c.exact[i] {
			unresolved[a] = true
		}
	}
	for _, t := range writeTargets(name, c.argv) {
		if unresolved[t] {
			if namesState(t) {
				return denyf("%s writes %s, which names .rlxp but cannot be resolved without running something: %s", quote(c.text), t, protectedAdvice)
			}
			continue
		}
		for _, d := range c.dirs {
			if writesRecord(t, d) {
				return denyf("%s writes %s: %s", quote(c.text), t, protectedAdvice)
			}
		}
	}
	for _, t := range patchedFiles(name, c) {
		if protectedShellWrite(t) {
			return denyf("%s writes %s with a patch: %s", quote(c.text), t, protectedAdvice)
		}
	}
	if code := inlineCode(name, c); code != "" && (writesState(code) || inState(c.dirs) && writeSign(code)) {
		return denyf("%s: its inline code writes under .rlxp/: %s", quote(c.text), protectedAdvice)
	}
	return Decision{}
}

// writesRecord reports a write to p, in directory dir, that the shell must
// not make, also through a link (a directory linked to .rlxp).
func writesRecord(p, dir string) bool {
	abs := resolve(p, dir)
	if protectedShellWrite(abs) {
		return true
	}
	if !filepath.IsAbs(abs) {
		return false
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return protectedShellWrite(real)
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return protectedShellWrite(filepath.Join(real, filepath.Base(abs)))
	}
	return false
}

// namesState reports the text of an unresolved word that names a .rlxp
// directory ($PWD/.rlxp/ledger.jsonl, $(ls .rlxp/*.yaml)): written to, it
// may be one of rlxp's records, and the guard cannot tell which file.
func namesState(text string) bool {
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune("/ \t\"'`()$;|&<>={}", r) }) {
		if f == state.DirName {
			return true
		}
	}
	return false
}

// inState reports a command that may run inside a .rlxp directory, where
// any file its inline code writes is one of rlxp's.
func inState(dirs []string) bool {
	for _, d := range dirs {
		if _, ok := underState(d); ok {
			return true
		}
	}
	return false
}

// writeTargets lists the words a file utility writes (or removes, links
// or moves).
func writeTargets(name string, argv []string) []string {
	var operands []string
	for i := 1; i < len(argv); i++ {
		if !strings.HasPrefix(argv[i], "-") {
			operands = append(operands, argv[i])
		}
	}
	has := func(flag string) bool {
		for _, a := range argv[1:] {
			if a == flag || strings.HasPrefix(a, flag+"=") || strings.HasPrefix(flag, "-i") && strings.HasPrefix(a, flag) {
				return true
			}
			if len(flag) == 2 && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], flag[1:]) {
				return true
			}
		}
		return false
	}
	switch name {
	case "tee", "mv", "ln", "link", "unlink", "rm", "rmdir", "truncate", "shred", "touch", "mkdir", "patch", "mkfifo", "mknod", "chmod", "chattr", "setfacl",
		"sponge", "ed", "ex", "vi", "vim", "nvim", "nano", "emacs":
		return operands
	case "yq":
		if has("-i") || has("--inplace") {
			return operands
		}
	case "sort":
		return optionValues(argv, "-o", "--output")
	case "find":
		if has("-delete") {
			var starts []string
			for _, a := range argv[1:] {
				if strings.HasPrefix(a, "-") || a == "(" || a == "!" {
					break
				}
				starts = append(starts, a)
			}
			return starts
		}
	case "tar", "bsdtar":
		if has("-x") || has("--extract") || has("--get") || len(argv) > 1 && !strings.HasPrefix(argv[1], "-") && strings.Contains(argv[1], "x") {
			return append(optionValues(argv, "-C", "--directory"), operands...)
		}
	case "unzip":
		return append(optionValues(argv, "-d"), operands...)
	case "sed", "gsed", "perl":
		if has("-i") || has("--in-place") {
			return operands
		}
	case "awk", "gawk":
		for i, a := range argv {
			if (a == "-i" || a == "--include") && i+1 < len(argv) && argv[i+1] == "inplace" {
				return operands
			}
		}
	case "cp", "install", "rsync", "scp", "rclone":
		for i, a := range argv {
			switch {
			case (a == "-t" || a == "--target-directory") && i+1 < len(argv):
				return []string{argv[i+1]}
			case strings.HasPrefix(a, "--target-directory="):
				return []string{strings.TrimPrefix(a, "--target-directory=")}
			}
		}
		if len(operands) > 0 {
			return operands[len(operands)-1:]
		}
	case "dd":
		for _, a := range operands {
			if v, ok := strings.CutPrefix(a, "of="); ok {
				return []string{v}
			}
		}
	case "git":
		if len(operands) > 0 {
			switch operands[0] {
			case "checkout", "restore", "rm", "mv", "clean", "stash":
				return operands[1:]
			}
		}
	}
	return nil
}

// patchedFiles lists the files a patch applied by patch or git apply
// names in its headers, when the guard can read it: a file among the
// arguments or standard input, or a here-document. git apply --stat and
// --check only read it.
func patchedFiles(name string, c call) []string {
	var sources []string
	switch {
	case name == "patch":
		sources = optionValues(c.argv, "-i", "--input")
	case name == "git" && len(c.argv) > 1 && c.argv[1] == "apply":
		for _, a := range c.argv[2:] {
			switch a {
			case "--stat", "--numstat", "--summary", "--check":
				return nil
			}
		}
		for i, a := range c.argv[2:] {
			if c.exact[i+2] && !strings.HasPrefix(a, "-") {
				sources = append(sources, a)
			}
		}
	default:
		return nil
	}
	var texts []string
	for _, src := range sources {
		for _, d := range c.dirs {
			if b, err := os.ReadFile(resolve(src, d)); err == nil {
				texts = append(texts, string(b))
			}
		}
	}
	switch c.stdin.kind {
	case inText:
		texts = append(texts, c.stdin.text)
	case inFile:
		for _, d := range c.dirs {
			if b, err := os.ReadFile(resolve(c.stdin.path, d)); err == nil {
				texts = append(texts, string(b))
			}
		}
	}
	var files []string
	for _, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			for _, h := range []string{"--- ", "+++ ", "rename to ", "copy to ", "rename from "} {
				if p, ok := strings.CutPrefix(line, h); ok {
					p, _, _ = strings.Cut(strings.TrimRight(p, "\r"), "\t")
					files = append(files, strings.Trim(p, `"`))
				}
			}
			if rest, ok := strings.CutPrefix(line, "diff --git "); ok {
				files = append(files, strings.Fields(rest)...)
			}
		}
	}
	return files
}

// optionValues lists the values of the named options (-o FILE, --output=FILE).
func optionValues(argv []string, names ...string) []string {
	var out []string
	for i, a := range argv {
		for _, n := range names {
			switch {
			case a == n && i+1 < len(argv):
				out = append(out, argv[i+1])
			case strings.HasPrefix(n, "--") && strings.HasPrefix(a, n+"="):
				out = append(out, strings.TrimPrefix(a, n+"="))
			}
		}
	}
	return out
}

// inlineCode is the program text an interpreter gets on its command line
// or standard input.
func inlineCode(name string, c call) string {
	flag := ""
	switch {
	case isPython(name) || name == "ipython" || name == "ipython3":
		flag = "-c"
	case name == "perl" || name == "ruby" || name == "node" || name == "nodejs" || name == "deno" || name == "php" || name == "Rscript" || name == "julia":
		flag = "-e"
	default:
		return ""
	}
	var code []string
	for i, a := range c.argv {
		if (a == flag || a == "--eval" || a == "-E" && name == "perl") && i+1 < len(c.argv) {
			code = append(code, c.argv[i+1])
		} else if strings.HasPrefix(a, flag) && len(a) > 2 && i > 0 {
			code = append(code, a[2:])
		} else if k := clusterFlag(a, flag[1], python(name)); k > 0 && i > 0 {
			// -uc CODE, perl -ne CODE, -lane CODE: a cluster of
			// one-letter options ending in the code's
			if k+1 < len(a) {
				code = append(code, a[k+1:])
			} else if i+1 < len(c.argv) {
				code = append(code, c.argv[i+1])
			}
		}
	}
	if c.stdin.kind == inText {
		code = append(code, c.stdin.text)
	}
	return strings.Join(code, "\n")
}

func python(name string) bool { return isPython(name) || name == "ipython" || name == "ipython3" }

// clusterFlag is where flag stands in a cluster of one-letter options
// (-uc, -ne, -lane), after letters that take no value; 0 when a is none.
func clusterFlag(a string, flag byte, python bool) int {
	if len(a) < 3 || a[0] != '-' || a[1] == '-' {
		return 0
	}
	plain := "nlpawsTtWXU0" // perl's and ruby's
	if python {
		plain = "bBdEhiIOPqsSuvVx"
	}
	for k := 1; k < len(a); k++ {
		switch {
		case a[k] == flag:
			if k == 1 {
				return 0 // -cCODE, read above
			}
			return k
		case strings.IndexByte(plain, a[k]) < 0:
			return 0
		}
	}
	return 0
}

// writesState reports code that names a file under .rlxp and has a sign of
// writing.
func writesState(code string) bool {
	return strings.Contains(code, state.DirName) && writeSign(code)
}

// writeSign reports code with a sign of writing: a write mode, a write,
// remove, rename or copy call.
func writeSign(code string) bool {
	for _, sign := range []string{"'w", "\"w", "'a", "\"a", "'x", "\"x", "+'", "+\"", "write", "dump", "unlink", "remove", "rename", "replace", "rmtree", "move", "copy", "truncate", "symlink", "link(", "touch", "mkdir", "O_WRONLY", "O_RDWR", "O_APPEND", "O_CREAT"} {
		if strings.Contains(code, sign) {
			return true
		}
	}
	return false
}

// fileTool refuses the hosts' file-writing tools (Claude Code's Edit,
// Write, MultiEdit, NotebookEdit; any tool with a file_path) a write to
// the files rlxp alone writes.
func (g *Guard) fileTool(p payload, cwd string) Decision {
	for _, key := range []string{"file_path", "notebook_path", "path"} {
		raw, ok := p.ToolInput[key]
		if !ok {
			continue
		}
		var path string
		if err := json.Unmarshal(raw, &path); err != nil {
			return g.unreadable(cwd, "the hook payload's tool_input.%s is not a string", key)
		}
		if !writingTool(p.ToolName) {
			return Decision{}
		}
		abs := resolve(path, cwd)
		if protectedRecord(abs) {
			return denyf("%s %s: %s", p.ToolName, path, recordsAdvice)
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil && protectedRecord(real) {
			return denyf("%s %s (a link to %s): %s", p.ToolName, path, real, recordsAdvice)
		}
	}
	return Decision{}
}

// writingTool reports the hosts' tools that write files; Read, Grep and
// the like only read them.
func writingTool(name string) bool {
	switch name {
	case "Read", "Grep", "Glob", "LS", "NotebookRead", "WebFetch", "WebSearch":
		return false
	}
	return true
}

// patch refuses a Codex patch that adds, updates, deletes or moves onto a
// file rlxp alone writes.
func (g *Guard) patch(text, cwd string) Decision {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			path, ok := strings.CutPrefix(line, h)
			if !ok {
				continue
			}
			abs := resolve(strings.TrimSpace(path), cwd)
			if protectedRecord(abs) {
				return denyf("apply_patch %s: %s", strings.TrimSpace(path), recordsAdvice)
			}
			if real, err := filepath.EvalSymlinks(abs); err == nil && protectedRecord(real) {
				return denyf("apply_patch %s (a link to %s): %s", strings.TrimSpace(path), real, recordsAdvice)
			}
		}
	}
	return Decision{}
}
