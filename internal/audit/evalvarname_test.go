package audit

import "testing"

// TestEvalVarName: a value named for evaluation marks its tag held out; "val"
// as a value's last word (old_val, q_val) is a value, not validation.
func TestEvalVarName(t *testing.T) {
	for name, want := range map[string]bool{
		"normalized_eval_score": true,
		"test_returns":          true,
		"val_acc":               true,
		"valid_loss":            true,
		"evaluator":             true,
		"old_val":               false,
		"q_val":                 false,
		"next_q_val":            false,
		"val":                   false,
		"values":                false,
		"value_loss":            false,
		"episodic_return":       false,
	} {
		if got := evalVarName(name); got != want {
			t.Errorf("evalVarName(%q) = %v, want %v", name, got, want)
		}
	}
}
