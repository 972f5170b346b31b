package ledger

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Bodies shaped like the score command's entries, so that tests and the
// fixtures exercise what a real ledger holds.

type seedValue struct {
	Seed  int     `json:"seed"`
	Run   string  `json:"run,omitempty"`
	Value float64 `json:"value"`
}

type primary struct {
	Name      string      `json:"name"`
	Goal      string      `json:"goal"`
	Aggregate string      `json:"aggregate"`
	HeldOut   bool        `json:"held_out"`
	PerSeed   []seedValue `json:"per_seed"`
	Mean      float64     `json:"mean"`
	Std       *float64    `json:"std"`
	N         int         `json:"n"`
	CI95      *[2]float64 `json:"ci95"`
}

type comparison struct {
	Experiment    string   `json:"experiment"`
	Seq           int64    `json:"seq"`
	Mean          float64  `json:"mean"`
	Delta         float64  `json:"delta"`
	RelativeDelta *float64 `json:"relative_delta"`
	Test          string   `json:"test"`
	T             *float64 `json:"t,omitempty"`
	DF            *float64 `json:"df,omitempty"`
	PValue        *float64 `json:"p_value,omitempty"`
}

type guardrail struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Bound string  `json:"bound"`
	Pass  *bool   `json:"pass,omitempty"`
}

type source struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	SHA256 string `json:"sha256"`
	Points int64  `json:"points"`
}

type gitInfo struct {
	Commit string `json:"commit"`
	Dirty  bool   `json:"dirty"`
}

type body struct {
	Experiment     string      `json:"experiment"`
	Run            string      `json:"run,omitempty"`
	Runs           []string    `json:"runs,omitempty"`
	Primary        primary     `json:"primary"`
	Baseline       *comparison `json:"baseline,omitempty"`
	Guardrails     []guardrail `json:"guardrails"`
	Verdict        string      `json:"verdict"`
	Reasons        []string    `json:"reasons,omitempty"`
	Warnings       []string    `json:"warnings,omitempty"`
	ContractDigest string      `json:"contract_digest"`
	ConfigDigest   string      `json:"config_digest"`
	Git            gitInfo     `json:"git"`
	Sources        []source    `json:"sources"`
}

func ptr[T any](v T) *T { return &v }

// sampleBody is the i-th (0-based) entry of a realistic ledger: a
// baseline, then experiments with every verdict.
func sampleBody(i int) body {
	type plan struct {
		exp     string
		seeds   int
		shift   float64
		verdict string
		kl      float64
	}
	plans := []plan{
		{"baseline", 5, 0, "baseline", 0.08},
		{"lr-high", 5, 14, "improved", 0.11},
		{"lr-low", 5, -21, "regressed", 0.05},
		{"ent-coef-0.02", 2, 6, "inconclusive", 0.09},
		{"clip-0.3", 5, 18, "guardrail_violated", 0.34},
		{"gae-0.9", 5, 1.5, "inconclusive", 0.08},
		{"batch-4k", 5, 9, "improved", 0.1},
		{"reward-shaping", 3, 30, "invalid", 0.07},
	}
	p := plans[i%len(plans)]
	vals := make([]seedValue, p.seeds)
	sum := 0.0
	for s := range vals {
		v := math.Round((200+p.shift+float64((s*7+i*3)%11)-5)*100) / 100
		vals[s] = seedValue{Seed: s, Run: fmt.Sprintf("%s-s%d", p.exp, s), Value: v}
		sum += v
	}
	mean := math.Round(sum/float64(p.seeds)*1000) / 1000
	b := body{
		Experiment: p.exp,
		Primary: primary{Name: "eval/return", Goal: "maximize", Aggregate: "mean_last_10", HeldOut: true,
			PerSeed: vals, Mean: mean, N: p.seeds},
		Guardrails: []guardrail{
			{Name: "approx_kl", Value: p.kl, Bound: "<= 0.2", Pass: ptr(p.kl <= 0.2)},
			{Name: "episode_len", Value: 480 + float64(i), Bound: ">= 400", Pass: ptr(true)},
		},
		Verdict:        p.verdict,
		ContractDigest: "sha256:" + fmt.Sprintf("%064x", 0xc0ffee),
		ConfigDigest:   "sha256:" + fmt.Sprintf("%064x", 1000+i),
		Git:            gitInfo{Commit: fmt.Sprintf("%040x", 0xabc000+i), Dirty: false},
		Sources: []source{{Path: fmt.Sprintf("runs/%s/eval.jsonl", p.exp), Format: "jsonl",
			SHA256: fmt.Sprintf("%064x", 77+i), Points: int64(100 + i)}},
	}
	if p.seeds >= 2 {
		std := math.Round((3.1+float64(i%3))*1000) / 1000
		b.Primary.Std = &std
		half := math.Round(2.776*std/math.Sqrt(float64(p.seeds))*1000) / 1000
		r := func(v float64) float64 { return math.Round(v*1000) / 1000 }
		b.Primary.CI95 = &[2]float64{r(mean - half), r(mean + half)}
	}
	if p.verdict == "baseline" {
		b.Run = "baseline-s0"
		return b
	}
	for _, v := range vals {
		b.Runs = append(b.Runs, v.Run)
	}
	delta := math.Round((mean-200)*1000) / 1000
	c := &comparison{Experiment: "baseline", Seq: 1, Mean: 200, Delta: delta, RelativeDelta: ptr(math.Round(delta/200*10000) / 10000)}
	if p.seeds < 3 {
		c.Test = "too_few_seeds"
		b.Reasons = append(b.Reasons, fmt.Sprintf("%d seeds: too few for a test against the baseline (need 3)", p.seeds))
	} else {
		c.Test = "welch_t"
		c.T, c.DF = ptr(math.Round(delta/2*100)/100), ptr(7.6)
		pv := 0.5
		switch p.verdict {
		case "improved", "regressed", "guardrail_violated":
			pv = 0.004 + float64(i%4)/100
		}
		c.PValue = &pv
	}
	b.Baseline = c
	switch p.verdict {
	case "guardrail_violated":
		b.Reasons = append(b.Reasons, fmt.Sprintf("approx_kl %.2f breaks its bound <= 0.2", p.kl))
	case "invalid":
		b.Reasons = append(b.Reasons, "seed 2 has no eval/return values")
		b.Warnings = append(b.Warnings, "config digest differs from the approved experiment")
	}
	return b
}

// fixtureTime is when the i-th sample entry was appended.
func fixtureTime(i int) time.Time {
	return time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * 90 * time.Minute)
}

// sampleLedger writes an n-entry ledger with Append and returns its path
// and content.
func sampleLedger(t testing.TB, n int) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := Append(path, sampleBody(i), fixtureTime(i)); err != nil {
			t.Fatalf("append %d: %v", i+1, err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

// fileLines splits a ledger into its lines, each with its newline.
func fileLines(data []byte) [][]byte {
	return bytes.SplitAfter(data, []byte("\n"))[:bytes.Count(data, []byte("\n"))]
}
