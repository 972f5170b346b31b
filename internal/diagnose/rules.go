package diagnose

import "strings"

// A Rule is one failure signature: the metrics it reads, the conditions
// that together are its evidence, the conditions that rule it out, and
// what to do about it. Rules are data; Evaluate is the only code that
// interprets them.
type Rule struct {
	ID   string
	Name string
	// Needs names the roles the conditions read, each with the tags that
	// carry it in the frameworks rlxp knows.
	Needs []Need
	// When lists the evidence: every condition must hold. A role with no
	// tag in the run's sources leaves the rule not evaluated.
	When []Cond
	// Unless lists what explains the symptom better: when one holds, the
	// signature is not claimed. A role with no tag is skipped here.
	Unless []Cond
	Advice string
}

// A Need is a role a rule reads and the tags that carry it.
type Need struct {
	Role  string
	Tags  []Tag // in order of preference
	Match Match
	// Precise marks a role whose evidence is a value a log rounded to
	// three decimals cannot show (1e-06 prints as 0.000).
	Precise bool
}

// A Tag is a metric key, or a pattern in which '*' matches any run of
// characters, with how its values become the quantity the rule means.
type Tag struct {
	Name string
	// Negate: the tag logs the quantity's negative (SB3's entropy_loss is
	// minus the entropy).
	Negate bool
	// Reciprocal: the tag logs a throughput and the rule means time per
	// step (fps, SPS).
	Reciprocal bool
}

// Match says which of a need's tags the conditions read.
type Match string

// Matches.
const (
	First   Match = ""    // the first listed tag the run logs
	AnyTag  Match = "any" // every tag the run logs; one satisfying every condition is enough
	AllTags Match = "all" // every tag the run logs; all must satisfy every condition
)

// A Test is how a condition judges the recent points of a series, or a
// fact about the run.
type Test string

// Tests. "Recent" is the last Window points; "earlier" the first Earlier
// points of the series, which must not overlap the recent ones.
const (
	AllBelow  Test = "all_below"  // every recent point < Value
	AllEqual  Test = "all_equal"  // every recent point == Value
	AtLeast   Test = "at_least"   // median of recent ≥ Value
	AtMost    Test = "at_most"    // median of recent ≤ Value
	MeanAbove Test = "mean_above" // mean of recent > Value
	FellTo    Test = "fell_to"    // median of recent ≤ Value × median of earlier (which must be > 0)
	RoseTo    Test = "rose_to"    // median of recent ≥ Value × median of earlier
	Rising    Test = "rising"     // least-squares slope over recent has t ≥ Value
	Falling   Test = "falling"    // least-squares slope over recent has t ≤ -Value
	NonFinite Test = "non_finite" // a recent point is NaN or ±Inf
	// Plateau: over the last Window points neither the slope nor the gain
	// on the Window points before them is significant: both |t| < Value.
	Plateau Test = "plateau"
	// Facts about the run rather than its metrics; they have no Role.
	Alive    Test = "alive"     // its process or job is alive
	LogStale Test = "log_stale" // its log has not been written for longer than the stale threshold
)

// A Cond is one condition of a rule.
type Cond struct {
	Role    string
	Test    Test
	Window  int
	Earlier int
	Value   float64
	// Why says, for an Unless condition, what it points at instead.
	Why string
}

