package preflight

import (
	"fmt"
	"slices"
	"strings"
)

// quoteLines is how many trailing output lines a blocker quotes.
const quoteLines = 5

// Verdict is the preflight's row of the check table. Warnings never block.
type Verdict struct {
	Blocked  bool     `json:"blocked"`
	Blockers []string `json:"blockers,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Quote holds the last lines the command printed besides its checks,
	// when a blocker refers to them (a runner that died, a timeout).
	Quote []string `json:"quote,omitempty"`
}

// Verdict judges the outcome. FATAL lines block whatever the exit status
// says; a non-zero exit without a FATAL line means the runner failed before
// (or outside) its checks and blocks too, quoting what it printed.
func (o Outcome) Verdict() Verdict {
	var v Verdict
	r := o.Result
	fatals := r.Messages(Fatal)
	v.Blockers = append(v.Blockers, fatals...)
	v.Warnings = append(v.Warnings, r.Messages(Warn)...)
	tail := lastLines(r.Other, quoteLines)

	switch {
	case o.TimedOut:
		v.Blockers = append(v.Blockers, fmt.Sprintf("preflight did not finish within %s", o.Timeout))
		v.Quote = tail
	case o.Canceled:
		v.Blockers = append(v.Blockers, "preflight was cancelled before it finished")
		v.Quote = tail
	case len(fatals) > 0:
		if o.ExitCode == 0 {
			v.Warnings = append(v.Warnings, fmt.Sprintf(
				"the preflight exited 0 but printed %d FATAL line(s); the FATAL lines win over the exit status", len(fatals)))
		}
	case o.ExitCode != 0:
		v.Blockers = append(v.Blockers, diedBlocker(o, tail))
		v.Quote = tail
	}

	if s := r.Summary; s != nil {
		if s.Fatal > 0 && len(fatals) == 0 {
			v.Blockers = append(v.Blockers, fmt.Sprintf(
				"the preflight's summary reports %d FATAL but no FATAL line was read: %s", s.Fatal, s.Text))
		} else if !o.Truncated && (s.Fatal != len(fatals) || s.Warn != r.Count(Warn)) {
			v.Warnings = append(v.Warnings, fmt.Sprintf(
				"the preflight's summary reports %d FATAL, %d WARN but %d FATAL, %d WARN lines were read",
				s.Fatal, s.Warn, len(fatals), r.Count(Warn)))
		}
	}
	if len(r.Lines) == 0 && o.ExitCode == 0 && !o.TimedOut && !o.Canceled {
		v.Warnings = append(v.Warnings, "the preflight printed no ✓/⚠/✗ lines; is this really a preflight?")
	}
	if o.Truncated {
		v.Warnings = append(v.Warnings, fmt.Sprintf(
			"the preflight printed %d bytes; only the first and last %d were read", o.OutputBytes, MaxOutput/2))
	}
	v.Blocked = len(v.Blockers) > 0
	return v
}

func diedBlocker(o Outcome, tail []string) string {
	status := fmt.Sprintf("exit status %d", o.ExitCode)
	if o.Signal != "" {
		status = "signal: " + o.Signal
	}
	what := "the runner died before its preflight"
	if s := o.Result.Summary; s != nil && s.Passed {
		what = "the command failed after its preflight passed"
	}
	if len(tail) == 0 {
		return fmt.Sprintf("%s (%s) and printed nothing else", what, status)
	}
	quoted := make([]string, len(tail))
	for i, l := range tail {
		quoted[i] = strings.TrimSpace(l)
	}
	return fmt.Sprintf("%s (%s): %s", what, status, strings.Join(quoted, " | "))
}

func lastLines(lines []string, n int) []string {
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return slices.Clone(lines)
}
