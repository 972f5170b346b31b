package scoring

import (
	"os/exec"
	"strings"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/score"
)

// ContractDigest covers the seven sections (not the approvals), so an
// entry says exactly which protocol scored it.
func ContractDigest(l *contract.Loaded) string {
	m := map[string]any{}
	for _, s := range contract.Sections() {
		m[s] = l.Section(s)
	}
	return contract.Digest(m)
}

// Git records the commit the repository was at; nil outside git.
func Git(root string) *GitState {
	out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return nil
	}
	g := &GitState{Commit: strings.TrimSpace(string(out))}
	// .rlxp/ changes on every score; only the code's state matters here.
	st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude).rlxp").Output()
	g.Dirty = err != nil || len(strings.TrimSpace(string(st))) > 0
	return g
}

// FindBaseline returns the latest usable ledger entry of the baseline.
func FindBaseline(entries []ledger.Entry, id string) *score.BaselineRef {
	for i := len(entries) - 1; i >= 0; i-- {
		f := entries[i].Fields
		if f["experiment"] != id || f["verdict"] == score.Invalid {
			continue
		}
		ref := &score.BaselineRef{Experiment: id, Seq: entries[i].Seq, Guardrails: map[string]float64{}}
		p, _ := f["primary"].(map[string]any)
		ref.Metric, _ = p["name"].(string)
		ref.Aggregate, _ = p["aggregate"].(string)
		perSeed, _ := p["per_seed"].([]any)
		for _, s := range perSeed {
			m, _ := s.(map[string]any)
			if v, ok := number(m["value"]); ok {
				ref.Values = append(ref.Values, v)
			}
		}
		gs, _ := f["guardrails"].([]any)
		for _, g := range gs {
			gm, _ := g.(map[string]any)
			name, _ := gm["name"].(string)
			if v, ok := number(gm["value"]); ok {
				ref.Guardrails[name] = v
			}
		}
		return ref
	}
	return nil
}

// number reads a JSON number decoded with UseNumber (or a float64).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case interface{ Float64() (float64, error) }:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
