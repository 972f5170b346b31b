package ledger

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMarkdownTable(t *testing.T) {
	_, data := sampleLedger(t, 5)
	es, err := Parse("l", data)
	if err != nil {
		t.Fatal(err)
	}
	want := `| seq | experiment | primary: mean ± 95% CI (n) | Δ vs baseline | guardrails | verdict |
|---:|---|---|---|---|---|
| 1 | baseline (run baseline-s0) | eval/return 200.2 ± 3.849 (n=5) | (this is the baseline) | 2/2 pass | baseline |
| 2 | lr-high | eval/return 215 ± 5.09 (n=5) | +15 (+7.5%), p=0.014 | 2/2 pass | improved |
| 3 | lr-low | eval/return 178.6 ± 6.331 (n=5) | -21.4 (-10.7%), p=0.024 | 2/2 pass | regressed |
| 4 | ent-coef-0.02 | eval/return 208 ± 6.085 (n=2) | +8 (+4%), n too small | 2/2 pass | inconclusive |
| 5 | clip-0.3 | eval/return 217 ± 5.09 (n=5) | +17 (+8.5%), p=0.004 | 1/2 pass; failed: approx_kl | guardrail_violated |
`
	if diff := cmp.Diff(want, MarkdownTable(es)); diff != "" {
		t.Errorf("MarkdownTable (-want +got):\n%s", diff)
	}
}

func TestMarkdownTableSparse(t *testing.T) {
	entry := func(seq int64, js string) Entry {
		f, err := decodeObject([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		return Entry{Seq: seq, Fields: f, Raw: json.RawMessage(js)}
	}
	es := []Entry{
		entry(1, `{}`),
		entry(2, `{"experiment":"a|b","primary":{"name":"train/reward","mean":1234567,"held_out":false,"ci95":[1,5000000]},"guardrails":[{"name":"kl","pass":null},{"pass":false},{"name":"len","pass":true}]}`),
		entry(3, `{"experiment":"x","primary":{"mean":0.00012,"n":1,"ci95":"bad"},"baseline":{"delta":-0.5,"test":"welch_t","p_value":0.0001},"verdict":"regressed"}`),
		entry(4, `{"experiment":"y","primary":{"name":"m"},"baseline":{"test":"none"},"guardrails":[],"verdict":"baseline"}`),
		entry(5, `{"experiment":7,"primary":"flat","baseline":[],"guardrails":{"a":1},"verdict":["x"]}`),
	}
	want := `| seq | experiment | primary: mean ± 95% CI (n) | Δ vs baseline | guardrails | verdict |
|---:|---|---|---|---|---|
| 1 | – | – | – | – | – |
| 2 | a\|b | train/reward 1.235e+06 [1, 5e+06] ⚠ not held out | – | 1/3 pass; failed: ?; not checked: kl | – |
| 3 | x | 0.00012 (n=1) | -0.5, p<0.001 | – | regressed |
| 4 | y | m – | (this is the baseline) | – | baseline |
| 5 | – | – | – | – | – |
`
	if diff := cmp.Diff(want, MarkdownTable(es)); diff != "" {
		t.Errorf("MarkdownTable (-want +got):\n%s", diff)
	}
}

func TestFmtNum(t *testing.T) {
	for v, want := range map[float64]string{
		0: "0", 1: "1", -1: "-1", 212.44: "212.4", 0.87346: "0.8735", 1234.56: "1235",
		99999.9: "100000", 0.0123456: "0.01235", 1e-5: "1e-05", 2.5e7: "2.5e+07",
	} {
		if got := fmtNum(v); got != want {
			t.Errorf("fmtNum(%v) = %q, want %q", v, got, want)
		}
	}
}
