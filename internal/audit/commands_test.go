package audit

import (
	"strings"
	"testing"
)

func TestPyTarget(t *testing.T) {
	for _, c := range []struct {
		cmd, script, module string
	}{
		{"python train.py --seed 1", "train.py", ""},
		{"python -m pkg.train --x", "", "pkg.train"},
		{"python -um dopamine.discrete_domains.train --base_dir /tmp", "", "dopamine.discrete_domains.train"},
		{"python3 -u -m pkg.run ppo", "", "pkg.run"},
		{"python -mpkg.run", "", "pkg.run"},
		{"python -W ignore train.py", "train.py", ""},
		{"python -c print(1)", "", ""},
		{"uv run python algos/ppo.py --seed 1", "algos/ppo.py", ""},
		{"uv run --frozen --extra mujoco python sota/ppo.py", "sota/ppo.py", ""},
		{"poetry run python train.py", "train.py", ""},
		{"conda run -n rl --no-capture-output python train.py", "train.py", ""},
		{"torchrun --nproc_per_node 8 train.py", "train.py", ""},
		{"uv pip install .", "", ""},
		{"uv run --isolated --extra fsdp -m skyrl.train.main_base data.x=1", "", "skyrl.train.main_base"},
		{"uv run -m pkg.train", "", "pkg.train"},
	} {
		script, module, _ := pyTarget(strings.Fields(c.cmd))
		if script != c.script || module != c.module {
			t.Errorf("pyTarget(%q) = %q, %q; want %q, %q", c.cmd, script, module, c.script, c.module)
		}
	}
}

// TestAnnotatedCommand: comment and blank lines between the continued,
// indented arguments of a documented command do not end it.
func TestAnnotatedCommand(t *testing.T) {
	doc := "```bash\nuv run -m pkg.main \\\n   # Data setup\n   data.train=x \\\n\n   # Trainer\n   trainer.lr=1\n```\n\n" +
		"```bash\npython a.py \\\n# not an argument\npython b.py\n```\n"
	var got []string
	for _, c := range commandLines(doc, 1, "readme") {
		got = append(got, strings.Join(c.argv, " "))
	}
	want := []string{"uv run -m pkg.main data.train=x trainer.lr=1", "python a.py", "python b.py"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("commands = %q, want %q", got, want)
	}
}

// TestDataPrepName: a script named for preparing data is no training
// entry point, even under a train/ folder; an evaluation on a dataset
// stays an evaluation.
func TestDataPrepName(t *testing.T) {
	for p, want := range map[string]string{
		"examples/train/gsm8k/gsm8k_dataset.py":      "other",
		"examples/train/search/searchr1_download.py": "other",
		"examples/data_preprocess/math_dataset.py":   "other",
		"mbrl/diagnostics/eval_model_on_dataset.py":  "eval",
		"examples/train/gsm8k/train_gsm8k.py":        "train",
	} {
		if got := nameKind(p); got != want {
			t.Errorf("nameKind(%q) = %q, want %q", p, got, want)
		}
	}
}
