// Package format names the metric file formats rlxp reads. It is apart
// from package metrics, whose readers link protobuf's wire format (which
// hashes the executable at start-up), so that what only names a format
// (adapter.yaml's check, in rlxp's front binary) links none of them.
package format

import (
	"fmt"
	"strings"
)

// A Format names a metric file format.
type Format string

// Formats rlxp reads.
const (
	JSON         Format = "json"          // one object, an array of row objects, or {"step":…, "data":{…}} rows
	JSONL        Format = "jsonl"         // one row object per line (incl. verl's file logger)
	CSV          Format = "csv"           // header + rows: SB3/rllab progress.csv, baselines
	WandbCSV     Format = "wandb-csv"     // W&B UI "export panel data" CSV
	WandbSummary Format = "wandb-summary" // wandb-summary.json
	Wandb        Format = "wandb"         // run-<id>.wandb transaction log
	TBCSV        Format = "tb-csv"        // TensorBoard UI CSV export: Wall time,Step,Value
	TBJSON       Format = "tb-json"       // TensorBoard UI JSON export: [[wall, step, value], …]
	TFEvents     Format = "tfevents"      // native TensorBoard event file
	MLflow       Format = "mlflow"        // MLflow file store: a run dir, its metrics/ dir, or one metric file
	VerlLog      Format = "verl-log"      // verl console lines: step:N - key:value - …
	HFTrainer    Format = "hf-trainer"    // transformers Trainer's trainer_state.json (TRL's trainers too)
	SB3Eval      Format = "sb3-eval"      // Stable-Baselines3 EvalCallback's evaluations.npz
)

// All lists every format, in the order help shows them.
func All() []Format {
	return []Format{JSON, JSONL, CSV, WandbCSV, WandbSummary, Wandb, TBCSV, TBJSON, TFEvents, MLflow, VerlLog, HFTrainer, SB3Eval}
}

// Parse checks a --format value.
func Parse(s string) (Format, error) {
	for _, f := range All() {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, 0, len(All()))
	for _, f := range All() {
		names = append(names, string(f))
	}
	return "", fmt.Errorf("unknown format %q (formats: %s)", s, strings.Join(names, ", "))
}
