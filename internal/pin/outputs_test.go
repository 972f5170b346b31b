package pin

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/adapter"
)

func adapterWith(outputs []string, sources map[string]string) *adapter.Adapter {
	ad := &adapter.Adapter{Outputs: outputs}
	ad.Config.Default = "configs/base.yaml"
	ad.Metrics.Sources = map[string]adapter.Source{}
	for n, p := range sources {
		ad.Metrics.Sources[n] = adapter.Source{Path: p}
	}
	return ad
}

// TestOutputs: the fixed directories of the run directory template, the
// metric sources outside it and the declared outputs; never the top, .git
// or .rlxp, nor a directory holding or inside what the commands name.
func TestOutputs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		outputs []string
		sources map[string]string
		named   []string
		want    []string
	}{
		{"run directories only", nil, map[string]string{"eval": "{run_dir}/eval.jsonl"}, nil, []string{"runs/"}},
		{"a metric source's fixed directory", nil, map[string]string{"w": "wandb/latest-run/files/history.jsonl", "l": "lightning_logs/version_*/metrics.csv", "h": "outputs/{experiment}/log.csv"},
			nil, []string{"runs/", "outputs/", "lightning_logs/", "wandb/latest-run/files/"}},
		{"declared outputs, with or without a slash", []string{"checkpoints", "wandb/", "./ckpt//x/"}, nil, nil, []string{"runs/", "checkpoints/", "wandb/", "ckpt/x/"}},
		{"never the top, .git, .rlxp or outside", []string{".", "/tmp/x", "../up", ".git", ".rlxp/runs", "*"}, map[string]string{"m": "metrics.csv", "n": "{experiment}/m.csv"}, nil, []string{"runs/"}},
		{"a directory holding the entry point is code", []string{"scripts/", "tools/out/"}, nil, []string{"scripts/run.sh", "tools"}, []string{"runs/"}},
		{"a module run with -m is code", []string{"pkg/"}, nil, []string{"pkg/train"}, []string{"runs/"}},
		{"the default config's directory is code", []string{"configs"}, nil, nil, []string{"runs/"}},
		{"a name that is the output itself is not code in it", []string{"wandb/"}, nil, []string{"wandb"}, []string{"runs/", "wandb/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Outputs(adapterWith(tc.outputs, tc.sources), tc.named)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Outputs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCommandPaths: words and values after "=" that name something in
// the repository, except the run directory; modules run with -m.
func TestCommandPaths(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"scripts/run.sh", "conf/a.yaml", "runs/x/seed0/ckpt.pt", "train.py"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := `bash scripts/run.sh --config-path=conf 'train.py' --out runs/x/seed0 --resume runs/x/seed0/ckpt.pt ` +
		`--logger wandb -m pkg.train ../outside /etc/passwd --seed 0 lr=0.05`
	want := []string{"scripts/run.sh", "conf", "train.py", "pkg/train"}
	if diff := cmp.Diff(want, commandPaths(root, cmd, "runs/x/seed0")); diff != "" {
		t.Errorf("commandPaths (-want +got):\n%s", diff)
	}
}

// TestNotCode: rlxp's state, and untracked files under an output
// directory; a tracked file is code wherever it lies.
func TestNotCode(t *testing.T) {
	outputs := []string{"runs/", "wandb/"}
	for _, tc := range []struct {
		c    change
		want bool
	}{
		{change{".rlxp/approvals.jsonl", false}, true},
		{change{"runs/a/seed0/progress.csv", true}, true},
		{change{"wandb/run-1/files/code/train.py", true}, true},
		{change{"wandb/settings", false}, false},
		{change{"runsx/a.py", true}, false},
		{change{"train.py", true}, false},
	} {
		if got := notCode(tc.c, outputs); got != tc.want {
			t.Errorf("notCode(%+v) = %v, want %v", tc.c, got, tc.want)
		}
	}
}
