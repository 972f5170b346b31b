package pin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/launch"
	"github.com/rlxp/rlxp/internal/state"
	"github.com/rlxp/rlxp/internal/workspace"
)

// A Held approval is an experiment's approval as a launch found it in
// force. The supervisor of the launch's runs holds each run to it before
// the run starts and again when it ends, so that what changed between the
// gate's check and the start, or while the run ran (Python imports
// lazily, configs are read late), is named as the gate would name it.
type Held struct {
	r   *state.Repo
	rec approval.Record
}

// Hold reads the approval of experiment id in force now. An experiment
// with no approval in a log that verifies has nothing to be held to.
func Hold(r *state.Repo, id string) (*Held, error) {
	book, err := approval.LogOf(r).Read()
	if err != nil {
		return nil, err
	}
	if book.Problem != nil {
		return nil, book.Problem
	}
	rec, ok := book.Latest(approval.Experiment)[id]
	if !ok {
		return nil, fmt.Errorf("experiment %s has no approval in %s", id, r.Show(state.Approvals))
	}
	return &Held{r: r, rec: rec}, nil
}

// Digest identifies the approval: the experiment's approved digest and
// the material its approval pinned. A launch plan carries it, so that a
// plan confirmed under one approval cannot start under another.
func (h *Held) Digest() string {
	sum := sha256.New()
	fmt.Fprintf(sum, "%s\n", h.rec.Digest)
	sum.Write(h.rec.Plan)
	return "sha256:" + hex.EncodeToString(sum.Sum(nil))
}

// Changes recomputes what the experiment would run now and names every
// difference from the held approval: the experiment's entry edited, and
// each change of the material, worded as the gate words it. None means
// what runs now is what was approved.
func (h *Held) Changes(ctx context.Context) []string {
	_, e, err := workspace.Experiment(h.r, h.rec.Subject)
	if err != nil {
		return []string{err.Error()}
	}
	if e.Digest() != h.rec.Digest {
		return []string{fmt.Sprintf("experiment %s: edited in %s since approval", e.ID, h.r.Show(state.Experiments))}
	}
	ad, err := Adapter(h.r)
	if err != nil {
		return []string{err.Error()}
	}
	now, err := Compute(ctx, h.r.Root, ad, h.r.Show(state.Adapter), e)
	return stale(h.r, approval.Book{Records: []approval.Record{h.rec}}, e, now, err)
}

// Paths are the files the approval pins, by absolute path, for the watch
// the supervisor keeps on them while the runs run: the files git tracks
// in the code's scope, and those the approved material names (the files
// the commands name, tracked changes, untracked files, the files the run
// reads). rlxp's own state is not among them.
func (h *Held) Paths(ctx context.Context) ([]string, error) {
	var m Material
	if err := json.Unmarshal(h.rec.Plan, &m); err != nil {
		return nil, fmt.Errorf("read the material of %s's approval: %w", h.rec.Subject, err)
	}
	root := h.r.Root
	set := map[string]bool{}
	add := func(p string) {
		if p = filepath.ToSlash(p); p != "" && !isState(p) {
			set[filepath.Join(root, p)] = true
		}
	}
	for p := range m.Files {
		add(p)
	}
	for p := range m.Reads {
		add(p)
	}
	ad, err := Adapter(h.r)
	if err != nil {
		return nil, err
	}
	g, err := openGit(ctx, root, ad)
	if err != nil {
		return nil, err
	}
	if g.in {
		// ls-files names paths relative to root, ../ included.
		out, err := git(ctx, root, append([]string{"ls-files", "-z", "--"}, g.scope.specs...)...)
		if err != nil {
			return nil, err
		}
		for _, p := range strings.Split(string(out), "\x00") {
			add(p)
		}
	}
	return slices.Sorted(maps.Keys(set)), nil
}

// Covers names those of paths (absolute, gone by now) the pin would have
// covered as code had they stayed: in a git work tree, inside the code's
// scope, not rlxp's state, not under a directory runs write into, not
// ignored. A file created and removed while a run ran is then a change
// the recomputation at its end cannot find.
func (h *Held) Covers(ctx context.Context, paths []string) ([]string, error) {
	root := h.r.Root
	_, e, err := workspace.Experiment(h.r, h.rec.Subject)
	if err != nil {
		return nil, err
	}
	ad, err := Adapter(h.r)
	if err != nil {
		return nil, err
	}
	named, err := commands(root, ad, h.r.Show(state.Adapter), e, func(int, string, string) {})
	if err != nil {
		return nil, err
	}
	g, err := openGit(ctx, root, ad)
	if err != nil || !g.in {
		return nil, err
	}
	outputs := Outputs(ad, named)
	var rels []string
	abs := map[string]string{}
	for _, p := range paths {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			continue
		}
		rel = filepath.ToSlash(rel)
		if g.scope.covers(rel) && !notCode(change{path: rel, untracked: true}, outputs) {
			rels, abs[rel] = append(rels, rel), p
		}
	}
	ign, err := ignored(ctx, root, rels)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, rel := range rels {
		if !ign[rel] {
			out = append(out, abs[rel])
		}
	}
	return out, nil
}

// HoldPlan is launch.Hold: the approval a confirmed plan's runs are held
// to, which must still be the one the plan was confirmed under.
func HoldPlan(p *launch.Plan) (launch.Holder, error) {
	r, err := state.Open(p.Root, p.Root)
	if err != nil {
		return nil, err
	}
	h, err := Hold(r, p.Experiment)
	if err != nil {
		return nil, err
	}
	if h.Digest() != p.Approved {
		return nil, fmt.Errorf("experiment %s was approved again since its plan was confirmed; confirm the new plan", p.Experiment)
	}
	return h, nil
}
