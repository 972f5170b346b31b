package pin

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/adapter"
)

func TestChanges(t *testing.T) {
	approved := Material{
		Commands: map[string]string{"seed 0": "python train.py --seed 0"},
		Adapter:  "sha256:a", Head: "0123456789abcdef",
		Files: map[string]string{"configs/a.json": "sha256:1", "train.py": "sha256:2", "old.py": "sha256:3"},
	}
	now := Material{
		Commands: map[string]string{"seed 0": "python train.py --seed 0 --lr 0.9", "seed 1": "python train.py --seed 1"},
		Adapter:  "sha256:b", Head: "fedcba9876543210",
		Files: map[string]string{"configs/a.json": "sha256:9", "train.py": "", "new.py": "sha256:4"},
	}
	want := []string{
		"train command of seed 0: python train.py --seed 0 -> python train.py --seed 0 --lr 0.9",
		"train command of seed 1: (none) -> python train.py --seed 1",
		".rlxp/adapter.yaml: the commands, config rendering, metric sources, interpreter, guard allow list, outputs, env files or code directories changed",
		"git HEAD 0123456789ab -> fedcba987654",
		"configs/a.json: edited since approval",
		"new.py: changed or added since approval",
		"old.py: changed back or committed since approval",
		"train.py: deleted since approval",
	}
	if diff := cmp.Diff(want, Changes(approved, now)); diff != "" {
		t.Errorf("Changes (-want +got):\n%s", diff)
	}
	if got := Changes(approved, approved); len(got) != 0 {
		t.Errorf("no change reported as %v", got)
	}
}

// TestAdapterChanged: the fields an approval recorded name what changed.
func TestAdapterChanged(t *testing.T) {
	ad := adapterWith(nil, map[string]string{"eval": "{run_dir}/eval.jsonl"})
	ad.Commands = map[string]string{"train": "python train.py"}
	before := Material{Adapter: AdapterDigest(ad), AdapterFields: adapterFields(ad)}
	ad.Commands["train"] = "python train.py --lr 0.9"
	ad.Metrics.Sources["eval"] = adapter.Source{Path: "elsewhere.jsonl"}
	ad.Outputs = []string{"wandb/"}
	after := Material{Adapter: AdapterDigest(ad), AdapterFields: adapterFields(ad)}
	if diff := cmp.Diff("commands, metric sources, outputs", adapterChanged(before, after)); diff != "" {
		t.Errorf("adapterChanged (-want +got):\n%s", diff)
	}
	if got := adapterChanged(before, before); got != "" {
		t.Errorf("no change reported as %q", got)
	}
}
