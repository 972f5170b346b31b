package audit

import "strings"

// "val" names validation (val/loss) and, as often, a value function
// (PPO's val/clipfrac_avg, DreamerV3's val): the rest of the tag and
// the function that logs it tell which.

// valueStats are words of the statistics of a value function's update.
var valueStats = []string{"clipfrac", "clip_frac", "ratio", "approxkl", "approx_kl", "explained_var", "vpred", "var"}

// validationStats are words of what a validation pass measures.
var validationStats = []string{"loss", "acc", "reward", "return", "score", "perplexity", "ppl", "success", "error", "mse", "mae",
	"f1", "bleu", "rouge", "pass", "generation", "win"}

// valOnly reports a tag whose only word for held-out evaluation is the
// bare segment "val", and the rest of the tag without it.
func valOnly(tag string) (rest string, ok bool) {
	var keep []string
	for _, seg := range strings.Split(tag, "/") {
		switch {
		case strings.EqualFold(seg, "val"):
			ok = true
		case evalSegment(seg):
			return "", false
		default:
			keep = append(keep, seg)
		}
	}
	return strings.Join(keep, "/"), ok
}

// trainFunc reports a function named for a training step or loss
// (train, training_step, update, learn, imag_loss), not for evaluation.
func trainFunc(name string) bool {
	if evalFunc(name) {
		return false
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		switch w {
		case "train", "training", "update", "learn", "loss", "optimize", "fit":
			return true
		}
	}
	return false
}

// valueTagRole is the role of a tag whose "val" names a value function
// and not validation: the rest of the tag names a value update's
// statistic, or it is logged in a training step and names nothing a
// validation pass measures. ok is false for every other tag.
func valueTagRole(t tagHit) (role string, ok bool) {
	rest, only := valOnly(t.tag)
	if !only || t.eval {
		return "", false
	}
	l := strings.ToLower(rest)
	stat := false
	for _, w := range valueStats {
		stat = stat || strings.Contains(l, w)
	}
	measured := false
	for _, w := range validationStats {
		measured = measured || strings.Contains(l, w)
	}
	// Keys not written in the code (val/{key}) say nothing either way.
	if strings.Contains(rest, "*") || !(stat && !measured) && !(t.train && !measured) {
		return "", false
	}
	if rest == "" {
		return roleOther, true
	}
	return tagRole("value/" + rest), true
}
