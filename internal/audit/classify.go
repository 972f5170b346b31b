package audit

import (
	"fmt"
	"sort"
	"strings"
)

// Tag roles.
const (
	roleEval        = "held_out_eval"
	roleTrainReward = "train_reward"
	roleOther       = "other"
)

// guardKinds are the guardrail kinds a tag can be, in the order tried,
// with the words that mark them (matched against the tag's lowercase
// words) and what bounding them catches.
var guardKinds = []struct {
	kind  string
	words []string
	why   string
}{
	{"truncation", []string{"clip_ratio", "clipped_ratio", "truncat"}, "outputs cut off at the length limit"},
	{"episode_length", []string{"ep_len", "eplen", "episode_len", "episodic_length", "mean_length", "episode_lengths", "len/len", "response_length", "_length", "/length"}, "episode length: ending episodes early (or stalling) can raise reward per step"},
	{"kl", []string{"approx_kl", "ppo_kl", "kl_loss", "kl_div", "/kl", "_kl", "kl/", "kl_"}, "policy drift per update (KL)"},
	{"entropy", []string{"entropy", "noise_std"}, "entropy collapse: the policy stops exploring"},
	{"success_rate", []string{"success"}, "task success"},
	{"grad_norm", []string{"grad_norm"}, "exploding gradients"},
	{"value_fit", []string{"explained_variance", "vf_explained"}, "value function fit"},
	{"termination", []string{"termination"}, "how episodes end"},
	{"loss", []string{"loss"}, "training loss"},
}

// evalSegment reports a tag segment that names held-out evaluation.
func evalSegment(s string) bool {
	s = strings.ToLower(s)
	switch s {
	case "eval", "evaluation", "test", "val", "validation", "heldout", "held_out", "val-core", "val-aux", "testing":
		return true
	}
	return strings.HasPrefix(s, "eval_") || strings.HasPrefix(s, "test_") || strings.HasPrefix(s, "val_") || strings.HasPrefix(s, "eval-")
}

func isEvalTag(tag string) bool {
	for _, seg := range strings.Split(tag, "/") {
		if evalSegment(seg) {
			return true
		}
	}
	return false
}

