package pin

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/gate"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/score"
	"github.com/rlxp/rlxp/internal/state"
)

// ChangeSet is what the repository changed since the commit its baseline
// was scored at, for the gate's check of the scope's file rules: the
// files committed since, with tracked changes, and untracked, non-ignored,
// except rlxp's state and the files runs wrote (notCode). Without a
// scored baseline, or outside git, there is no commit to compare with,
// and the answer says so.
func ChangeSet(ctx context.Context, r *state.Repo, ad *adapter.Adapter, baseline string, e *experiment.Experiment) *gate.ChangeSet {
	g, err := openGit(ctx, r.Root, ad)
	if err != nil {
		return &gate.ChangeSet{Failed: true, Why: err.Error()}
	}
	if !g.in {
		return &gate.ChangeSet{Why: "not a git repository, so there is no baseline commit to compare with"}
	}
	base, line, why, err := baselineCommit(r, baseline)
	if err != nil {
		return &gate.ChangeSet{Failed: true, Why: err.Error()}
	}
	if base == "" {
		return &gate.ChangeSet{Why: why}
	}
	named, err := commands(r.Root, ad, r.Show(state.Adapter), e, func(int, string) {})
	if err != nil {
		return &gate.ChangeSet{Failed: true, Why: err.Error()}
	}
	files, err := changedSince(ctx, r.Root, base, g.scope, Outputs(ad, named))
	if err != nil {
		return &gate.ChangeSet{Failed: true, Why: fmt.Sprintf("the baseline's commit %s (%s:%d): %v", short(base), r.Show(state.Ledger), line, err)}
	}
	return &gate.ChangeSet{Base: base, Files: files}
}

// baselineCommit is the commit the latest valid result of the baseline
// experiment records, and its ledger line; without one, why there is none.
// A ledger that does not verify is an error: nothing in it is trusted.
func baselineCommit(r *state.Repo, id string) (commit string, line int, why string, err error) {
	if id == "" {
		return "", 0, "the contract names no baseline experiment", nil
	}
	data, err := os.ReadFile(r.Path(state.Ledger))
	if errors.Is(err, fs.ErrNotExist) {
		data, err = nil, nil
	}
	if err != nil {
		return "", 0, "", fmt.Errorf("read %s: %w", r.Show(state.Ledger), err)
	}
	entries, rep := ledger.File{Name: r.Show(state.Ledger)}.Load(data)
	if rep.Problem != nil {
		return "", 0, "", fmt.Errorf("the baseline's commit is read from the ledger, which does not verify: %w", rep.Problem)
	}
	for i := len(entries) - 1; i >= 0; i-- {
		en := entries[i]
		if en.String("experiment") != id || en.String("verdict") == score.Invalid {
			continue
		}
		if c := en.String("git", "commit"); c != "" {
			return c, en.Line, "", nil
		}
		return "", 0, fmt.Sprintf("the baseline %s was scored outside git (%s:%d records no commit)", id, r.Show(state.Ledger), en.Line), nil
	}
	return "", 0, fmt.Sprintf("the baseline %s has no scored result yet; its ledger entry will record the commit changes are measured from", id), nil
}

// changedSince lists the paths, relative to root (../lib/util.py above
// it), in the code's scope that differ between commit base and the
// working tree, and the untracked, non-ignored files, except what is not
// code.
func changedSince(ctx context.Context, root, base string, sc codeScope, outputs []string) ([]string, error) {
	if _, err := git(ctx, root, "cat-file", "-e", base+"^{commit}"); err != nil {
		return nil, errors.New("not a commit of this repository")
	}
	diff, err := git(ctx, root, append([]string{"diff", "--name-only", "-z", "--no-renames", base, "--"}, sc.specs...)...)
	if err != nil {
		return nil, err
	}
	// diff names paths relative to the top-level, ls-files to root.
	var tracked []string
	for _, p := range strings.Split(string(diff), "\x00") {
		if p != "" {
			tracked = append(tracked, sc.fromTop(p))
		}
	}
	untracked, err := git(ctx, root, append([]string{"ls-files", "-z", "--others", "--exclude-standard", "--"}, sc.specs...)...)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []string
	for _, set := range []struct {
		list      []string
		untracked bool
	}{{tracked, false}, {strings.Split(string(untracked), "\x00"), true}} {
		for _, p := range set.list {
			if p == "" || seen[p] || notCode(change{p, set.untracked}, outputs) {
				continue
			}
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}
