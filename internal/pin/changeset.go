package pin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/gate"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/score"
	"github.com/rlxp/rlxp/internal/state"
)

// changeSet is what the repository changed since the commit its baseline
// was scored at, for the gate's check of the scope's file rules: the
// files committed since, with tracked changes, and untracked, non-ignored,
// except rlxp's state and the files runs wrote (notCode); and the files
// the run reads that git does not show (changedReads) whose content
// differs from what the approvals book pinned when the baseline was
// scored. now is what e would run now, nowErr why it cannot be told.
// Without a scored baseline, or outside git, there is no commit to compare
// with, and the answer says so.
func changeSet(ctx context.Context, r *state.Repo, ad *adapter.Adapter, book approval.Book, baseline string, e *experiment.Experiment, now Material, nowErr error) *gate.ChangeSet {
	g, err := openGit(ctx, r.Root, ad)
	if err != nil {
		return &gate.ChangeSet{Failed: true, Why: err.Error()}
	}
	if !g.in {
		return &gate.ChangeSet{Why: "not a git repository, so there is no baseline commit to compare with"}
	}
	b, why, err := baselineCommit(r, baseline)
	if err != nil {
		return &gate.ChangeSet{Failed: true, Why: err.Error()}
	}
	if b.commit == "" {
		return &gate.ChangeSet{Why: why}
	}
	named, err := commands(r.Root, ad, r.Show(state.Adapter), e, func(int, string, string) {})
	if err != nil {
		return &gate.ChangeSet{Failed: true, Why: err.Error()}
	}
	files, err := changedSince(ctx, r.Root, b.commit, g.scope, Outputs(ad, named))
	if err != nil {
		return &gate.ChangeSet{Failed: true, Why: fmt.Sprintf("the baseline's commit %s (%s:%d): %v", short(b.commit), r.Show(state.Ledger), b.line, err)}
	}
	switch {
	case nowErr != nil:
		return &gate.ChangeSet{Failed: true, Why: fmt.Sprintf("cannot tell which files the run reads: %v", nowErr)}
	case book.Problem != nil:
		return &gate.ChangeSet{Failed: true, Why: fmt.Sprintf("the files the run reads that git does not show are compared with the approvals log, which does not verify: %v", book.Problem)}
	}
	reads, err := changedReads(ctx, r.Root, book, b.time, now)
	if err != nil {
		return &gate.ChangeSet{Failed: true, Why: err.Error()}
	}
	return &gate.ChangeSet{Base: b.commit, Files: dedupe(append(files, reads...))}
}

// changedReads lists the files the run reads that git does not show
// (ignored, outside the code's scope) whose content differs from the one
// approved when the baseline was scored: as the latest approval recorded
// at or before then pinned it, else the first one after. Git keeps no
// history of them, so the approvals log is the record of what they held.
// One no approval pinned is new; an ignored one pinned then that is gone
// is deleted: both are changes.
func changedReads(ctx context.Context, root string, book approval.Book, at string, now Material) ([]string, error) {
	before, after := map[string]string{}, map[string]string{}
	for _, rec := range book.Records {
		if rec.Kind != approval.Experiment || len(rec.Plan) == 0 {
			continue
		}
		var m struct {
			Reads map[string]string `json:"reads"`
		}
		if json.Unmarshal(rec.Plan, &m) != nil {
			continue
		}
		for k, v := range m.Reads {
			if rec.Time <= at {
				before[k] = v
			} else if _, ok := after[k]; !ok {
				after[k] = v
			}
		}
	}
	var out []string
	for k, sum := range now.Reads {
		if !now.hidden[k] {
			continue
		}
		ref, ok := before[k]
		if !ok {
			ref, ok = after[k]
		}
		if !ok || ref != sum {
			out = append(out, k)
		}
	}
	var gone []string
	for _, ref := range []map[string]string{before, after} {
		for k, v := range ref {
			if _, read := now.Reads[k]; !read && v != "" {
				if _, err := os.Lstat(filepath.Join(root, k)); errors.Is(err, fs.ErrNotExist) {
					gone = append(gone, k)
				}
			}
		}
	}
	if len(gone) == 0 {
		return out, nil
	}
	// A tracked file's deletion is git's to tell; an ignored one's is not.
	ign, err := ignored(ctx, root, dedupe(gone))
	if err != nil {
		return nil, err
	}
	for k := range ign {
		out = append(out, k)
	}
	return out, nil
}

// dedupe sorts paths and drops repeats.
func dedupe(paths []string) []string {
	sort.Strings(paths)
	out := paths[:0]
	for i, p := range paths {
		if i == 0 || p != paths[i-1] {
			out = append(out, p)
		}
	}
	return out
}

// A baseline is the commit the baseline's latest valid result records,
// its ledger line and the time it was scored.
type baseline struct {
	commit, time string
	line         int
}

// baselineCommit is the commit the latest valid result of the baseline
// experiment records, its ledger line and time; without one, why there is
// none. A ledger that does not verify is an error: nothing in it is
// trusted.
func baselineCommit(r *state.Repo, id string) (b baseline, why string, err error) {
	if id == "" {
		return b, "the contract names no baseline experiment", nil
	}
	data, err := os.ReadFile(r.Path(state.Ledger))
	if errors.Is(err, fs.ErrNotExist) {
		data, err = nil, nil
	}
	if err != nil {
		return b, "", fmt.Errorf("read %s: %w", r.Show(state.Ledger), err)
	}
	entries, rep := ledger.File{Name: r.Show(state.Ledger)}.Load(data)
	if rep.Problem != nil {
		return b, "", fmt.Errorf("the baseline's commit is read from the ledger, which does not verify: %w", rep.Problem)
	}
	for i := len(entries) - 1; i >= 0; i-- {
		en := entries[i]
		if en.String("experiment") != id || en.String("verdict") == score.Invalid {
			continue
		}
		if c := en.String("git", "commit"); c != "" {
			return baseline{commit: c, time: en.Time, line: en.Line}, "", nil
		}
		return b, fmt.Sprintf("the baseline %s was scored outside git (%s:%d records no commit)", id, r.Show(state.Ledger), en.Line), nil
	}
	return b, fmt.Sprintf("the baseline %s has no scored result yet; its ledger entry will record the commit changes are measured from", id), nil
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
