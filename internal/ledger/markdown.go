package ledger

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// missing stands for a value the entry does not have.
const missing = "–"

// MarkdownTable renders entries as a Markdown table for a pull-request
// comment: seq, experiment, primary metric (mean ± 95% CI, n), the delta
// against the baseline with its test, guardrails passed, and the verdict.
// Keys an entry lacks show as "–".
func MarkdownTable(entries []Entry) string {
	var b strings.Builder
	b.WriteString("| seq | experiment | primary: mean ± 95% CI (n) | Δ vs baseline | guardrails | verdict |\n")
	b.WriteString("|---:|---|---|---|---|---|\n")
	for _, e := range entries {
		cells := []string{
			strconv.FormatInt(e.Seq, 10),
			experimentCell(e),
			primaryCell(e),
			baselineCell(e),
			guardrailCell(e),
			verdictCell(e),
		}
		for i, c := range cells {
			cells[i] = mdEscape(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

// verdictCell marks a verdict that rests on runs that did not finish.
func verdictCell(e Entry) string {
	v := orMissing(e.String("verdict"))
	if p, _ := e.Fields["partial"].(bool); p {
		v += " (partial)"
	}
	return v
}

func experimentCell(e Entry) string {
	exp, run := e.String("experiment"), e.String("run")
	switch {
	case exp == "":
		return missing
	case run == "":
		return exp
	}
	return exp + " (run " + run + ")"
}

func primaryCell(e Entry) string {
	name := e.String("primary", "name")
	mean, ok := num(e, "primary", "mean")
	if !ok {
		if name == "" {
			return missing
		}
		return name + " " + missing
	}
	s := fmtNum(mean)
	if lo, hi, ok := ci(e); ok {
		half := (hi - lo) / 2
		if math.Abs((lo+hi)/2-mean) <= 1e-9*math.Max(1, math.Abs(mean)) {
			s += " ± " + fmtNum(half)
		} else {
			s += " [" + fmtNum(lo) + ", " + fmtNum(hi) + "]"
		}
	}
	if n := e.Number("primary", "n"); n != "" {
		s += " (n=" + n + ")"
	}
	if name != "" {
		s = name + " " + s
	}
	if v, ok := e.Lookup("primary", "held_out"); ok && v == false {
		s += " ⚠ not held out"
	}
	return s
}

func ci(e Entry) (lo, hi float64, ok bool) {
	v, _ := e.Lookup("primary", "ci95")
	a, isArr := v.([]any)
	if !isArr || len(a) != 2 {
		return 0, 0, false
	}
	lo, ok1 := toFloat(a[0])
	hi, ok2 := toFloat(a[1])
	return lo, hi, ok1 && ok2
}

func baselineCell(e Entry) string {
	if _, ok := e.Lookup("baseline"); !ok {
		if e.String("verdict") == "baseline" {
			return "(this is the baseline)"
		}
		return missing
	}
	delta, ok := num(e, "baseline", "delta")
	if !ok {
		if e.String("baseline", "test") == "none" || e.String("verdict") == "baseline" {
			return "(this is the baseline)"
		}
		return missing
	}
	s := fmtSigned(delta)
	if rel, ok := num(e, "baseline", "relative_delta"); ok {
		s += " (" + fmtSigned(rel*100) + "%)"
	}
	if e.String("baseline", "test") == "too_few_seeds" {
		s += ", n too small"
	} else if p, ok := num(e, "baseline", "p_value"); ok {
		s += ", " + fmtP(p)
	}
	return s
}

func guardrailCell(e Entry) string {
	v, ok := e.Lookup("guardrails")
	a, isArr := v.([]any)
	if !ok || !isArr || len(a) == 0 {
		return missing
	}
	pass := 0
	var failed, unchecked []string
	for _, g := range a {
		m, _ := g.(map[string]any)
		name, _ := m["name"].(string)
		if name == "" {
			name = "?"
		}
		// pass is absent when the bound could not be checked (a bound
		// relative to a baseline that has not been scored).
		switch m["pass"] {
		case true:
			pass++
		case false:
			failed = append(failed, name)
		default:
			unchecked = append(unchecked, name)
		}
	}
	s := fmt.Sprintf("%d/%d pass", pass, len(a))
	if len(failed) > 0 {
		s += "; failed: " + strings.Join(failed, ", ")
	}
	if len(unchecked) > 0 {
		s += "; not checked: " + strings.Join(unchecked, ", ")
	}
	return s
}

func orMissing(s string) string {
	if s == "" {
		return missing
	}
	return s
}

// mdEscape keeps a cell inside its table cell.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\r", " ", "\n", " ").Replace(s)
}

func num(e Entry, path ...string) (float64, bool) {
	v, ok := e.Lookup(path...)
	if !ok {
		return 0, false
	}
	return toFloat(v)
}

func toFloat(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// fmtNum shows about four significant digits without an exponent for the
// magnitudes metrics usually have.
func fmtNum(v float64) string {
	a := math.Abs(v)
	if a == 0 {
		return "0"
	}
	if a >= 1e6 || a < 1e-3 {
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	digits := 4 - int(math.Floor(math.Log10(a))+1)
	if digits < 0 {
		digits = 0
	}
	s := strconv.FormatFloat(v, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func fmtSigned(v float64) string {
	s := fmtNum(v)
	if v > 0 {
		return "+" + s
	}
	return s
}

func fmtP(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return "p=" + strconv.FormatFloat(p, 'f', 3, 64)
}
