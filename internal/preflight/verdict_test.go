package preflight

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestVerdict(t *testing.T) {
	tracebackTail := []string{
		`  File "/repo/train.py", line 12, in <module>`,
		"    import torch",
		`  File "/usr/lib/python3/site-packages/torch/__init__.py", line 237, in <module>`,
		"    from torch._C import *",
		"ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
	}
	tests := []struct {
		name string
		file string // testdata file, or
		text string // inline output
		o    Outcome
		want Verdict
	}{
		{name: "seed-systems example", file: "seed_systems.txt", o: Outcome{ExitCode: 1},
			want: Verdict{Blocked: true, Blockers: []string{seedFatal}, Warnings: []string{seedWarn}}},
		{name: "all OK", file: "all_ok.txt", want: Verdict{}},
		{name: "WARN only never blocks", file: "warn_only.txt", want: Verdict{Warnings: []string{
			"lr=0.8 is large: updates are likely to diverge",
			"episodes=50 is short: learning curves will be noisy",
		}}},
		{name: "SKIP lines pass", file: "skip.txt", want: Verdict{}},
		{name: "runner died with a traceback", file: "traceback.txt", o: Outcome{ExitCode: 1},
			want: Verdict{Blocked: true, Blockers: []string{
				`the runner died before its preflight (exit status 1): File "/repo/train.py", line 12, in <module> | import torch | ` +
					`File "/usr/lib/python3/site-packages/torch/__init__.py", line 237, in <module> | from torch._C import * | ` +
					"ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
			}, Quote: tracebackTail}},
		{name: "killed by a signal", file: "traceback.txt", o: Outcome{ExitCode: -1, Signal: "killed"},
			want: Verdict{Blocked: true, Blockers: []string{
				`the runner died before its preflight (signal: killed): File "/repo/train.py", line 12, in <module> | import torch | ` +
					`File "/usr/lib/python3/site-packages/torch/__init__.py", line 237, in <module> | from torch._C import * | ` +
					"ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
			}, Quote: tracebackTail}},
		{name: "FATAL with exit 0 still blocks", file: "fatal_exit0.txt",
			want: Verdict{Blocked: true, Blockers: []string{"MODEL_PATH set but missing: /models/qwen"}, Warnings: []string{
				"the preflight exited 0 but printed 1 FATAL line(s); the FATAL lines win over the exit status",
			}}},
		{name: "progress rewrites", file: "progress_cr.txt", o: Outcome{ExitCode: 1},
			want: Verdict{Blocked: true, Blockers: []string{"shard 3 is corrupt", "overwritten FATAL"},
				Warnings: []string{"compile cache cold"}}},
		{name: "empty output, exit 0", file: "empty.txt", want: Verdict{Warnings: []string{noLines}}},
		{name: "empty output, exit 1", file: "empty.txt", o: Outcome{ExitCode: 1},
			want: Verdict{Blocked: true, Blockers: []string{
				"the runner died before its preflight (exit status 1) and printed nothing else",
			}}},
		{name: "no check lines, exit 0", text: "training would start here\n", want: Verdict{Warnings: []string{noLines}}},
		{name: "timed out", text: "  ✓ OK     a\nwaiting for the cluster\n", o: Outcome{TimedOut: true, Timeout: 200 * time.Millisecond},
			want: Verdict{Blocked: true, Blockers: []string{"preflight did not finish within 200ms"},
				Quote: []string{"waiting for the cluster"}}},
		{name: "timed out after a FATAL", text: "  ✗ FATAL  x\n", o: Outcome{TimedOut: true, Timeout: 2 * time.Minute},
			want: Verdict{Blocked: true, Blockers: []string{"x", "preflight did not finish within 2m0s"}}},
		{name: "cancelled", text: "", o: Outcome{Canceled: true},
			want: Verdict{Blocked: true, Blockers: []string{"preflight was cancelled before it finished"}}},
		{name: "summary counts FATAL that no line shows",
			text: "[preflight] 2 FATAL, 0 WARN — refusing to start. Fix the ✗ items above.\n",
			want: Verdict{Blocked: true, Blockers: []string{
				"the preflight's summary reports 2 FATAL but no FATAL line was read: " +
					"[preflight] 2 FATAL, 0 WARN — refusing to start. Fix the ✗ items above.",
			}, Warnings: []string{noLines}}},
		{name: "summary disagrees with the lines",
			text: "  ⚠ WARN   a\n[preflight] all fatal checks passed (2 WARN).\n",
			want: Verdict{Warnings: []string{"a", "the preflight's summary reports 0 FATAL, 2 WARN but 0 FATAL, 1 WARN lines were read"}}},
		{name: "failed after its preflight passed",
			text: "  ✓ OK     a\n[preflight] all fatal checks passed (0 WARN).\nepisode 1\nSegmentation fault\n", o: Outcome{ExitCode: 139},
			want: Verdict{Blocked: true, Blockers: []string{
				"the command failed after its preflight passed (exit status 139): episode 1 | Segmentation fault",
			}, Quote: []string{"episode 1", "Segmentation fault"}}},
		{name: "truncated output", text: "  ✓ OK     a\n", o: Outcome{Truncated: true, OutputBytes: 5_000_000},
			want: Verdict{Warnings: []string{"the preflight printed 5000000 bytes; only the first and last 524288 were read"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := []byte(tt.text)
			if tt.file != "" {
				out = readTestdata(t, tt.file)
			}
			tt.o.Result = Parse(out)
			got := tt.o.Verdict()
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Verdict mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
