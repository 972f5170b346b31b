package propose

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/schema/validate"
)

// contractText is a complete contract; the scope, budget, hardware and
// seeds come from the test.
const contractText = `schema: rlxp.contract/v1
task: {description: balance a pole, environment: CartPole-v1, success: return 450}
metrics:
  primary: {name: eval/mean_return, source: eval, aggregate: last, goal: %s, held_out: true}
scope:
  parameters:
%s
  files: ["configs/*.json"]
  categories: [%s]
budget: {gpu_hours: %s, max_run_wall_clock: %s, max_runs: %d, max_concurrent: 2}
hardware: {target: one box, launcher: local, gpus_per_run: %d, nodes: 1}
baseline: {experiment: baseline, command: bash train.sh, seeds: [%s]}
evaluation: {command: python eval.py, source: eval, episodes: 20, seeds: [10000], held_out: separate seeds}
`

// spec is what a test contract varies.
type spec struct {
	goal       string
	params     []string // "name: {…}" lines
	categories string
	gpuHours   float64
	wall       string
	maxRuns    int
	gpus       int
	seeds      []int
}

func cartpole() spec {
	return spec{
		goal: "maximize",
		params: []string{
			"lr: {type: float, min: 1e-4, max: 0.1}",
			"gamma: {type: float, min: 0.9, max: 0.999}",
			"episodes: {type: int, min: 100, max: 2000}",
			"hidden: {choices: [16, 32, 64]}",
		},
		categories: "hyperparameter, reward",
		gpuHours:   2, wall: "10m", maxRuns: 12, gpus: 1, seeds: []int{0, 1, 2},
	}
}

func (s spec) load(t testing.TB) *contract.Loaded {
	t.Helper()
	var params []string
	for _, p := range s.params {
		params = append(params, "    "+p)
	}
	if len(params) == 0 {
		params = []string{"    {}"}
	}
	seeds := make([]string, len(s.seeds))
	for i, n := range s.seeds {
		seeds[i] = strconv.Itoa(n)
	}
	text := fmt.Sprintf(contractText, s.goal, strings.Join(params, "\n"), s.categories,
		strconv.FormatFloat(s.gpuHours, 'g', -1, 64), s.wall, s.maxRuns, s.gpus, strings.Join(seeds, ", "))
	if len(s.params) == 0 {
		text = strings.Replace(text, "  parameters:\n    {}", "  parameters: {}", 1)
	}
	l, err := contract.Parse(validate.Schemas{}, "contract.yaml", []byte(text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, sec := range contract.Sections() {
		if !l.Complete(sec) {
			t.Fatalf("section %s incomplete: %v\n%s", sec, l.Findings, text)
		}
	}
	return l
}

// exp is an experiment with parameters given as "name=value", typed as
// experiments.yaml would decode them.
func exp(id, status string, params ...string) *experiment.Experiment {
	e := &experiment.Experiment{ID: id, Status: status, Seeds: []int{0, 1, 2}}
	for _, p := range params {
		name, raw, _ := strings.Cut(p, "=")
		var v any = raw
		if i, err := strconv.ParseInt(raw, 10, 64); err == nil {
			v = i
		} else if f, err := strconv.ParseFloat(raw, 64); err == nil {
			v = f
		} else if b, err := strconv.ParseBool(raw); err == nil {
			v = b
		}
		e.Params = append(e.Params, yaml.MapItem{Key: name, Value: v})
	}
	return e
}

func set(es ...*experiment.Experiment) *experiment.Set {
	return &experiment.Set{Path: "experiments.yaml", Experiments: es}
}

// entry is a ledger entry as score writes it, reduced to what propose reads.
func entry(seq int64, id, verdict string, mean, std float64, n int) ledger.Entry {
	num := func(f float64) json.Number { return json.Number(strconv.FormatFloat(f, 'g', -1, 64)) }
	return ledger.Entry{Seq: seq, Fields: map[string]any{
		"experiment": id, "verdict": verdict,
		"primary": map[string]any{"name": "eval/mean_return", "mean": num(mean), "std": num(std), "n": json.Number(strconv.Itoa(n))},
	}}
}
