package preflight

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const (
	seedFatal = "SP_SIZE=3 does not evenly divide train_world=16(=2×8) → veomni device-mesh AssertionError"
	seedWarn  = "NYDUS_MIRROR empty: val may report a fake zero"
	noLines   = "the preflight printed no ✓/⚠/✗ lines; is this really a preflight?"
)

func TestParse(t *testing.T) {
	tests := []struct {
		file string
		want Result
	}{
		{"seed_systems.txt", Result{
			Lines: []Line{
				{OK, "topology consistent: NNODES=3 = train 2 + rollout 1", 2},
				{Warn, seedWarn, 3},
				{Fatal, seedFatal, 4},
			},
			Summary: &Summary{Fatal: 1, Warn: 1, LineNo: 6,
				Text: "[preflight] 1 FATAL, 1 WARN — refusing to start. Fix the ✗ items above."},
		}},
		{"all_ok.txt", Result{
			Lines: []Line{
				{OK, "python3 3.11.7 (>= 3.8)", 2},
				{OK, "config parses: configs/baseline.json", 3},
				{OK, "lr=0.02", 4},
			},
			Summary: &Summary{Passed: true, LineNo: 6, Text: "[preflight] all fatal checks passed (0 WARN)."},
		}},
		{"warn_only.txt", Result{
			Lines: []Line{
				{OK, "config parses: configs/baseline.json", 2},
				{Warn, "lr=0.8 is large: updates are likely to diverge", 3},
				{Warn, "episodes=50 is short: learning curves will be noisy", 4},
			},
			Summary: &Summary{Warn: 2, Passed: true, LineNo: 6, Text: "[preflight] all fatal checks passed (2 WARN)."},
		}},
		{"skip.txt", Result{
			Lines: []Line{
				{OK, "topology consistent", 2},
				{Skip, "R3 routing replay: structure-only mode", 3},
				{Skip, "path existence: structure-only mode", 4},
			},
			Summary: &Summary{Passed: true, StructureOnly: true, LineNo: 6,
				Text: "[preflight] structure-only: all config checks passed (0 WARN). Filesystem checks skipped."},
		}},
		{"traceback.txt", Result{
			Other: []string{
				"Loading config...",
				"Traceback (most recent call last):",
				`  File "/repo/train.py", line 12, in <module>`,
				"    import torch",
				`  File "/usr/lib/python3/site-packages/torch/__init__.py", line 237, in <module>`,
				"    from torch._C import *",
				"ImportError: libcudart.so.12: cannot open shared object file: No such file or directory",
			},
		}},
		{"fatal_exit0.txt", Result{
			Lines: []Line{
				{OK, "config parses", 2},
				{Fatal, "MODEL_PATH set but missing: /models/qwen", 3},
			},
			Summary: &Summary{Fatal: 1, LineNo: 5,
				Text: "[preflight] 1 FATAL, 0 WARN — refusing to start. Fix the ✗ items above."},
		}},
		{"progress_cr.txt", Result{
			Lines: []Line{
				{OK, "index downloaded", 3},      // CRLF
				{Fatal, "shard 3 is corrupt", 4}, // the last rewrite of a progress line
				{Fatal, "overwritten FATAL", 5},  // a later OK rewrite cannot hide it
				{Warn, "compile cache cold", 6},  // erase-line and cursor escapes
			},
			Summary: &Summary{Fatal: 2, Warn: 1, LineNo: 8,
				Text: "[preflight] 2 FATAL, 1 WARN — refusing to start. Fix the ✗ items above."},
			Other: []string{"downloading index 100%"},
		}},
		{"empty.txt", Result{}},
		{"loose_forms.txt", Result{
			Lines: []Line{
				{OK, "label-only OK", 1},
				{Fatal, "label-only FATAL with a tab", 2},
				{Warn, "bracketed WARN", 3},
				{Skip, "glyph and bracketed label", 4},
				{OK, "heavy check", 5},
				{Fatal, "heavy cross", 6},
				{Warn, "emoji warning sign", 7},
				{Fatal, "glyph says OK, label says FATAL", 8},
				{Fatal, "no space after glyph", 9},
				{OK, "linked", 17}, // OSC 8 hyperlink stripped
			},
			Other: []string{
				"OK so far so good",
				"WARNING: not a check",
				"FATAL: not a check either",
				"✗ a glyph without a label",
				"[OK]",
				"OKAY  not a label",
				"ok     lower case is not a label",
				`+ printf '  ✗ FATAL  %s\n' traced`,
				"[preflight] something else",
			},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := Parse(readTestdata(t, tt.file))
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Parse(%s) mismatch (-want +got):\n%s", tt.file, diff)
			}
		})
	}
}

func TestParseBinary(t *testing.T) {
	r := Parse(readTestdata(t, "binary.bin"))
	if len(r.Lines) != 0 || r.Summary != nil {
		t.Errorf("garbage read as checks: %+v", r)
	}
	if len(r.Other) == 0 {
		t.Error("garbage lines not kept in Other")
	}
}

func TestParseStripsEscapes(t *testing.T) {
	in := "\x1b[1;38;5;196m✗\x1b[0m \x1b[1mFATAL\x1b[22m  bad \x1b]0;title\x07value\x1b(B\x1b[?25h\x00\x7f\u0085\n"
	want := []Line{{Fatal, "bad value", 1}}
	if diff := cmp.Diff(want, Parse([]byte(in)).Lines); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCounts(t *testing.T) {
	r := Parse(readTestdata(t, "warn_only.txt"))
	if got := r.Count(Warn); got != 2 {
		t.Errorf("Count(Warn) = %d, want 2", got)
	}
	if got := r.Messages(Fatal); got != nil {
		t.Errorf("Messages(Fatal) = %q, want none", got)
	}
}
