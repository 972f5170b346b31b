package propose

import (
	"fmt"
	"strconv"

	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/score"
)

// Scored is an experiment's latest usable ledger entry: its primary
// metric across seeds and its verdict.
type Scored struct {
	Experiment string  `json:"experiment"`
	Seq        int64   `json:"seq"`
	Verdict    string  `json:"verdict"`
	Metric     string  `json:"metric"`
	Mean       float64 `json:"mean"`
	Std        float64 `json:"std"`
	N          int     `json:"n"`
}

// Summary is "eval/mean_return 480±12, n=3".
func (s Scored) Summary() string {
	return fmt.Sprintf("%s %s±%s, n=%d", s.Metric, num(s.Mean), num(s.Std), s.N)
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', 4, 64) }

// scored reads the latest entry of each experiment scored with the
// contract's primary metric. Entries whose result cannot rank an
// experiment (invalid, or a guardrail violated) are left out: such an
// experiment is not a place to search around.
func scored(entries []ledger.Entry, metric string) map[string]Scored {
	out := map[string]Scored{}
	for _, e := range entries {
		s := Scored{Experiment: e.String("experiment"), Seq: e.Seq, Verdict: e.String("verdict"), Metric: e.String("primary", "name")}
		if s.Experiment == "" || s.Metric != metric {
			continue
		}
		mean, err := strconv.ParseFloat(e.Number("primary", "mean"), 64)
		usable := err == nil && s.Verdict != score.Invalid && s.Verdict != score.GuardrailViolated
		if !usable {
			// A later unusable entry supersedes an earlier result: the
			// ledger is in order, so the last line wins.
			delete(out, s.Experiment)
			continue
		}
		s.Mean = mean
		s.Std, _ = strconv.ParseFloat(e.Number("primary", "std"), 64)
		s.N, _ = strconv.Atoi(e.Number("primary", "n"))
		out[s.Experiment] = s
	}
	return out
}

// better reports whether a beats b under the goal.
func better(a, b float64, goal string) bool {
	if goal == "minimize" {
		return a < b
	}
	return a > b
}

// verdictPhrase says how a scored experiment compares with the baseline.
func verdictPhrase(v string) string {
	switch v {
	case score.Improved:
		return "improved on the baseline"
	case score.Inconclusive:
		return "is not yet distinguishable from the baseline"
	case score.Regressed:
		return "regressed against the baseline"
	}
	return "has no baseline comparison"
}
