package scoring

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/score"
)

// parseSources reads Spec.Sources into overrides by name.
func parseSources(list []string) (map[string]string, error) {
	out := map[string]string{}
	for _, s := range list {
		name, path, ok := strings.Cut(s, "=")
		if !ok || name == "" || path == "" {
			return nil, fmt.Errorf("invalid --source %q: want NAME=TEMPLATE", s)
		}
		out[name] = path
	}
	return out, nil
}

// Record judges sc against the ledger at path and, unless dryRun,
// appends the entry, which it returns. The caller holds the lock.
func Record(path string, sc *Scored, dryRun bool, now time.Time) (Body, *ledger.Entry, error) {
	entries, err := ledger.ReadAll(path)
	if err != nil {
		return Body{}, nil, err
	}
	body := sc.Judge(entries)
	if dryRun {
		return body, nil, nil
	}
	e, err := ledger.Append(path, body, now)
	if err != nil {
		return body, nil, err
	}
	return body, &e, nil
}

// Negative reports whether the answer is no: regressed, a guardrail
// violated, or invalid.
func (b Body) Negative() bool {
	switch b.Verdict {
	case score.Regressed, score.GuardrailViolated, score.Invalid:
		return true
	}
	return false
}

// JSON is the document `score --json` prints (rlxp.score/v1).
func JSON(b Body, appended *ledger.Entry, dryRun bool) map[string]any {
	out := map[string]any{"schema": "rlxp.score/v1", "dry_run": dryRun, "result": b}
	if appended != nil {
		out["ledger"] = map[string]any{"seq": appended.Seq, "hash": appended.Hash}
	}
	return out
}

// A Text says how a score is shown to a person: Table writes the
// per-seed table (SEED, RUN, VALUE, PROBLEM) and Paint colours a word
// by its sense, "good", "bad" or "unsure".
type Text struct {
	Table func(header []string, rows [][]string)
	Paint func(sense, word string) string
}

// Write writes the score b (and the entry appended, nil for a dry run).
func (t Text) Write(w io.Writer, b Body, e *ledger.Entry) {
	p := b.Primary
	held := "held-out"
	if !p.HeldOut {
		held = "NOT held-out"
	}
	fmt.Fprintf(w, "experiment %s: %s (%s, %s, %s)\n", b.Experiment, p.Name, p.Aggregate, p.Goal, held)
	rows := [][]string{}
	for _, s := range p.PerSeed {
		rows = append(rows, []string{strconv.Itoa(s.Seed), s.Run, num(s.Value), s.Error})
	}
	t.Table([]string{"SEED", "RUN", "VALUE", "PROBLEM"}, rows)
	for _, sr := range b.SeedRuns {
		switch {
		case sr.Ended == NotLaunched:
			fmt.Fprintf(w, "seed %d: %s has no rlxp run record: its sources are marked not launched\n", sr.Seed, sr.RunDir)
		case !sr.Complete():
			fmt.Fprintf(w, "seed %d: run %s %s (%s): not complete\n", sr.Seed, sr.Run, sr.Ended, sr.Detail)
		}
	}
	if p.N > 0 {
		line := "mean " + num(&p.Mean)
		if p.Std != nil {
			line += fmt.Sprintf(" ± %s (std, n=%d), 95%% CI [%s, %s]", num(p.Std), p.N, num(&p.CI95[0]), num(&p.CI95[1]))
		} else {
			line += fmt.Sprintf(" (n=%d: no spread estimate)", p.N)
		}
		fmt.Fprintln(w, line)
	}
	if c := b.Baseline; c != nil {
		line := fmt.Sprintf("vs baseline %s (ledger #%d, mean %s, n=%d): delta %+.4g", c.Experiment, c.Seq, num(&c.Mean), c.N, c.Delta)
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
			state = map[bool]string{true: t.Paint("good", "pass"), false: t.Paint("bad", "FAIL")}[*g.Pass]
		}
		fmt.Fprintf(w, "guardrail %s %s: %s %s\n", g.Name, g.Bound, num(g.Value), state)
	}
	for _, reason := range b.Reasons {
		fmt.Fprintf(w, "  because: %s\n", reason)
	}
	sense := "good"
	switch {
	case b.Negative():
		sense = "bad"
	case b.Verdict == score.Inconclusive:
		sense = "unsure"
	}
	partial := ""
	if b.Partial {
		partial = " (partial: scored with runs that did not finish)"
	}
	fmt.Fprintf(w, "VERDICT: %s%s\n", t.Paint(sense, b.Verdict), partial)
	if e != nil {
		fmt.Fprintf(w, "ledger: appended #%d (%s…)\n", e.Seq, e.Hash[:19])
	} else {
		fmt.Fprintln(w, "ledger: not appended (--dry-run)")
	}
}

// num shows a value to 6 significant digits, "—" when there is none.
func num(f *float64) string {
	if f == nil {
		return "—"
	}
	return strconv.FormatFloat(*f, 'g', 6, 64)
}
