package metrics

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestDetectSamples(t *testing.T) {
	dir := txtSamples(t)
	for path, want := range map[string]Format{
		"sb3/formalRL/progress.csv": CSV,
		"sb3/formalRL/events.out.tfevents.1693326834.harryting-OMEN.273496.0":                                                            TFEvents,
		"progress-csv/SIMPLE-baselines-progress.csv":                                                                                     CSV,
		"progress-csv/OptionGAN-rllab-progress.csv":                                                                                      CSV,
		"wandb-export/nRTD-wandb_export-HEAD12.csv":                                                                                      WandbCSV,
		"wandb/ConceptPPO/run-20230723_093735-mxaehod4/files/wandb-summary.json":                                                         WandbSummary,
		"wandb/ConceptPPO/run-20230723_093735-mxaehod4/files/wandb-metadata.json":                                                        JSON,
		"wandb/ConceptPPO/run-20230723_093735-mxaehod4/run-mxaehod4.wandb":                                                               Wandb,
		"wandb/ConceptPPO/run-20230723_093735-mxaehod4/files/events.out.tfevents.1690076260.autodl-container-71644691e8-32af8c29.1260.0": TFEvents,
		"wandb/robust-cartpole-offline-run-20231129_215620-ohlnfnqx/files/wandb-summary.json":                                            WandbSummary,
		"tfevents/tensorboa.rs/events.out.tfevents.1661684667.applepie4":                                                                 TFEvents,
		"tfevents/torch-writer/new_style_double/events.out.tfevents.1795952470.vm.415.2":                                                 TFEvents,
		"mlflow/Iris_MLFlow/mlruns":                                                                                                      MLflow,
		txtIrisRun:                                                                                                                       MLflow,
		txtIrisRun + "/metrics":                                                                                                          MLflow,
		txtIrisRun + "/metrics/metric_3":                                                                                                 MLflow,
	} {
		got, err := Detect(filepath.Join(dir, filepath.FromSlash(path)))
		if err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", path, got, err, want)
		}
	}
	for _, path := range []string{"README.md", "tools/tbread.py", txtIrisRun + "/meta.yaml", "wandb/ConceptPPO/run-20230723_093735-mxaehod4/files/config.yaml"} {
		_, err := Detect(filepath.Join(dir, filepath.FromSlash(path)))
		txtWantErr(t, err, 0, 0, "pass --format (json, jsonl, csv, wandb-csv")
	}
}

func TestDetectFixtures(t *testing.T) {
	long := strings.Repeat("(TaskRunner pid=1) config line\n", 200) // the step line comes after 4 KiB
	for _, c := range []struct {
		name, content string
		want          Format
	}{
		{"metrics.jsonl", `{"a": 1}`, JSONL},
		{"wandb-history.jsonl", "{\"_step\": 0}\n", JSONL},
		{"progress.json", "{\"a\": 1}\n{\"a\": 2}\n", JSONL},
		{"results.json", "{\n  \"a\": 1\n}\n", JSON},
		{"one.json", `{"a": 1}`, JSON},
		{"rows.json", `[{"a": 1}]`, JSON},
		{"run-train-tag-loss.json", "[[1.5, 1, 2.5]]", TBJSON},
		{"run-x-tag-y.json", " [\n [1.5, 1, 2.5]\n]", TBJSON},
		{"run-train-tag-loss.csv", "Wall time,Step,Value\n1,2,3\n", TBCSV},
		{"wandb_export.csv", "\"Step\",\"run - loss\"\n\"1\",\"2\"\n", WandbCSV},
		{"quoted.csv", "\"step\",\"loss\"\n1,2\n", CSV},
		{"progress.csv", "step,loss\n1,2\n", CSV},
		{"train.log", "INFO start\n(TaskRunner pid=7) step:1 - a:1\n", VerlLog},
		{"output", "step:1 - a:1\n", VerlLog},
		{"nohup.out", "\x1b[36m(main_task pid=1)\x1b[0m step:3 - critic/score/mean:0.5\n", VerlLog},
		{"log.txt", "{\"step\": 1}\n", JSONL},
		{"metrics.JSONL", "{}\n", JSONL},
		{"train.log", long + "step:1 - a:1\n", VerlLog},
		{"monitor.csv", "#{\"t_start\": 1}\rr,l,t\r1.5,10,0.1\r", CSV},
	} {
		got, err := Detect(txtWrite(t, c.name, c.content))
		if err != nil || got != c.want {
			t.Errorf("%s: %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	for _, c := range []struct{ name, content, msg string }{
		{"empty.csv", "", "empty file"},
		{"notes.log", long + "no step lines here\n", "pass --format"},
		{"data.bin", "\x01\x02", "pass --format"},
		{"notes.txt", "hello\n", "pass --format"},
	} {
		_, err := Detect(txtWrite(t, c.name, c.content))
		txtWantErr(t, err, 0, 0, c.msg)
	}
	dir := t.TempDir()
	if _, err := Detect(dir); err == nil || !strings.Contains(err.Error(), "not an MLflow run") {
		t.Errorf("empty directory: %v", err)
	}
	os.MkdirAll(filepath.Join(dir, "metrics"), 0o755)
	if f, err := Detect(dir); f != MLflow || err != nil {
		t.Errorf("run directory: %q %v", f, err)
	}
	if f, err := Detect(filepath.Join("testdata", "verl-console.log")); f != VerlLog || err != nil {
		t.Errorf("verl fixture: %q %v", f, err)
	}
}

// TestNotRegularFiles checks that detection and reading refuse a FIFO and
// a device at once, instead of blocking or reading forever.
func TestNotRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "progress.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	dev := filepath.Join(dir, "eval.jsonl")
	if err := os.Symlink("/dev/urandom", dev); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, kind string }{{fifo, "a named pipe"}, {dev, "a character device"}} {
		if _, err := Detect(c.path); err == nil || !strings.Contains(err.Error(), "not a regular file ("+c.kind+")") {
			t.Errorf("Detect(%s): %v", c.path, err)
		}
		for _, f := range []Format{CSV, JSONL, TFEvents, Wandb, JSON} {
			if _, err := Read(c.path, f, &txtRec{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("Read(%s, %s): %v", c.path, f, err)
			}
		}
		if _, _, err := OpenSource(c.path); err == nil {
			t.Errorf("OpenSource(%s) opened it", c.path)
		}
	}
}