// Rules is the signature table: the eight signatures of verl-style agentic
// RL runs, then classic RL ones. Thresholds are deliberately conservative:
// a claim needs its specific evidence.
func Rules() []Rule {
	reward := Need{Role: "reward", Tags: []Tag{
		{Name: "critic/rewards/mean"}, {Name: "critic/score/mean"}, // verl
		{Name: "rollout/ep_rew_mean"},    // SB3
		{Name: "charts/episodic_return"}, // CleanRL
		{Name: "Train/mean_reward"},      // rsl_rl
		{Name: "rewards/step"},           // rl_games
	}}
	envFailed := Need{Role: "env_setup_failed", Tags: []Tag{{Name: "trajectory_filter/reason/env_setup_failed"}}}
	invalid := Need{Role: "invalid_ratio", Tags: []Tag{{Name: "trajectory_filter/invalid_ratio"}}}
	return []Rule{
		{
			ID:    "r3-misalignment",
			Name:  "R3 misalignment",
			Needs: []Need{{Role: "pearson", Tags: []Tag{{Name: "training/rollout_actor_probs_pearson_corr"}}}},
			When:  []Cond{{Role: "pearson", Test: AllBelow, Window: 3, Value: 0.99}},
			Advice: "The rollout engine and the trainer disagree on token probabilities (routing replay misaligned): " +
				"the steps since are wasted. Stop the run and check the R3/routing-replay settings against the model before relaunching.",
		},
		{
			ID:   "frozen-model",
			Name: "frozen model",
			Needs: []Need{{Role: "lr", Precise: true, Tags: []Tag{
				{Name: "actor/lr"}, {Name: "train/learning_rate"}, {Name: "charts/learning_rate"},
				{Name: "Loss/learning_rate"}, {Name: "info/last_lr"},
			}}},
			When: []Cond{{Role: "lr", Test: AllEqual, Window: 3, Value: 0}},
			Advice: "The learning rate is 0, so the weights do not change. A cosine schedule with total_training_steps=-1 " +
				"does this; compare the logged lr with the configured one.",
		},
		{
			ID:   "gradient-starvation",
			Name: "gradient starvation",
			Needs: []Need{
				{Role: "grad_norm", Tags: []Tag{{Name: "actor/grad_norm"}}},
				{Role: "response_length", Tags: []Tag{{Name: "response_length/mean"}}},
			},
			When: []Cond{
				{Role: "grad_norm", Test: FellTo, Window: 3, Earlier: 10, Value: 0.1},
				{Role: "response_length", Test: AtLeast, Window: 3, Value: 4096},
			},
			Advice: "Very long responses dilute the per-token gradient. Check the loss aggregation mode and the response " +
				"length cap, and compare grad_norm with earlier runs of this stack.",
		},
		{
			ID:    "env-avalanche",
			Name:  "env avalanche",
			Needs: []Need{envFailed, reward},
			When: []Cond{
				{Role: "env_setup_failed", Test: Rising, Window: 5, Value: 3},
				{Role: "reward", Test: Falling, Window: 5, Value: 3},
			},
			Advice: "Environments fail to start more and more often while reward falls: the symptom points at the " +
				"environment infrastructure (image registry, node trust, node disk); confirm on the nodes that run the environments.",
		},
		{
			ID:   "val-fake-zero",
			Name: "val fake-zero",
			Needs: []Need{
				{Role: "val", Match: AllTags, Tags: []Tag{{Name: "val-core/*"}, {Name: "val/test_score/*"}}},
				reward,
			},
			When: []Cond{
				{Role: "val", Test: AllEqual, Window: 1, Value: 0},
				{Role: "reward", Test: MeanAbove, Window: 5, Value: 0.01},
			},
			Advice: "Validation scores 0 while training reward is healthy: the symptom points at the validation " +
				"environments (images not pullable, wrong data path), not at the model; confirm by running one validation sample by hand.",
		},
		{
			ID:   "no-tool-call-collapse",
			Name: "no-tool-call collapse",
			Needs: []Need{
				{Role: "num_turns", Tags: []Tag{{Name: "num_turns/mean"}}},
				reward, envFailed, invalid,
			},
			When: []Cond{
				{Role: "num_turns", Test: Falling, Window: 5, Value: 3},
				{Role: "num_turns", Test: AtMost, Window: 1, Value: 2},
				{Role: "reward", Test: Falling, Window: 5, Value: 3},
			},
			Unless: []Cond{
				{Role: "invalid_ratio", Test: AtLeast, Window: 1, Value: 0.1, Why: "most of the batch is dropped: infrastructure first"},
				{Role: "env_setup_failed", Test: Rising, Window: 5, Value: 3, Why: "environments are failing: see env avalanche"},
			},
			Advice: "The policy stopped calling tools and answers in one turn. Check the tool-call parser against the " +
				"served model's format and the prompt's tool instructions; the checkpoint before the fall is the one to keep.",
		},
		{
			ID:   "deadlock",
			Name: "deadlock / stall",
			When: []Cond{{Test: Alive}, {Test: LogStale}},
			Advice: "The process is alive but writes nothing. See whether the log's last lines sit in validation or a " +
				"rollout wait; a stack dump (py-spy dump --pid PID) shows where it hangs.",
		},
		{
			ID:   "step-slowdown",
			Name: "step slowdown",
			Needs: []Need{{Role: "step_time", Tags: []Tag{
				{Name: "timing_s/step"}, {Name: "perf/time_per_step"}, // verl
				{Name: "time/fps", Reciprocal: true},             // SB3
				{Name: "charts/SPS", Reciprocal: true},           // CleanRL
				{Name: "Perf/total_fps", Reciprocal: true},       // rsl_rl
				{Name: "performance/step_fps", Reciprocal: true}, // rl_games
			}}},
			When: []Cond{{Role: "step_time", Test: RoseTo, Window: 3, Earlier: 5, Value: 2}},
			Advice: "Each step takes at least twice as long as the run's first steps. Compare node and replica counts " +
				"in the run's configuration first, then which timing section grew (generation, update, environment).",
		},
		{
			ID:   "nan-loss",
			Name: "NaN/Inf loss",
			Needs: []Need{{Role: "loss", Match: AnyTag, Tags: []Tag{
				{Name: "actor/pg_loss"}, {Name: "actor/loss"}, {Name: "actor/kl_loss"}, {Name: "critic/vf_loss"}, // verl
				{Name: "train/loss"}, {Name: "train/value_loss"}, {Name: "train/policy_gradient_loss"}, // SB3
				{Name: "train/actor_loss"}, {Name: "train/critic_loss"},
				{Name: "losses/value_loss"}, {Name: "losses/policy_loss"}, {Name: "losses/td_loss"}, // CleanRL
				{Name: "losses/qf1_loss"}, {Name: "losses/actor_loss"},
				{Name: "Loss/value_function"}, {Name: "Loss/surrogate"}, // rsl_rl
				{Name: "losses/a_loss"}, {Name: "losses/c_loss"}, // rl_games
			}}},
			When: []Cond{{Role: "loss", Test: NonFinite, Window: 5}},
			Advice: "A loss is no longer a number; the weights after it are likely corrupt. Resume from the last " +
				"checkpoint before it with a lower learning rate, gradient clipping, or fp32 for the loss.",
		},
		{
			ID:   "entropy-collapse",
			Name: "entropy collapse",
			Needs: []Need{{Role: "entropy", Tags: []Tag{
				{Name: "actor/entropy"},                    // verl
				{Name: "train/entropy_loss", Negate: true}, // SB3
				{Name: "losses/entropy"},                   // CleanRL, rl_games
				{Name: "Loss/entropy"},                     // rsl_rl
			}}},
			When: []Cond{{Role: "entropy", Test: FellTo, Window: 5, Earlier: 10, Value: 0.1}},
			Advice: "The policy's entropy fell below a tenth of its early value: it has stopped exploring. Consider an " +
				"entropy bonus, a higher sampling temperature, or clip-higher; keep the checkpoint from before the fall.",
		},
		{
			ID:   "kl-blowup",
			Name: "KL blow-up",
			Needs: []Need{{Role: "kl", Match: AnyTag, Tags: []Tag{
				{Name: "actor/ppo_kl"}, {Name: "actor/kl_loss"}, // verl
				{Name: "train/approx_kl"},  // SB3
				{Name: "losses/approx_kl"}, // CleanRL
				{Name: "info/kl"},          // rl_games
			}}},
			When: []Cond{
				{Role: "kl", Test: RoseTo, Window: 3, Earlier: 10, Value: 10},
				{Role: "kl", Test: AtLeast, Window: 3, Value: 0.1},
			},
			Advice: "The policy moves away from its reference much faster than early in the run. Lower the learning " +
				"rate, raise the KL coefficient or tighten the clip range, and resume from before the rise.",
		},
		{
			ID:     "reward-plateau",
			Name:   "reward plateau",
			Needs:  []Need{reward},
			When:   []Cond{{Role: "reward", Test: Plateau, Window: 20, Value: 2}},
			Advice: "Reward has stopped improving. If it is below target, more steps of this configuration are unlikely to pay: score it, then change one thing.",
		},
	}
}

// wanted returns whether any rule reads a tag.
func wanted(rules []Rule) func(string) bool {
	var pats []string
	for _, r := range rules {
		for _, n := range r.Needs {
			for _, t := range n.Tags {
				pats = append(pats, t.Name)
			}
		}
	}
	return func(tag string) bool {
		for _, p := range pats {
			if match(p, tag) {
				return true
			}
		}
		return false
	}
}

// match reports whether tag matches pattern, where '*' matches any run of
// characters, '/' included. Keys match whole: no suffix matching.
func match(pattern, tag string) bool {
	star := strings.IndexByte(pattern, '*')
	if star < 0 {
		return pattern == tag
	}
	if !strings.HasPrefix(tag, pattern[:star]) {
		return false
	}
	for i := star; i <= len(tag); i++ {
		if match(pattern[star+1:], tag[i:]) {
			return true
		}
	}
	return false
}
