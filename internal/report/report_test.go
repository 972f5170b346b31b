package report

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/schema/validate"
	"github.com/rlxp/rlxp/templates"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const approvedAt = "2026-11-29T09:00:00Z"

// fixtureContract is the scripts' CartPole contract, edited by edit, with
// the given sections approved.
func fixtureContract(t *testing.T, edit func(string) string, approve ...string) *contract.Loaded {
	t.Helper()
	l := parseContract(t, fixtureBytes(t, edit))
	l.UseApprovals(approvalsOf(t, l, approve...), nil)
	return l
}

// approvalsOf approves the sections of l as they are, as the approvals log
// would record it.
func approvalsOf(t *testing.T, l *contract.Loaded, sections ...string) map[string]contract.Approval {
	t.Helper()
	digests, err := l.Digests(sections)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]contract.Approval{}
	for name, d := range digests {
		out[name] = contract.Approval{By: "dana", At: approvedAt, Digest: d, Interactive: true}
	}
	return out
}

// fixtureBytes is contract.yaml for fixtureContract.
func fixtureBytes(t *testing.T, edit func(string) string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "cmd", "rlxp", "testdata", "fixtures", "contract.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		b = []byte(edit(string(b)))
	}
	return b
}

func parseContract(t *testing.T, b []byte) *contract.Loaded {
	t.Helper()
	l, err := contract.Parse(validate.Schemas{}, "contract.yaml", b)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func templateContract(t *testing.T) *contract.Loaded {
	t.Helper()
	b, err := fs.ReadFile(templates.FS, "contract.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return parseContract(t, bytes.ReplaceAll(b, []byte("{{project}}"), []byte("cartpole")))
}

func exp(id, status string, seeds []int, params ...any) *experiment.Experiment {
	e := &experiment.Experiment{ID: id, Status: status, Seeds: seeds, Category: "hyperparameter"}
	for i := 0; i+1 < len(params); i += 2 {
		e.Params = append(e.Params, yaml.MapItem{Key: params[i], Value: params[i+1]})
	}
	if status == experiment.Approved {
		e.Approval = &contract.Approval{By: "dana", At: approvedAt, Digest: e.Digest(), Interactive: true}
	}
	return e
}

// entry is a ledger body as score writes it, cut to what a report reads.
func entry(id string, mean float64, n int, verdict string, baseline map[string]any, guardrails ...map[string]any) map[string]any {
	p := map[string]any{"name": "eval/mean_return", "aggregate": "last", "goal": "maximize", "held_out": true, "mean": mean, "n": n}
	if n > 1 {
		p["std"] = 10.0
		p["ci95"] = []float64{mean - 24.84, mean + 24.84}
	}
	b := map[string]any{"experiment": id, "primary": p, "verdict": verdict, "guardrails": guardrails}
	if guardrails == nil {
		b["guardrails"] = []any{}
	}
	if baseline != nil {
		b["baseline"] = baseline
	}
	return b
}

func welch(delta, rel, p float64) map[string]any {
	return map[string]any{"experiment": "baseline", "seq": 1, "delta": delta, "relative_delta": rel, "test": "welch_t", "p_value": p}
}

func guard(name string, pass any) map[string]any {
	g := map[string]any{"name": name, "bound": "≥ 50"}
	if pass != nil {
		g["pass"] = pass
	}
	return g
}

// writeLedger appends bodies an hour apart from a fixed time and reads the
// ledger back as a report's caller does.
func writeLedger(t *testing.T, bodies ...map[string]any) ([]ledger.Entry, ledger.Report) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for i, b := range bodies {
		if _, err := ledger.Append(path, b, start.Add(time.Duration(i)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	entries, rep := ledger.Load("ledger.jsonl", data)
	return entries, rep
}

func intp(i int) *int { return &i }

func run(id, exp string, seed int, start, end string, exit *int, stoppedBy string) runs.Record {
	return runs.Record{ID: id, Experiment: exp, Seed: intp(seed), GPUs: 1, Backend: runs.Local, StartedAt: start, EndedAt: end, Exit: exit, StoppedBy: stoppedBy, WallClock: "10m0s"}
}

// scenarios are the states the golden files show.
func scenarios(t *testing.T) map[string]Input {
	fresh := Input{Contract: templateContract(t), Experiments: &experiment.Set{}}
	fresh.Ledger, fresh.LedgerCheck = writeLedger(t)

	all := contract.Sections()
	full := Input{
		Contract: fixtureContract(t, nil, all...),
		Experiments: &experiment.Set{Experiments: []*experiment.Experiment{
			exp("baseline", experiment.Approved, []int{0, 1, 2}),
			exp("fast", experiment.Approved, []int{0, 1, 2}, "lr", 0.05),
			exp("slow", experiment.Proposed, []int{0, 1, 2}, "lr", 0.001),
			exp("wide", experiment.Approved, []int{0, 1, 2}, "hidden", uint64(64)),
			exp("noisy", experiment.Approved, []int{0}, "gamma", 0.95),
			exp("bad-seed", experiment.Approved, []int{0, 1}, "lr", 0.09),
			{ID: "old", Status: experiment.Rejected, Seeds: []int{0}, Rejection: &experiment.Rejection{By: "dana", At: approvedAt, Reason: "covered"}},
		}},
		Runs: []runs.Record{
			run("r-fast-2", "fast", 2, "2026-11-29T10:20:00Z", "2026-11-29T10:30:00Z", nil, runs.StoppedBudget),
			run("r-base-0", "baseline", 0, "2026-11-29T10:00:00Z", "2026-11-29T10:05:00Z", intp(0), ""),
			run("r-base-1", "baseline", 1, "2026-11-29T10:00:00Z", "2026-11-29T10:06:00Z", intp(0), ""),
			run("r-base-2", "baseline", 2, "2026-11-29T10:00:00Z", "2026-11-29T10:07:00Z", intp(0), ""),
			run("r-fast-0", "fast", 0, "2026-11-29T10:10:00Z", "2026-11-29T10:16:00Z", intp(0), ""),
			run("r-fast-1", "fast", 1, "2026-11-29T10:10:00Z", "2026-11-29T10:11:00Z", intp(2), ""),
			run("r-noisy-0", "noisy", 0, "2026-11-29T10:40:00Z", "2026-11-29T10:45:00Z", intp(0), ""),
			run("r-bad-0", "bad-seed", 0, "2026-11-29T11:00:00Z", "", nil, ""),
			run("r-bad-1", "bad-seed", 1, "2026-11-29T11:00:00Z", "2026-11-29T11:02:00Z", nil, "user"),
		},
	}
	full.Ledger, full.LedgerCheck = writeLedger(t,
		entry("baseline", 400, 3, "baseline", nil, guard("eval/mean_length", true)),
		entry("fast", 430, 3, "inconclusive", welch(30, 0.075, 0.2), guard("eval/mean_length", true)),
		entry("baseline", 410, 3, "baseline", nil, guard("eval/mean_length", true)),
		entry("fast", 490, 3, "improved", welch(80, 0.1951, 0.0005), guard("eval/mean_length", true)),
		entry("wide", 500, 3, "guardrail_violated", welch(90, 0.2195, 0.0004), guard("eval/mean_length", false)),
		entry("noisy", 420, 1, "inconclusive", map[string]any{"delta": 10, "relative_delta": 0.0244, "test": "too_few_seeds"}, guard("eval/mean_length", nil)),
		entry("bad-seed", 0, 0, "invalid", nil, guard("eval/mean_length", nil)),
	)

	// Minimised metric, a stale section, an unapproved one, a broken ledger.
	minimize := func(s string) string {
		return strings.Replace(s, "goal: maximize\n    held_out: true", "goal: minimize\n    held_out: false", 1)
	}
	// Approved, then edited: the budget approval goes stale.
	approved := fixtureContract(t, minimize, "task", "metrics", "scope", "budget", "hardware", "baseline")
	edited := parseContract(t, []byte(strings.Replace(string(fixtureBytes(t, minimize)), "gpu_hours: 2\n", "gpu_hours: 0.2\n", 1)))
	edited.UseApprovals(approvalsOf(t, approved, "task", "metrics", "scope", "budget", "hardware", "baseline"), nil)
	degraded := Input{
		Contract: edited,
		Experiments: &experiment.Set{Experiments: []*experiment.Experiment{
			exp("baseline", experiment.Approved, []int{0, 1, 2}),
			exp("short", experiment.Approved, []int{0, 1, 2}, "lr", 0.01),
		}},
		Runs: []runs.Record{run("r1", "short", 0, "2026-11-29T10:00:00Z", "", nil, "")},
	}
	degraded.Ledger, degraded.LedgerCheck = writeLedger(t,
		entry("baseline", 3.5, 3, "baseline", nil),
		entry("short", 2.5, 3, "improved", welch(-1, -0.2857, 0.01)),
		entry("long", 4.5, 3, "regressed", welch(1, 0.2857, 0.02)),
	)
	degraded.LedgerCheck.Problem = &ledger.Problem{Name: "ledger.jsonl", Line: 4, Msg: "hash does not match the entry's content"}
	return map[string]Input{"fresh": fresh, "full": full, "degraded": degraded}
}

// TestGolden renders each scenario into the template and compares it with
// its golden file; go test -update rewrites them.
func TestGolden(t *testing.T) {
	for name, in := range scenarios(t) {
		t.Run(name, func(t *testing.T) {
			rep, err := Build(in)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := ParseMarkers("report.md", templateReport(t))
			if err != nil {
				t.Fatal(err)
			}
			got := doc.Render(rep.Markdown)
			path := filepath.Join("testdata", name+".md")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", path, diff)
			}
			// A second rendering of the result changes nothing.
			doc, err = ParseMarkers("report.md", got)
			if err != nil {
				t.Fatal(err)
			}
			if again := doc.Render(rep.Markdown); !bytes.Equal(again, got) {
				t.Errorf("regenerating the report changed it")
			}
		})
	}
}

func TestRunStates(t *testing.T) {
	rec := func(end string, exit *int, signal, stoppedBy string) runs.Record {
		return runs.Record{ID: "r", StartedAt: "2026-11-29T10:00:00Z", EndedAt: end, Exit: exit, Signal: signal, StoppedBy: stoppedBy, WallClock: "1h0m0s"}
	}
	const end = "2026-11-29T10:30:00Z"
	for _, tc := range []struct {
		name        string
		rec         runs.Record
		state, more string
	}{
		{"no end yet", rec("", nil, "", ""), InFlight, ""},
		{"exit 0", rec(end, intp(0), "", ""), Finished, ""},
		{"exit 1", rec(end, intp(1), "", ""), Failed, "exit 1"},
		{"killed", rec(end, nil, "killed", ""), Failed, "signal killed"},
		{"no exit recorded", rec(end, nil, "", ""), Failed, "no exit status recorded"},
		{"stopped at budget", rec(end, nil, "terminated", runs.StoppedBudget), StoppedAtBudget, "allowance 1h0m0s"},
		{"stopped by user", rec(end, intp(0), "", "user"), Stopped, "by user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runOf(tc.rec)
			if got.State != tc.state || got.Detail != tc.more {
				t.Errorf("state %q (%q), want %q (%q)", got.State, got.Detail, tc.state, tc.more)
			}
		})
	}
}

func TestBuild(t *testing.T) {
	all := contract.Sections()
	approvedContract := fixtureContract(t, nil, all...)
	baseline := exp("baseline", experiment.Approved, []int{0, 1, 2})
	ended := func(id string, seed int, end string) runs.Record {
		return run(id, "baseline", seed, "2026-11-29T10:00:00Z", end, intp(0), "")
	}
	threeRuns := []runs.Record{
		ended("b0", 0, "2026-11-29T10:10:00Z"), ended("b1", 1, "2026-11-29T10:10:00Z"), ended("b2", 2, "2026-11-29T10:10:00Z"),
	}
	cpuRuns := slices.Clone(threeRuns)
	for i := range cpuRuns {
		cpuRuns[i].GPUs = 0
	}
	type want struct {
		Budget Budget
		Ranks  []string
		Next   []string
	}
	for _, tc := range []struct {
		name   string
		in     Input
		bodies []map[string]any
		want   want
	}{{
		name: "runs ended after the last score: score again",
		in:   Input{Contract: approvedContract, Experiments: &experiment.Set{Experiments: []*experiment.Experiment{baseline}}, Runs: threeRuns},
		want: want{
			Budget: Budget{Known: true, GPUHours: 2, GPUHoursSpent: 0.5, GPUHoursLeft: 1.5, MaxRuns: 12, RunsSpent: 3, RunsLeft: 9, MaxRunWallClock: "10m", MaxConcurrent: 2, GPUsPerRun: 1},
			Ranks:  []string{},
			Next:   []string{"Score what has finished since its last ledger entry: `rlxp score baseline`."},
		},
	}, {
		name:   "all scored: propose within what is left",
		in:     Input{Contract: approvedContract, Experiments: &experiment.Set{Experiments: []*experiment.Experiment{baseline}}, Runs: threeRuns},
		bodies: []map[string]any{entry("baseline", 410, 3, "baseline", nil)},
		want: want{
			Budget: Budget{Known: true, GPUHours: 2, GPUHoursSpent: 0.5, GPUHoursLeft: 1.5, MaxRuns: 12, RunsSpent: 3, RunsLeft: 9, MaxRunWallClock: "10m", MaxConcurrent: 2, GPUsPerRun: 1},
			Ranks:  []string{"1 baseline"},
			Next:   []string{"Consider new proposals: `rlxp propose` drafts experiments inside the approved scope and what is left of the budget (9 runs, 1.5 GPU-hours); a human approves the ones worth running."},
		},
	}, {
		name: "budget spent",
		in: Input{Contract: fixtureContract(t, func(s string) string { return strings.Replace(s, "max_runs: 12", "max_runs: 3", 1) }, all...),
			Experiments: &experiment.Set{Experiments: []*experiment.Experiment{baseline}}, Runs: threeRuns},
		bodies: []map[string]any{entry("baseline", 410, 3, "baseline", nil)},
		want: want{
			Budget: Budget{Known: true, GPUHours: 2, GPUHoursSpent: 0.5, GPUHoursLeft: 1.5, MaxRuns: 3, RunsSpent: 3, RunsLeft: 0, MaxRunWallClock: "10m", MaxConcurrent: 2, GPUsPerRun: 1},
			Ranks:  []string{"1 baseline"},
			Next:   []string{"The budget is spent (3 of 3 runs, 0.5 of 2 GPU-hours used or reserved): only a human can raise it, by editing and re-approving the budget section."},
		},
	}, {
		name: "a CPU-only contract spends no GPU-hours: runs are what is left",
		in: Input{Contract: fixtureContract(t, func(s string) string {
			return strings.Replace(strings.Replace(s, "gpu_hours: 2", "gpu_hours: 0", 1), "gpus_per_run: 1", "gpus_per_run: 0", 1)
		}, all...), Experiments: &experiment.Set{Experiments: []*experiment.Experiment{baseline}}, Runs: cpuRuns},
		bodies: []map[string]any{entry("baseline", 410, 3, "baseline", nil)},
		want: want{
			Budget: Budget{Known: true, MaxRuns: 12, RunsSpent: 3, RunsLeft: 9, MaxRunWallClock: "10m", MaxConcurrent: 2},
			Ranks:  []string{"1 baseline"},
			Next:   []string{"Consider new proposals: `rlxp propose` drafts experiments inside the approved scope and what is left of the budget (9 runs, on CPU); a human approves the ones worth running."},
		},
	}, {
		name: "GPU-hours spent while runs are left",
		in: Input{Contract: fixtureContract(t, func(s string) string { return strings.Replace(s, "gpu_hours: 2", "gpu_hours: 0.5", 1) }, all...),
			Experiments: &experiment.Set{Experiments: []*experiment.Experiment{baseline}}, Runs: threeRuns},
		bodies: []map[string]any{entry("baseline", 410, 3, "baseline", nil)},
		want: want{
			Budget: Budget{Known: true, GPUHours: 0.5, GPUHoursSpent: 0.5, MaxRuns: 12, RunsSpent: 3, RunsLeft: 9, MaxRunWallClock: "10m", MaxConcurrent: 2, GPUsPerRun: 1},
			Ranks:  []string{"1 baseline"},
			Next:   []string{"The budget is spent (3 of 12 runs, 0.5 of 0.5 GPU-hours used or reserved): only a human can raise it, by editing and re-approving the budget section."},
		},
	}, {
		name: "a failed seed run again and finished is not reported; equal means share a rank",
		in: Input{Contract: approvedContract, Experiments: &experiment.Set{Experiments: []*experiment.Experiment{baseline}}, Runs: []runs.Record{
			run("b0", "baseline", 0, "2026-11-29T09:00:00Z", "2026-11-29T09:01:00Z", intp(1), ""),
			ended("b0-again", 0, "2026-11-29T10:10:00Z"), ended("b1", 1, "2026-11-29T10:10:00Z"), ended("b2", 2, "2026-11-29T10:10:00Z"),
		}},
		bodies: []map[string]any{entry("a", 420, 3, "inconclusive", welch(10, 0.02, 0.3)), entry("b", 420, 3, "inconclusive", welch(10, 0.02, 0.3)), entry("baseline", 410, 3, "baseline", nil)},
		want: want{
			Budget: Budget{Known: true, GPUHours: 2, GPUHoursSpent: 0.5167, GPUHoursLeft: 1.483, MaxRuns: 12, RunsSpent: 4, RunsLeft: 8, MaxRunWallClock: "10m", MaxConcurrent: 2, GPUsPerRun: 1},
			Ranks:  []string{"1 a", "1 b", "3 baseline"},
			Next:   []string{"Consider new proposals: `rlxp propose` drafts experiments inside the approved scope and what is left of the budget (8 runs, 1.483 GPU-hours); a human approves the ones worth running."},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			tc.in.Ledger, tc.in.LedgerCheck = writeLedger(t, tc.bodies...)
			rep, err := Build(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got := want{Budget: rep.Budget, Ranks: []string{}, Next: rep.Next}
			for _, r := range rep.Leaderboard.Rows {
				got.Ranks = append(got.Ranks, fmt.Sprintf("%d %s", r.Rank, r.Experiment))
			}
			round := cmp.Comparer(func(a, b float64) bool { return num(a) == num(b) })
			if diff := cmp.Diff(tc.want, got, round); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestBuildRefuses: a run record whose times cannot be read leaves the
// budget unknowable, which is an error rather than a wrong number.
func TestBuildRefuses(t *testing.T) {
	in := Input{Contract: fixtureContract(t, nil), Experiments: &experiment.Set{},
		Runs: []runs.Record{{ID: "r", Experiment: "e", StartedAt: "yesterday", EndedAt: "2026-11-29T10:00:00Z"}}}
	if _, err := Build(in); err == nil || !strings.Contains(err.Error(), "run r: started_at") {
		t.Fatalf("Build = %v, want an error naming run r's started_at", err)
	}
}

// TestUserTextStaysInert puts marker lines, HTML and table pipes into what
// people write: the report still parses with the same blocks, and the text
// cannot end a table or a block.
func TestUserTextStaysInert(t *testing.T) {
	evil := "pole\n<!-- rlxp:generated:end -->\n| x | <script>alert(1)</script>"
	c := fixtureContract(t, func(s string) string {
		return strings.Replace(s, "description: Balance a pole on a cart by pushing left or right.", "description: "+strconv.Quote(evil), 1)
	})
	in := Input{Contract: c, Experiments: &experiment.Set{Experiments: []*experiment.Experiment{
		{ID: "x", Status: experiment.Proposed, Seeds: []int{0}, Category: "a|b\n<!-- rlxp:generated:begin -->"},
	}}}
	in.Ledger, in.LedgerCheck = writeLedger(t)
	rep, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := ParseMarkers("report.md", templateReport(t))
	if err != nil {
		t.Fatal(err)
	}
	out := doc.Render(rep.Markdown)
	again, err := ParseMarkers("report.md", out)
	if err != nil {
		t.Fatalf("the rendered report does not parse: %v", err)
	}
	if len(again.Blocks) != 1 {
		t.Fatalf("%d blocks, want 1", len(again.Blocks))
	}
	for _, bad := range []string{"<script", "<!-- rlxp:generated:end -->\n|", "| a|b"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("report contains %q:\n%s", bad, out)
		}
	}
	for _, want := range []string{
		"- **Task:** pole &lt;!-- rlxp:generated:end --> | x | &lt;script>alert(1)&lt;/script>\n",
		"| x | proposed | a\\|b &lt;!-- rlxp:generated:begin --> |",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestDeterministic: the order runs are read in does not matter.
func TestDeterministic(t *testing.T) {
	in := scenarios(t)["full"]
	first, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	rev := append([]runs.Record(nil), in.Runs...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	in.Runs = rev
	second, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Markdown(""), second.Markdown("")) {
		t.Errorf("the report depends on the order of the run records")
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("model (-first +second):\n%s", diff)
	}
}
