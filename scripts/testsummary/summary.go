package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// Skip is one skipped test and the reason it logged.
type Skip struct {
	Package string // relative to the module, e.g. internal/probe
	Test    string
	Reason  string
}

type summary struct {
	Packages int      // packages that reported a result
	Failed   []string // packages that failed (tests or build)
	Skips    []Skip
	// Tests that passed and failed, subtests included.
	PassedTests, FailedTests int
}

const module = "github.com/rlxp/rlxp/"

// summarize reads the events, echoes to w what plain `go test` would print
// and collects the skips.
func summarize(r io.Reader, w io.Writer) (summary, error) {
	var sum summary
	outputs := map[[2]string][]string{} // package, test → output lines
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		raw := sc.Bytes()
		if len(raw) == 0 || raw[0] != '{' {
			// go test prints some errors (a package that does not
			// exist) as plain text.
			fmt.Fprintf(w, "%s\n", raw)
			continue
		}
		var e event
		if err := json.Unmarshal(raw, &e); err != nil {
			return sum, fmt.Errorf("stdin:%d: %w", line, err)
		}
		key := [2]string{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			fmt.Fprint(w, e.Output)
		case "output":
			if e.Test == "" {
				if e.Output != "PASS\n" && !strings.HasPrefix(e.Output, "testing: warning: no tests to run") {
					fmt.Fprint(w, e.Output)
				}
				continue
			}
			outputs[key] = append(outputs[key], e.Output)
		case "fail":
			if e.Test == "" {
				sum.Packages++
				sum.Failed = append(sum.Failed, strings.TrimPrefix(e.Package, module))
				continue
			}
			sum.FailedTests++
			fmt.Fprint(w, strings.Join(outputs[key], ""))
			delete(outputs, key)
		case "skip":
			if e.Test == "" {
				sum.Packages++ // a package without test files
				continue
			}
			sum.Skips = append(sum.Skips, Skip{
				Package: strings.TrimPrefix(e.Package, module),
				Test:    e.Test,
				Reason:  skipReason(outputs[key]),
			})
			delete(outputs, key)
		case "pass":
			if e.Test == "" {
				sum.Packages++
			} else {
				sum.PassedTests++
			}
			delete(outputs, key)
		}
	}
	if err := sc.Err(); err != nil {
		return sum, fmt.Errorf("read stdin: %w", err)
	}
	sort.Slice(sum.Skips, func(i, j int) bool {
		a, b := sum.Skips[i], sum.Skips[j]
		if a.Package != b.Package {
			return a.Package < b.Package
		}
		return a.Test < b.Test
	})
	return sum, nil
}

var logPrefix = regexp.MustCompile(`^\S+\.go:\d+: `)

// skipReason is the last line the test logged before it skipped, without
// its file:line prefix; a testscript's skip is its "> skip" line or the
// condition that guarded it.
func skipReason(out []string) string {
	var lines []string
	for _, chunk := range out {
		for _, l := range strings.Split(chunk, "\n") {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- ") || l == "SKIP" || strings.HasPrefix(l, "PASS") {
				continue
			}
			lines = append(lines, logPrefix.ReplaceAllString(l, ""))
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "> ") && strings.Contains(lines[i], "skip") {
			return strings.TrimPrefix(lines[i], "> ")
		}
	}
	if len(lines) == 0 {
		return "(no reason given)"
	}
	return lines[len(lines)-1]
}

// skipRule is one allowed skip: a regular expression over "PKG TEST: REASON".
type skipRule struct {
	re *regexp.Regexp
}

// parseRules reads the expected-skips file: one regular expression a line;
// blank lines and lines starting with # are comments.
func parseRules(name, text string) ([]skipRule, error) {
	var rules []skipRule
	for i, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		re, err := regexp.Compile(l)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		rules = append(rules, skipRule{re})
	}
	return rules, nil
}

func allowedSkip(rules []skipRule, s Skip) bool {
	text := s.Package + " " + s.Test + ": " + s.Reason
	for _, r := range rules {
		if r.re.MatchString(text) {
			return true
		}
	}
	return false
}
