package scoring

import "testing"

func TestLatestCheckpoint(t *testing.T) {
	for _, tc := range []struct {
		name  string
		found []string
		want  int // -1: no checkpoint set
	}{
		{"by step, not by name", []string{"o/checkpoint-1000/trainer_state.json", "o/checkpoint-500/trainer_state.json"}, 0},
		{"three", []string{"o/checkpoint-10/trainer_state.json", "o/checkpoint-2/trainer_state.json", "o/checkpoint-30/trainer_state.json"}, 2},
		{"another file beside", []string{"o/checkpoint-10/trainer_state.json", "o/final/trainer_state.json"}, -1},
		{"two output directories", []string{"a/checkpoint-10/trainer_state.json", "b/checkpoint-20/trainer_state.json"}, -1},
		{"not a trainer state", []string{"o/checkpoint-10/eval.jsonl", "o/checkpoint-20/eval.jsonl"}, -1},
		{"a step with a leading zero", []string{"o/checkpoint-010/trainer_state.json", "o/checkpoint-9/trainer_state.json"}, -1},
		{"no number", []string{"o/checkpoint-last/trainer_state.json", "o/checkpoint-9/trainer_state.json"}, -1},
	} {
		got, ok := latestCheckpoint(tc.found)
		if !ok {
			got = -1
		}
		if got != tc.want {
			t.Errorf("%s: latestCheckpoint = %d, want %d", tc.name, got, tc.want)
		}
	}
}
