// Package pin computes what an experiment's approval pins: per seed the
// train command as it would run, the adapter fields that decide what runs
// and what is scored, the files the commands name, and the code (git HEAD,
// every tracked change and every untracked, non-ignored file outside
// .rlxp/ and the run outputs). Any difference after approval makes the
// approval stale, and Changes names it.
package pin

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/launch"
	"github.com/rlxp/rlxp/internal/state"
)

// RunDir is the run-directory template the pinned commands are filled
// with: the one check and launch use unless told otherwise.
const RunDir = "runs/{experiment}/seed{seed}"

// Material is what an approval pins.
type Material struct {
	Commands map[string]string `json:"commands"` // "seed N" → train command
	// Adapter is the digest of adapter.yaml's commands, config rendering,
	// metric sources, interpreter and guard allow list.
	Adapter string `json:"adapter"`
	// Files maps repo-relative paths to their sha256 ("" for a deleted
	// tracked file): the files the commands name, tracked changes and
	// untracked files.
	Files map[string]string `json:"files"`
	Head  string            `json:"head"` // git HEAD; "" outside git
}

// Compute reads the material of experiment e in the repository at root.
func Compute(ctx context.Context, root string, ad *adapter.Adapter, adapterFile string, e *experiment.Experiment) (Material, error) {
	m := Material{Commands: map[string]string{}, Files: map[string]string{}}
	src := launch.Source{Adapter: ad, AdapterFile: adapterFile, Experiment: e, RunDir: RunDir}
	// Without a train command nothing can launch (check says so); adding
	// one later is a change like any other.
	for _, seed := range e.Seeds {
		if ad.Commands["train"] == "" {
			break
		}
		_, cmd, err := src.Command("train", seed)
		if err != nil {
			return Material{}, err
		}
		m.Commands["seed "+strconv.Itoa(seed)] = cmd
		for _, w := range strings.Fields(cmd) {
			w = strings.Trim(w, `'"`)
			if rel, ok := within(root, w); ok {
				if sum, err := fileSum(filepath.Join(root, rel)); err == nil {
					m.Files[rel] = sum
				}
			}
		}
	}
	m.Adapter = contract.Digest(map[string]any{
		"commands": ad.Commands, "config": ad.Config, "metrics": ad.Metrics.Sources,
		"python": ad.Runtime.Python, "guard_allow": ad.Guard.Allow,
	})
	head, changed, err := gitState(ctx, root)
	if err != nil {
		return Material{}, err
	}
	m.Head = head
	outputs := strings.SplitN(RunDir, "{", 2)[0]
	for _, p := range changed {
		if strings.HasPrefix(p, ".rlxp/") || outputs != "" && strings.HasPrefix(p, outputs) {
			continue
		}
		sum, err := fileSum(filepath.Join(root, p))
		if err != nil {
			sum = "" // deleted
		}
		m.Files[p] = sum
	}
	return m, nil
}

// within returns w as a path relative to root when it names a regular
// file inside it.
func within(root, w string) (string, bool) {
	if w == "" || strings.HasPrefix(w, "-") {
		return "", false
	}
	p := w
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not a regular file", path)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// gitState is HEAD and the paths with tracked changes or untracked,
// non-ignored files, relative to root. Outside a git repository both are
// empty: then the files the commands name are all that is pinned.
func gitState(ctx context.Context, root string) (string, []string, error) {
	git := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
		}
		return out, nil
	}
	if _, err := git("rev-parse", "--is-inside-work-tree"); err != nil {
		return "", nil, nil
	}
	head := ""
	if out, err := git("rev-parse", "--verify", "-q", "HEAD"); err == nil {
		head = strings.TrimSpace(string(out))
	}
	// Paths relative to root, also when root is below the top.
	out, err := git("status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", ".")
	if err != nil {
		return "", nil, err
	}
	prefix, err := git("rev-parse", "--show-prefix")
	if err != nil {
		return "", nil, err
	}
	pre := strings.TrimSpace(string(prefix))
	var paths []string
	for _, rec := range strings.Split(string(out), "\x00") {
		if len(rec) < 4 {
			continue
		}
		paths = append(paths, strings.TrimPrefix(rec[3:], pre))
	}
	sort.Strings(paths)
	return head, paths, nil
}

// Changes names every difference between the approved material and now:
// the command before and after, the file, the commit.
func Changes(approved, now Material) []string {
	var out []string
	for _, k := range keys(approved.Commands, now.Commands) {
		a, b := approved.Commands[k], now.Commands[k]
		if a != b {
			out = append(out, fmt.Sprintf("train command of %s: %s -> %s", k, orNone(a), orNone(b)))
		}
	}
	if approved.Adapter != now.Adapter {
		out = append(out, ".rlxp/adapter.yaml: the commands, config rendering, metric sources, interpreter or guard allow list changed")
	}
	// A repository that had no commit at approval (or was not one) is judged
	// by its files alone.
	if approved.Head != "" && approved.Head != now.Head {
		out = append(out, fmt.Sprintf("git HEAD %s -> %s", short(approved.Head), short(now.Head)))
	}
	for _, k := range keys(approved.Files, now.Files) {
		a, inA := approved.Files[k]
		b, inB := now.Files[k]
		switch {
		case a == b && inA == inB:
		case !inA:
			out = append(out, k+": changed or added since approval")
		case !inB:
			out = append(out, k+": changed back or committed since approval")
		case b == "":
			out = append(out, k+": deleted since approval")
		default:
			out = append(out, k+": edited since approval")
		}
	}
	return out
}

func keys(a, b map[string]string) []string {
	seen := map[string]bool{}
	var ks []string
	for _, m := range []map[string]string{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				ks = append(ks, k)
			}
		}
	}
	sort.Strings(ks)
	return ks
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func short(h string) string {
	if h == "" {
		return "(none)"
	}
	return h[:min(len(h), 12)]
}

// Stale compares what e would run now with what its latest approval in the
// repository's approvals log pinned, and names every difference. An
// experiment without an approval, or a log that does not verify, has
// nothing to compare: the gate says so on its own.
func Stale(ctx context.Context, r *state.Repo, ad *adapter.Adapter, e *experiment.Experiment) []string {
	b, err := approval.LogOf(r).Read()
	if err != nil || b.Problem != nil {
		return nil
	}
	rec, ok := b.Latest(approval.Experiment)[e.ID]
	if !ok || rec.Digest != e.Digest() {
		return nil
	}
	if len(rec.Plan) == 0 {
		return []string{"the approval does not pin what runs (recorded before rlxp pinned commands, configs and code)"}
	}
	var approved Material
	if err := json.Unmarshal(rec.Plan, &approved); err != nil {
		return []string{fmt.Sprintf("%s:%d: the pinned plan cannot be read: %v", r.Show(state.Approvals), rec.Line, err)}
	}
	now, err := Compute(ctx, r.Root, ad, r.Show(state.Adapter), e)
	if err != nil {
		return []string{fmt.Sprintf("cannot tell what would run now: %v", err)}
	}
	return Changes(approved, now)
}
