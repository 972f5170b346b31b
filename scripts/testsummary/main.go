// Command testsummary reads `go test -json` on stdin and prints what a plain
// `go test` prints (each package's result, the output of failing tests),
// then one line per skipped test with its reason. It exits 1 when a test or
// a build failed, and, with -expect, when a test skipped that the file does
// not list: under CI every tool the tests need is installed, so a skip
// there hides a test that never ran.
//
//	go test -json ./... | go run ./scripts/testsummary -expect .ci/expected-skips
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	expect := flag.String("expect", "", "a file of the skips allowed (one regular expression a line, matched against \"PKG TEST: REASON\"); any other skip fails")
	flag.Parse()
	var allowed []skipRule
	if *expect != "" {
		data, err := os.ReadFile(*expect)
		if err != nil {
			fmt.Fprintf(os.Stderr, "testsummary: %v\n", err)
			os.Exit(2)
		}
		if allowed, err = parseRules(*expect, string(data)); err != nil {
			fmt.Fprintf(os.Stderr, "testsummary: %v\n", err)
			os.Exit(2)
		}
	}
	sum, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testsummary: %v\n", err)
		os.Exit(1)
	}
	os.Exit(report(os.Stdout, sum, allowed, *expect != ""))
}

// report prints the skips and the verdict and returns the exit code.
func report(w io.Writer, sum summary, allowed []skipRule, checkSkips bool) int {
	code := 0
	if len(sum.Skips) > 0 {
		fmt.Fprintf(w, "\n%d skipped:\n", len(sum.Skips))
	}
	unexpected := 0
	for _, s := range sum.Skips {
		mark := "SKIP"
		if checkSkips && !allowedSkip(allowed, s) {
			mark = "SKIP (unexpected)"
			unexpected++
		}
		fmt.Fprintf(w, "%s %s %s: %s\n", mark, s.Package, s.Test, s.Reason)
	}
	if unexpected > 0 {
		fmt.Fprintf(w, "testsummary: %d unexpected skip(s): install what they need, or list them with the reason in the -expect file\n", unexpected)
		code = 1
	}
	if len(sum.Failed) > 0 {
		fmt.Fprintf(w, "testsummary: FAIL in %d package(s): %v\n", len(sum.Failed), sum.Failed)
		code = 1
	}
	if sum.Packages == 0 {
		fmt.Fprintln(w, "testsummary: no test results on stdin")
		code = 1
	}
	fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n", sum.PassedTests, sum.FailedTests, len(sum.Skips))
	return code
}
