package adapterpin

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/adapter"
)

// TestChanged: the fields an approval recorded name what changed; an
// approval without them names the whole material.
func TestChanged(t *testing.T) {
	ad := &adapter.Adapter{Commands: map[string]string{"train": "python train.py"}}
	ad.Config.Default = "configs/base.yaml"
	ad.Metrics.Sources = map[string]adapter.Source{"eval": {Path: "{run_dir}/eval.jsonl"}}
	before := Of(ad)
	ad.Commands["train"] = "python train.py --lr 0.9"
	ad.Metrics.Sources["eval"] = adapter.Source{Path: "elsewhere.jsonl"}
	ad.Outputs = []string{"wandb/"}
	after := Of(ad)
	if diff := cmp.Diff("commands, metric sources, outputs", Changed(before, after)); diff != "" {
		t.Errorf("Changed (-want +got):\n%s", diff)
	}
	if got := Changed(before, before); got != "" {
		t.Errorf("no change reported as %q", got)
	}
	legacy := Pin{Adapter: before.Adapter}
	want := "the commands, config rendering, metric sources, interpreter, guard allow list, outputs, env files or code directories"
	if diff := cmp.Diff(want, Changed(legacy, after)); diff != "" {
		t.Errorf("Changed without field digests (-want +got):\n%s", diff)
	}
}
