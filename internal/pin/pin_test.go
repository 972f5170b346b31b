package pin

import (
	"testing"

	"github.com/google/go-cmp/cmp"
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

// TestFormat2: an approval in pin format 2, which pinned only the reads
// the code did not cover, keeps verifying against format 3 while nothing
// changes, whether a read it pinned is covered by the code now or not;
// an edit of one is named as such, not as a deletion.
func TestFormat2(t *testing.T) {
	approved := Material{Version: 2, Head: "abc", Files: map[string]string{},
		Reads: map[string]string{"private/a.yaml": "sha256:1", "cfg/b.yaml": "sha256:2", ".env": ""}}
	now := Material{Version: Version, Head: "abc", Files: map[string]string{},
		// cfg/b.yaml is tracked now; train.py and cfg/c.yaml always were.
		Reads:  map[string]string{"private/a.yaml": "sha256:1", "cfg/b.yaml": "sha256:2", ".env": "", "train.py": "sha256:3", "cfg/c.yaml": "sha256:4"},
		hidden: map[string]bool{"private/a.yaml": true, ".env": true},
	}
	if got := Changes(approved, asFormat2(approved, now)); len(got) != 0 {
		t.Errorf("unchanged repository reported as %v", got)
	}
	now.Reads["cfg/b.yaml"], now.Reads["private/new.json"], now.hidden["private/new.json"] = "sha256:9", "sha256:5", true
	now.Reads["train.py"] = "sha256:8" // as committed: HEAD names it
	want := []string{"cfg/b.yaml: edited since approval", "private/new.json: added since approval (the run reads it)"}
	if diff := cmp.Diff(want, Changes(approved, asFormat2(approved, now))); diff != "" {
		t.Errorf("Changes (-want +got):\n%s", diff)
	}
}

// TestChangesNamedOnce: a read that is also code with a change is named
// once, as code.
func TestChangesNamedOnce(t *testing.T) {
	approved := Material{Files: map[string]string{}, Reads: map[string]string{"cfg/a.yaml": "sha256:1", "private/b.yaml": "sha256:2"}}
	now := Material{Files: map[string]string{"cfg/a.yaml": "sha256:9"}, Reads: map[string]string{"cfg/a.yaml": "sha256:9", "private/b.yaml": "sha256:3"}}
	want := []string{"cfg/a.yaml: changed or added since approval", "private/b.yaml: edited since approval"}
	if diff := cmp.Diff(want, Changes(approved, now)); diff != "" {
		t.Errorf("Changes (-want +got):\n%s", diff)
	}
}

// TestAsFormat6: an approval in format 6 or before did not pin the
// .python-version files, so one there now is not a change of it, unless
// the approval pinned it as a read of its own; other reads still count.
func TestAsFormat6(t *testing.T) {
	approved := Material{Version: 6, Reads: map[string]string{"conf/a.yaml": "sha256:1", "sub/.python-version": "sha256:2"}}
	now := Material{Version: Version, Reads: map[string]string{"conf/a.yaml": "sha256:1", ".python-version": "sha256:3", "../.python-version": "sha256:4", "sub/.python-version": "sha256:5", "new.json": "sha256:6"}}
	want := map[string]string{"conf/a.yaml": "sha256:1", "sub/.python-version": "sha256:5", "new.json": "sha256:6"}
	if diff := cmp.Diff(want, asFormat6(approved, now).Reads); diff != "" {
		t.Errorf("asFormat6 reads (-want +got):\n%s", diff)
	}
}
