package adapter

import (
	"strings"
	"testing"

	"github.com/rlxp/rlxp/internal/schema/validate"
)

func TestExpand(t *testing.T) {
	vars := map[string]string{"run_dir": "runs/a/seed1", "seed": "1", "experiment": "a"}
	got, err := Expand("{run_dir}/eval.jsonl", vars)
	if err != nil || got != "runs/a/seed1/eval.jsonl" {
		t.Errorf("Expand = %q, %v", got, err)
	}
	got, err = Expand("out/{experiment}-{seed}.csv", vars)
	if err != nil || got != "out/a-1.csv" {
		t.Errorf("Expand = %q, %v", got, err)
	}
	if _, err := Expand("{rundir}/x", vars); err == nil || !strings.Contains(err.Error(), "unknown placeholder") {
		t.Errorf("unknown placeholder accepted: %v", err)
	}
}

func TestParse(t *testing.T) {
	a, err := Parse(validate.Schemas{}, "a.yaml", []byte("schema: rlxp.adapter/v1\nmetrics:\n  sources:\n    eval: {path: \"{run_dir}/eval.jsonl\", format: jsonl}\n    train: {path: p.csv}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(a.SourceNames(), ","); got != "eval,train" || a.Metrics.Sources["eval"].Format != "jsonl" {
		t.Errorf("sources = %v", a.Metrics.Sources)
	}
	if _, err := Parse(validate.Schemas{}, "a.yaml", []byte("schema: rlxp.adapter/v1\nmetrics:\n  sources:\n    eval: {format: jsonl}\n")); err == nil || !strings.Contains(err.Error(), "a.yaml:4:") {
		t.Errorf("missing path: %v", err)
	}
	_, err = Parse(validate.Schemas{}, "a.yaml", []byte("schema: rlxp.adapter/v1\nmetrics:\n  sources:\n    eval:\n      path: p.parquet\n      format: parquet\n"))
	if err == nil || !strings.HasPrefix(err.Error(), `a.yaml:6:7: metrics.sources.eval.format: unknown format "parquet" (formats: json, jsonl,`) {
		t.Errorf("unknown format: %v", err)
	}
}

func TestParams(t *testing.T) {
	a := &Adapter{}
	a.Config.Override = "--set {name}={value}"
	got, err := a.Params([]string{"lr", "tag"}, map[string]string{"lr": "0.05", "tag": "a b'c"})
	if want := `--set lr=0.05 --set tag='a b'\''c'`; err != nil || got != want {
		t.Errorf("Params = %q, %v; want %q", got, err, want)
	}
	a.Config.Override = ""
	if _, err := a.Params([]string{"lr"}, map[string]string{"lr": "1"}); err == nil {
		t.Error("empty override accepted")
	}
}