func isRewardTag(tag string) bool {
	l := strings.ToLower(tag)
	for _, w := range []string{"reward", "return", "rew_", "_rew", "score", "acc", "pass@", "mean@", "episodic_return"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// guardKind is the guardrail kind of a tag, or "".
func guardKind(tag string) string {
	l := strings.ToLower(tag)
	for _, g := range guardKinds {
		for _, w := range g.words {
			if strings.Contains(l, w) || l == strings.Trim(w, "/_") {
				return g.kind
			}
		}
	}
	return ""
}

func guardWhy(kind string) string {
	for _, g := range guardKinds {
		if g.kind == kind {
			return g.why
		}
	}
	switch kind {
	case "task_term":
		return "one term of the training reward (task tracking or a penalty)"
	}
	return ""
}

// tagRole says what a tag is for the contract: held-out evaluation,
// training reward, a guardrail kind, or other.
func tagRole(tag string) string {
	kind := guardKind(tag)
	switch {
	case timingTag(tag) && !isRewardTag(tag):
		return roleOther
	case isEvalTag(tag) && (isRewardTag(tag) || kind == "success_rate"):
		return roleEval
	case isEvalTag(tag) && kind == "":
		return roleEval
	case kind != "" && kind != "loss":
		return kind
	case isRewardTag(tag) && !isEvalTag(tag):
		return roleTrainReward
	case kind == "loss":
		return "loss"
	}
	return roleOther
}

// evalPathRole is the role of a tag logged in an evaluation path (a
// function named evaluate, eval_*, test_*, validation_*): a reward, a
// loss or another statistic measured there is held out; a guardrail kind
// stays what it is, and so does the time the evaluation took.
func evalPathRole(tag, role string) string {
	if timingTag(tag) && !isRewardTag(tag) {
		return role
	}
	switch role {
	case roleTrainReward, roleOther, "loss":
		return roleEval
	}
	return role
}

func roleOrder(r string) int {
	switch r {
	case roleEval:
		return 0
	case roleTrainReward:
		return 1
	case roleOther, "loss":
		return 3
	}
	return 2
}

// goal is the direction a metric should move, where the name says.
func goal(tag string) string {
	l := strings.ToLower(tag)
	switch {
	case statTag(l):
		return ""
	case strings.Contains(l, "loss") || strings.Contains(l, "error") || strings.Contains(l, "regret"):
		return "minimize"
	case isRewardTag(tag) || strings.Contains(l, "success"):
		return "maximize"
	}
	return ""
}

// timingTag reports a speed or duration: fps, sps, time, throughput.
func timingTag(tag string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(tag), func(r rune) bool { return r == '/' || r == '_' || r == '-' || r == ' ' }) {
		switch w {
		case "sps", "fps", "time", "walltime", "throughput", "duration", "seconds", "timing", "timing_s", "elapsed":
			return true
		}
	}
	return false
}

// statTag reports a spread or a count rather than a level: std, var,
// min, max, number of episodes.
func statTag(l string) bool {
	for _, w := range strings.FieldsFunc(l, func(r rune) bool { return r == '/' || r == '_' || r == '-' || r == '@' }) {
		switch w {
		case "std", "var", "variance", "min", "max", "episodes", "count", "num", "n":
			return true
		}
	}
	return false
}

// primaryScore orders evaluation metrics: returns, rewards and success
// first, then the rest.
func primaryScore(tag string) int {
	l := strings.ToLower(tag)
	switch {
	case statTag(l):
		return 5
	case strings.Contains(l, "mean_return") || strings.Contains(l, "episodic_return") || strings.Contains(l, "mean_reward") || strings.Contains(l, "episode_reward"):
		return 0
	case strings.Contains(l, "success") || strings.Contains(l, "acc") || strings.Contains(l, "pass@"):
		return 1
	case isRewardTag(tag):
		return 2
	case guardKind(tag) != "":
		return 4
	}
	return 3
}

// candidates proposes the contract's metrics: held-out evaluation first,
// then training reward, flagged as such; profiles add what their
// framework logs when the code does not show it, marked as guesses.
func (a *assembler) candidates() {
	seen := map[string]bool{}
	var evals, trains, guards []Candidate
	for _, t := range a.rep.Tags {
		c := Candidate{Tag: t.Tag, Role: t.Role, Source: a.sourceOf(t), Goal: goal(t.Tag), Confidence: t.Confidence, Evidence: t.Evidence}
		switch {
		case t.Role == roleEval:
			c.Note = "held-out evaluation metric (" + t.Backend + ")"
			evals = append(evals, c)
		case t.Role == roleTrainReward:
			c.Note = "training reward: measured on training episodes, not held out"
			trains = append(trains, c)
		case t.Role == roleOther || t.Role == "loss":
			continue
		default:
			c.Note = guardWhy(t.Role)
			if c.Goal == "" && t.Role == "success_rate" {
				c.Goal = "maximize"
			}
			guards = append(guards, c)
		}
		seen[t.Tag] = true
	}
	sort.SliceStable(evals, func(i, j int) bool { return primaryScore(evals[i].Tag) < primaryScore(evals[j].Tag) })
	present := func(pattern string) bool {
		for _, t := range a.rep.Tags {
			if tagMatch(pattern, t.Tag) {
				return true
			}
		}
		return false
	}
	for _, i := range a.matched {
		p := a.profiles[i]
		guess := fmt.Sprintf("typical for %s; not seen in this repository's code", p.Name)
		for _, t := range p.Tags.Eval {
			if !present(t) && !seen[t] {
				seen[t] = true
				evals = append(evals, Candidate{Tag: t, Role: roleEval, Goal: goal(t), Confidence: Low, Guessed: true, Note: guess})
			}
		}
		for _, t := range p.Tags.Train {
			if !present(t) && !seen[t] {
				seen[t] = true
				trains = append(trains, Candidate{Tag: t, Role: roleTrainReward, Goal: "maximize", Confidence: Low, Guessed: true,
					Note: "training reward, not held out; " + guess})
			}
		}
		for _, g := range p.Guardrails {
			if !present(g.Tag) && !seen[g.Tag] {
				seen[g.Tag] = true
				guards = append(guards, Candidate{Tag: g.Tag, Role: g.Kind, Goal: goal(g.Tag), Confidence: Low, Guessed: true,
					Note: guardWhy(g.Kind) + "; " + guess})
			}
		}
	}
	a.rep.MetricCandidates = append(evals, trains...)
	a.rep.Guardrails = guards
}

// sourceOf names the adapter metric source a tag is read from, when its
// file is known and drafted.
func (a *assembler) sourceOf(t Tag) string {
	if t.Output == "" {
		return ""
	}
	for _, name := range sortedKeys(a.rep.Adapter.Sources) {
		if a.rep.Adapter.Sources[name].Path == t.Output {
			return name
		}
	}
	return ""
}

// questions are what a person must decide before any training: the audit
// offers what the repository suggests.
func (a *assembler) questions() {
	var hw []string
	for _, h := range a.rep.Hardware {
		s := h.Name
		if h.Detail != "" {
			s += "=" + h.Detail
		}
		if len(h.Evidence) > 0 {
			s += " (" + h.Evidence[0].String() + ")"
		}
		hw = append(hw, s)
	}
	for _, l := range a.rep.Launchers {
		hw = append(hw, "launcher "+l.Name+" ("+l.Evidence[0].String()+")")
	}
	if len(hw) == 0 {
		hw = append(hw, "no GPU or launcher hints found: the code may run on CPU (guess)")
	}
	var wall []string
	for _, h := range a.rep.Hardware {
		if h.Name == "sbatch time" {
			wall = append(wall, "#SBATCH --time="+h.Detail+" ("+h.Evidence[0].String()+")")
		}
	}
	var held []string
	for _, c := range a.rep.MetricCandidates {
		if c.Role == roleEval && !c.Guessed {
			held = append(held, c.Tag+" ("+c.Evidence[0].String()+")")
		}
	}
	if len(held) == 0 {
		held = append(held, "no held-out evaluation metric found in the code; only training statistics")
	}
	if len(held) > 5 {
		held = held[:5]
	}
	if len(hw) > 6 {
		hw = hw[:6]
	}
	a.rep.Questions = []Question{
		{ID: "gpu_hours", Question: "How many GPU-hours may this study spend in total?"},
		{ID: "max_run_wall_clock", Question: "What is the longest wall-clock time one run may take before it is stopped?", Hints: wall},
		{ID: "max_runs", Question: "How many runs may it launch (configurations x seeds; a baseline needs at least 3 seeds)?"},
		{ID: "max_concurrent", Question: "How many runs may go at once on the available hardware?"},
		{ID: "hardware", Question: "Which hardware is the target: GPUs per run, nodes, and the launcher?", Hints: hw},
		{ID: "held_out_metric", Question: "Which metric is held out (evaluated on seeds, levels or data that training never sees), and is it the primary metric?", Hints: held},
	}
}

// guesses lists where the audit guessed, so nobody mistakes them for
// findings.
func (a *assembler) guesses() {
	g := a.rep.Guesses
	if a.rep.Unknown() {
		g = append(g, "No RL framework was recognised; entry points and tags below come from generic patterns only.")
	}
	for _, f := range a.rep.Frameworks {
		if f.Kind == "generic" {
			g = append(g, "The framework is a guess: no RL library was recognised, but the code steps an environment itself.")
		}
	}
	held, trained := false, false
	for _, c := range a.rep.MetricCandidates {
		held = held || (c.Role == roleEval && !c.Guessed)
		trained = trained || (c.Role == roleTrainReward && !c.Guessed)
	}
	switch {
	case !held && trained:
		g = append(g, "No held-out evaluation metric was found in the code: the reward metrics are training reward. Add an evaluation on held-out seeds or data before choosing the primary metric.")
	case !held:
		g = append(g, "No held-out evaluation metric was found in the code (a framework may log its metrics itself). Find or add an evaluation on held-out seeds or data before choosing the primary metric.")
	}
	for _, t := range a.rep.Tags {
		if t.Confidence == Low {
			g = append(g, "Tags marked low are tag-shaped strings in files that do not visibly log them; check where they are written.")
			break
		}
	}
	for _, s := range a.rep.Simulators {
		if s.Kind == "env_id" && s.Confidence == Low {
			g = append(g, "Environment ids marked low are only mentioned in comments or docstrings.")
			break
		}
	}
	for _, e := range a.rep.EntryPoints {
		if e.Via == "script" && e.Confidence == Medium && e.Kind != "other" {
			g = append(g, "Entry points without a command-line parser are classified by their file name only.")
			break
		}
	}
	found := map[string]bool{}
	for _, o := range a.rep.Outputs {
		found[o.Kind] = true
	}
	for _, i := range a.trusted() {
		p := a.profiles[i]
		if len(p.Outputs) > 0 && !found["metrics"] && !found["logdir"] {
			g = append(g, p.Name+" usually writes "+strings.Join(p.Outputs, "; ")+" (typical, not read from this repository)")
		}
		if p.Config != "" && a.rep.Adapter.Config.System == "" {
			g = append(g, p.Name+" is usually configured with "+p.Config+" (typical, not read from this repository)")
		}
	}
	a.rep.Guesses = append(g, a.rep.Adapter.Notes...)
}
