package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Events as go test -json wrote them for a t.Skip, a testscript skip, a
// failing test and a package without tests.
const stream = `{"Action":"start","Package":"github.com/rlxp/rlxp/internal/probe"}
{"Action":"run","Package":"github.com/rlxp/rlxp/internal/probe","Test":"TestSystemGPUs"}
{"Action":"output","Package":"github.com/rlxp/rlxp/internal/probe","Test":"TestSystemGPUs","Output":"=== RUN   TestSystemGPUs\n"}
{"Action":"output","Package":"github.com/rlxp/rlxp/internal/probe","Test":"TestSystemGPUs","Output":"    gpu_test.go:249: no nvidia-smi\n"}
{"Action":"output","Package":"github.com/rlxp/rlxp/internal/probe","Test":"TestSystemGPUs","Output":"--- SKIP: TestSystemGPUs (0.00s)\n"}
{"Action":"skip","Package":"github.com/rlxp/rlxp/internal/probe","Test":"TestSystemGPUs","Elapsed":0}
{"Action":"pass","Package":"github.com/rlxp/rlxp/internal/probe","Test":"TestPos","Elapsed":0}
{"Action":"output","Package":"github.com/rlxp/rlxp/internal/probe","Output":"PASS\n"}
{"Action":"output","Package":"github.com/rlxp/rlxp/internal/probe","Output":"ok  \tgithub.com/rlxp/rlxp/internal/probe\t0.336s\n"}
{"Action":"pass","Package":"github.com/rlxp/rlxp/internal/probe","Elapsed":0.3}
{"Action":"output","Package":"github.com/rlxp/rlxp/cmd/rlxp","Test":"TestScript/slurm","Output":"=== RUN   TestScript/slurm\n"}
{"Action":"output","Package":"github.com/rlxp/rlxp/cmd/rlxp","Test":"TestScript/slurm","Output":"    testscript.go:584: # A real cluster. (0.000s)\n"}
{"Action":"output","Package":"github.com/rlxp/rlxp/cmd/rlxp","Test":"TestScript/slurm","Output":"        > [!slurm] skip 'no Slurm controller answers'\n"}
{"Action":"output","Package":"github.com/rlxp/rlxp/cmd/rlxp","Test":"TestScript/slurm","Output":"        SKIP\n"}
{"Action":"skip","Package":"github.com/rlxp/rlxp/cmd/rlxp","Test":"TestScript/slurm","Elapsed":0}
{"Action":"output","Package":"github.com/rlxp/rlxp/cmd/rlxp","Test":"TestScript/gate","Output":"    gate.txtar:3: want exit 3\n"}
{"Action":"fail","Package":"github.com/rlxp/rlxp/cmd/rlxp","Test":"TestScript/gate","Elapsed":0}
{"Action":"output","Package":"github.com/rlxp/rlxp/cmd/rlxp","Output":"FAIL\tgithub.com/rlxp/rlxp/cmd/rlxp\t1.0s\n"}
{"Action":"fail","Package":"github.com/rlxp/rlxp/cmd/rlxp","Elapsed":1}
{"Action":"output","Package":"github.com/rlxp/rlxp/scripts/bench/genmetrics","Output":"?   \tgithub.com/rlxp/rlxp/scripts/bench/genmetrics\t[no test files]\n"}
{"Action":"skip","Package":"github.com/rlxp/rlxp/scripts/bench/genmetrics","Elapsed":0}
`

func TestSummarize(t *testing.T) {
	var out bytes.Buffer
	sum, err := summarize(strings.NewReader(stream), &out)
	if err != nil {
		t.Fatal(err)
	}
	want := summary{
		Packages: 3,
		Failed:   []string{"cmd/rlxp"},
		Skips: []Skip{
			{Package: "cmd/rlxp", Test: "TestScript/slurm", Reason: "[!slurm] skip 'no Slurm controller answers'"},
			{Package: "internal/probe", Test: "TestSystemGPUs", Reason: "no nvidia-smi"},
		},
		PassedTests: 1,
		FailedTests: 1,
	}
	if d := cmp.Diff(want, sum); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	wantOut := "ok  \tgithub.com/rlxp/rlxp/internal/probe\t0.336s\n" +
		"    gate.txtar:3: want exit 3\n" +
		"FAIL\tgithub.com/rlxp/rlxp/cmd/rlxp\t1.0s\n" +
		"?   \tgithub.com/rlxp/rlxp/scripts/bench/genmetrics\t[no test files]\n"
	if d := cmp.Diff(wantOut, out.String()); d != "" {
		t.Errorf("echoed output (-want +got):\n%s", d)
	}
}

func TestReport(t *testing.T) {
	sum := summary{Packages: 2, PassedTests: 5, Skips: []Skip{
		{Package: "internal/probe", Test: "TestSystemGPUs", Reason: "no nvidia-smi"},
		{Package: "cmd/rlxp", Test: "TestScript/slurm", Reason: "[!slurm] skip"},
	}}
	rules, err := parseRules("expected", "# GPUs are not in CI\n^internal/probe TestSystemGPUs: no nvidia-smi$\n")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		check bool
		code  int
		out   string
	}{
		{"without -expect every skip is listed", false, 0,
			"\n2 skipped:\nSKIP internal/probe TestSystemGPUs: no nvidia-smi\nSKIP cmd/rlxp TestScript/slurm: [!slurm] skip\n5 passed, 0 failed, 2 skipped\n"},
		{"with -expect an unlisted skip fails", true, 1,
			"\n2 skipped:\nSKIP internal/probe TestSystemGPUs: no nvidia-smi\nSKIP (unexpected) cmd/rlxp TestScript/slurm: [!slurm] skip\n" +
				"testsummary: 1 unexpected skip(s): install what they need, or list them with the reason in the -expect file\n5 passed, 0 failed, 2 skipped\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			code := report(&out, sum, rules, tt.check)
			if code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			if d := cmp.Diff(tt.out, out.String()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestParseRulesRejectsBadExpression(t *testing.T) {
	_, err := parseRules(".ci/expected-skips", "ok\n(unclosed\n")
	if err == nil || !strings.HasPrefix(err.Error(), ".ci/expected-skips:2: ") {
		t.Errorf("err = %v, want one naming .ci/expected-skips:2", err)
	}
}
