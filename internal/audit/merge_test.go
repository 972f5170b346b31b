package audit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/schema/validate"
)

func cartpoleDraft() Draft {
	d := Draft{
		Commands: map[string]string{
			"train":     "bash scripts/run.sh train {config} --seed {seed} --out {run_dir} {params}",
			"eval":      "bash scripts/run.sh eval {run_dir}/policy.json --out {run_dir}",
			"preflight": "bash scripts/run.sh train {config} --seed {seed} --out {run_dir} {params} --preflight-only",
		},
		Sources: map[string]Source{
			"train": {Path: "{run_dir}/progress.csv", Format: "csv"},
			"eval":  {Path: "{run_dir}/eval.jsonl", Format: "jsonl"},
		},
		Imports: []string{"stable_baselines3"},
	}
	d.Config.System, d.Config.Default, d.Config.Override = "json", "configs/baseline.json", "--set {name}={value}"
	return d
}

func template(t *testing.T) []byte {
	b, err := os.ReadFile(filepath.Join("..", "..", "templates", "adapter.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return []byte(strings.ReplaceAll(string(b), "{{project}}", "demo"))
}

// TestFillTemplate fills a fresh adapter.yaml from init, keeping its
// comments, and a second fill changes nothing.
func TestFillTemplate(t *testing.T) {
	out, filled, err := Fill("adapter.yaml", template(t), cartpoleDraft())
	if err != nil {
		t.Fatal(err)
	}
	wantFilled := []string{"commands.train", "commands.eval", "commands.preflight", "config.system", "config.default",
		"config.override", "metrics.sources.eval", "metrics.sources.train", "runtime.imports"}
	if diff := cmp.Diff(wantFilled, filled); diff != "" {
		t.Errorf("filled (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		"commands:\n  # train: \"bash scripts/train.sh {config} --seed {seed} --out {run_dir} {params}\"\n",
		"  # preflight: \"PREFLIGHT_ONLY=1 bash scripts/train.sh {config}\"\n" +
			"  train: \"bash scripts/run.sh train {config} --seed {seed} --out {run_dir} {params}\"\n" +
			"  eval: \"bash scripts/run.sh eval {run_dir}/policy.json --out {run_dir}\"\n",
		"  system: json\n  default: configs/baseline.json\n  # How one parameter is passed on the command line.\n  override: \"--set {name}={value}\"\n",
		"  sources:\n    eval: {path: \"{run_dir}/eval.jsonl\", format: jsonl}\n    train: {path: \"{run_dir}/progress.csv\", format: csv}\n  #   train:",
		"  imports: [stable_baselines3]\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("filled file lacks %q:\n%s", want, out)
		}
	}
	a, err := adapter.Parse(validate.Schemas{}, "adapter.yaml", out)
	if err != nil {
		t.Fatal(err)
	}
	if a.Commands["eval"] != cartpoleDraft().Commands["eval"] || a.Metrics.Sources["train"].Path != "{run_dir}/progress.csv" {
		t.Errorf("parsed back %+v", a)
	}
	again, filled, err := Fill("adapter.yaml", out, cartpoleDraft())
	if err != nil || string(again) != string(out) || len(filled) != 0 {
		t.Errorf("second fill changed %v (err %v):\n%s", filled, err, again)
	}
}

// TestFillKeepsHumanEdits: a person's values, comments and styles stay;
// only empty fields and new sources are added.
func TestFillKeepsHumanEdits(t *testing.T) {
	human := `schema: rlxp.adapter/v1
project: demo
commands:
    train: "python my_train.py --cfg {config} --seed {seed} --out {run_dir} {params}"  # ours
    # eval comes later
config:
    system: yaml
    default:   # pick one
    override: "-o {name}={value}"
metrics:
    sources:
        train: {path: "{run_dir}/progress.csv", format: csv}
runtime:
    python: .venv/bin/python
    imports: [torch]
`
	want := `schema: rlxp.adapter/v1
project: demo
commands:
    train: "python my_train.py --cfg {config} --seed {seed} --out {run_dir} {params}"  # ours
    # eval comes later
    eval: "bash scripts/run.sh eval {run_dir}/policy.json --out {run_dir}"
    preflight: "bash scripts/run.sh train {config} --seed {seed} --out {run_dir} {params} --preflight-only"
config:
    system: yaml
    default: configs/baseline.json # pick one
    override: "-o {name}={value}"
metrics:
    sources:
        train: {path: "{run_dir}/progress.csv", format: csv}
        eval: {path: "{run_dir}/eval.jsonl", format: jsonl}
runtime:
    python: .venv/bin/python
    imports: [torch]
`
	out, filled, err := Fill("adapter.yaml", []byte(human), cartpoleDraft())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("merged file (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"commands.eval", "commands.preflight", "config.default", "metrics.sources.eval"}, filled); diff != "" {
		t.Errorf("filled (-want +got):\n%s", diff)
	}
}

func TestFillMissingSections(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"only the schema", "schema: rlxp.adapter/v1\n", `schema: rlxp.adapter/v1

commands:
  train: "bash scripts/run.sh train {config} --seed {seed} --out {run_dir} {params}"
  eval: "bash scripts/run.sh eval {run_dir}/policy.json --out {run_dir}"
  preflight: "bash scripts/run.sh train {config} --seed {seed} --out {run_dir} {params} --preflight-only"

config:
  system: json
  default: configs/baseline.json
  override: "--set {name}={value}"

metrics:
  sources:
    eval: {path: "{run_dir}/eval.jsonl", format: jsonl}
    train: {path: "{run_dir}/progress.csv", format: csv}

runtime:
  imports: [stable_baselines3]
`},
		{"no newline at the end, null and flow values", "schema: rlxp.adapter/v1\ncommands: {train: \"x {params}\"}\nconfig:\n  system: ~\nmetrics: {}\nruntime:\n  imports:", `schema: rlxp.adapter/v1
commands: {train: "x {params}"}
config:
  system: json
  default: configs/baseline.json
  override: "--set {name}={value}"
metrics:
  sources:
    eval: {path: "{run_dir}/eval.jsonl", format: jsonl}
    train: {path: "{run_dir}/progress.csv", format: csv}
runtime:
  imports: [stable_baselines3]`},
		{"sources already naming the paths", "schema: rlxp.adapter/v1\nmetrics:\n  sources:\n    csv: {path: \"{run_dir}/progress.csv\"}\n", `schema: rlxp.adapter/v1
metrics:
  sources:
    csv: {path: "{run_dir}/progress.csv"}
    eval: {path: "{run_dir}/eval.jsonl", format: jsonl}

commands:
  train: "bash scripts/run.sh train {config} --seed {seed} --out {run_dir} {params}"
  eval: "bash scripts/run.sh eval {run_dir}/policy.json --out {run_dir}"
  preflight: "bash scripts/run.sh train {config} --seed {seed} --out {run_dir} {params} --preflight-only"

config:
  system: json
  default: configs/baseline.json
  override: "--set {name}={value}"

runtime:
  imports: [stable_baselines3]
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := Fill("adapter.yaml", []byte(tt.in), cartpoleDraft())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(out)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestFillRefusesBadFiles: a malformed adapter is an error naming the file
// and line, never overwritten.
func TestFillRefusesBadFiles(t *testing.T) {
	for in, want := range map[string]string{
		"schema: rlxp.adapter/v1\ncommands: [a\n":               "adapter.yaml:2",
		"schema: rlxp.adapter/v1\ncommands:\n  train: [1, 2]\n": "adapter.yaml:3:",
		"schema: rlxp.adapter/v2\n":                             "adapter.yaml:1",
		"":                                                      "adapter.yaml: file is empty",
		"schema: rlxp.adapter/v1\nruntime:\n  ports: [99999]\n": "adapter.yaml:3",
	} {
		_, _, err := Fill("adapter.yaml", []byte(in), cartpoleDraft())
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Fill(%q) = %v, want an error starting %q on one line", in, err, want)
		}
	}
}

func TestYAMLScalar(t *testing.T) {
	for in, want := range map[string]string{
		"json": "json", "configs/a.json": "configs/a.json", "": `""`, "yes": `"yes"`, "1.5": `"1.5"`,
		"--set {name}={value}": `"--set {name}={value}"`, `a "b"`: `"a \"b\""`, "a&&b<c": `"a&&b<c"`, "-x": `"-x"`,
	} {
		if got := yamlScalar(in); got != want {
			t.Errorf("yamlScalar(%q) = %s, want %s", in, got, want)
		}
	}
}
