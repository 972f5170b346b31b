package scoring

import (
	"path/filepath"
	"strconv"
	"strings"
)

// latestCheckpoint picks, among a pattern's matches, the one source that
// stands for them all when they are the trainer_state.json files of one
// transformers Trainer's checkpoints: every match is DIR/checkpoint-N/
// trainer_state.json, in one DIR. Each checkpoint's file holds the
// log_history from the run's first step to its own (the Trainer saves the
// whole TrainerState), so the latest holds what the earlier ones hold;
// the latest is the largest N, the step the Trainer names the directory
// after (which the reader checks against the file's global_step), not
// the newest file or the last name in sorted order (checkpoint-500 sorts
// after checkpoint-1000). Anything else matching is no such set: ok is
// false, and the pattern stays ambiguous.
func latestCheckpoint(found []string) (int, bool) {
	best, bestN, dir := -1, int64(-1), ""
	for i, f := range found {
		if filepath.Base(f) != "trainer_state.json" {
			return 0, false
		}
		ck := filepath.Dir(f)
		digits, ok := strings.CutPrefix(filepath.Base(ck), "checkpoint-")
		n, err := strconv.ParseInt(digits, 10, 64)
		if !ok || err != nil || n < 0 || strconv.FormatInt(n, 10) != digits {
			return 0, false
		}
		if i == 0 {
			dir = filepath.Dir(ck)
		} else if filepath.Dir(ck) != dir {
			return 0, false
		}
		if n > bestN {
			best, bestN = i, n
		}
	}
	return best, best >= 0
}
