package cli

import (
	"fmt"
	"strconv"

	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/score"
	"github.com/rlxp/rlxp/internal/scoring"
)

func printScore(env *Env, b scoring.Body, e *ledger.Entry) {
	w := env.Stdout
	p := b.Primary
	held := "held-out"
	if !p.HeldOut {
		held = "NOT held-out"
	}
	fmt.Fprintf(w, "experiment %s: %s (%s, %s, %s)\n", b.Experiment, p.Name, p.Aggregate, p.Goal, held)
	rows := [][]string{}
	for _, s := range p.PerSeed {
		v := "—"
		if s.Value != nil {
			v = fmtNum(*s.Value)
		}
		rows = append(rows, []string{strconv.Itoa(s.Seed), s.Run, v, s.Error})
	}
	printTable(env, []string{"SEED", "RUN", "VALUE", "PROBLEM"}, rows)
	for _, sr := range b.SeedRuns {
		switch {
		case sr.Ended == scoring.NotLaunched:
			fmt.Fprintf(w, "seed %d: %s has no rlxp run record: its sources are marked not launched\n", sr.Seed, sr.RunDir)
		case !sr.Complete():
			fmt.Fprintf(w, "seed %d: run %s %s (%s): not complete\n", sr.Seed, sr.Run, sr.Ended, sr.Detail)
		}
	}
	if p.N > 0 {
		line := fmt.Sprintf("mean %s", fmtNum(p.Mean))
		if p.Std != nil {
			line += fmt.Sprintf(" ± %s (std, n=%d), 95%% CI [%s, %s]", fmtNum(*p.Std), p.N, fmtNum(p.CI95[0]), fmtNum(p.CI95[1]))
		} else {
			line += fmt.Sprintf(" (n=%d: no spread estimate)", p.N)
		}
		fmt.Fprintln(w, line)
	}
	if c := b.Baseline; c != nil {
		line := fmt.Sprintf("vs baseline %s (ledger #%d, mean %s, n=%d): delta %+.4g", c.Experiment, c.Seq, fmtNum(c.Mean), c.N, c.Delta)
		if c.RelativeDelta != nil {
			line += fmt.Sprintf(" (%+.1f%%)", *c.RelativeDelta*100)
		}
		switch c.Test {
		case "welch_t":
			line += fmt.Sprintf(", Welch t = %.3g, df = %.3g, p = %.3g", *c.T, *c.DF, *c.PValue)
		case "too_few_seeds":
			line += ", too few seeds for a test"
		}
		fmt.Fprintln(w, line)
	}
	for _, g := range b.Guardrails {
		state := "not checked"
		if g.Pass != nil {
			state = map[bool]string{true: env.paint(green, "pass"), false: env.paint(red, "FAIL")}[*g.Pass]
		}
		v := "—"
		if g.Value != nil {
			v = fmtNum(*g.Value)
		}
		fmt.Fprintf(w, "guardrail %s %s: %s %s\n", g.Name, g.Bound, v, state)
	}
	for _, reason := range b.Reasons {
		fmt.Fprintf(w, "  because: %s\n", reason)
	}
	color := green
	switch b.Verdict {
	case score.Regressed, score.GuardrailViolated, score.Invalid:
		color = red
	case score.Inconclusive:
		color = yellow
	}
	partial := ""
	if b.Partial {
		partial = " (partial: scored with runs that did not finish)"
	}
	fmt.Fprintf(w, "VERDICT: %s%s\n", env.paint(color, b.Verdict), partial)
	if e != nil {
		fmt.Fprintf(w, "ledger: appended #%d (%s…)\n", e.Seq, e.Hash[:19])
	} else {
		fmt.Fprintln(w, "ledger: not appended (--dry-run)")
	}
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', 6, 64) }
