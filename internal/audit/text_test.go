package audit

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPyString(t *testing.T) {
	tests := []struct {
		src, val string
		fstring  bool
		ok       bool
	}{
		{`"charts/SPS"`, "charts/SPS", false, true},
		{`'a\'b'`, "a'b", false, true},
		{`r"a\d"`, `a\d`, false, true},
		{`f"Episode/{key}"`, "Episode/*", true, true},
		{`f"{a}/{b['x']}/mean"`, "*/*/mean", true, true},
		{`f"{{literal}}"`, "{literal}", true, true},
		{`"""doc "q" here"""`, `doc "q" here`, false, true},
		{`rb'x'`, "x", false, true},
		{`"unterminated`, "", false, false},
		{"\"line\nbreak\"", "", false, false},
		{`x"not"`, "", false, false},
		{`"a\tb\x41/\u00e9"`, "a\tbA/é", false, true},
		{`f"{d['}']}/x"`, "*/x", true, true},
		{`f"{x:>{w}}/y"`, "*/y", true, true},
	}
	for _, tt := range tests {
		lit, ok := pyString(tt.src, 0)
		if ok != tt.ok || lit.val != tt.val || lit.fstring != tt.fstring {
			t.Errorf("pyString(%q) = %+v, %v; want %q fstring=%v ok=%v", tt.src, lit, ok, tt.val, tt.fstring, tt.ok)
		}
	}
}

func TestLiteralExpr(t *testing.T) {
	tests := []struct{ expr, want string }{
		{`"charts/episodic_return"`, "charts/episodic_return"},
		{`"Loss/" + key`, "Loss/*"},
		{`prefix + "/reward"`, "*/reward"},
		{`f"Episode/{key}"`, "Episode/*"},
		{`"{}/mean".format(name)`, "*/mean"},
		{`"%s/mean" % name`, "*/mean"},
		{`"%(k)s/x" % d`, "*/x"},
		{`"a".upper()`, ""},
		{`key`, ""},
		{``, ""},
	}
	for _, tt := range tests {
		got, ok := literalExpr(tt.expr)
		if ok != (tt.want != "") || ok && got != tt.want {
			t.Errorf("literalExpr(%q) = %q, %v; want %q", tt.expr, got, ok, tt.want)
		}
	}
}

func TestBalancedAndSplit(t *testing.T) {
	src := `f(a, "x,)", [1, 2], {"k": (3, 4)}) # tail`
	inside, ok := balanced(src, 1, 1000)
	if !ok || inside != `(a, "x,)", [1, 2], {"k": (3, 4)})` {
		t.Fatalf("balanced = %q, %v", inside, ok)
	}
	got := splitTop(inside[1:len(inside)-1], ',')
	want := []string{"a", ` "x,)"`, " [1, 2]", ` {"k": (3, 4)}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("splitTop (-want +got):\n%s", diff)
	}
	if _, ok := balanced("f(a, (b)", 1, 1000); ok {
		t.Error("unclosed call balanced")
	}
}

// TestPythonTags pins down the tag extraction on the call shapes RL code
// uses.
func TestPythonTags(t *testing.T) {
	src := `import wandb
import csv, json
from torch.utils.tensorboard import SummaryWriter

COLUMNS = ("time/total_timesteps", "rollout/ep_rew_mean")
writer = SummaryWriter(log_dir="runs/exp")
writer.add_scalar("charts/episodic_return", r, step)
writer.add_scalar("Loss/" + key, v, it)
self.writer.add_scalar(f"Episode/{key}", value, it)
self.logger.record("train/approx_kl", kl)
wandb.log({"eval/mean_reward": m, "eval/success_rate": s}, step=step)
wandb.log(dict(reward=r, kl=k))
metrics["actor/entropy"] = ent
metrics[f"timing_s/{name}"] = t
metrics.update({"critic/score/mean": score})
# writer.add_scalar("commented/out", 1)
headers = {"content/type": "application/json", "Accept": "text/plain"}
w = csv.DictWriter(f, fieldnames=COLUMNS)
with open(os.path.join(out_dir, "metrics.jsonl"), "a") as f:
    f.write(json.dumps({"step": 1, "data": {"train/loss": loss}}) + "\n")
`
	sc := newScanner(nil)
	f := sc.scanFile("train.py", kindPython, src)
	got := map[string]string{}
	for _, tg := range f.tags {
		got[tg.tag] = tg.backend + " " + string(tg.conf)
	}
	want := map[string]string{
		"charts/episodic_return": "tensorboard high",
		"Loss/*":                 "tensorboard medium",
		"Episode/*":              "tensorboard medium",
		"train/approx_kl":        "sb3 high",
		"eval/mean_reward":       "wandb high",
		"eval/success_rate":      "wandb high",
		"reward":                 "wandb high",
		"kl":                     "wandb high",
		"actor/entropy":          "dict medium",
		"timing_s/*":             "dict medium",
		"critic/score/mean":      "dict high",
		"time/total_timesteps":   "csv high",
		"rollout/ep_rew_mean":    "csv high",
		"content/type":           "jsonl medium",
		"train/loss":             "jsonl medium",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	var outs []string
	for _, o := range f.outputs {
		outs = append(outs, o.name+" "+o.dirVar+" "+o.kind)
	}
	if diff := cmp.Diff([]string{"metrics.jsonl out_dir metrics", "runs/exp  logdir"}, outs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
}

// FuzzScan runs every scanner over arbitrary text: none may panic, and
// what they report must point into the file.
func FuzzScan(f *testing.F) {
	seeds := []string{
		"import torch\nwriter.add_scalar(\"charts/SPS\", 1, 2)\nif __name__ == \"__main__\":\n    tyro.cli(Args)\n",
		"wandb.log({f\"eval/{k}\": v for k, v in d.items()})\nmetrics[\"a/b\"] = 1\nX = (\"a/b\", \"c/d\"\n",
		"#!/bin/bash\n#SBATCH --gres=gpu:8\ncase $1 in\n  train) script=train.py ;;\nesac\npython3 \"$ROOT/$script\" a.b=1 $@\n",
		"train:\n\tpython train.py --seed 1\nPY ?= python3\neval:\n\t$(PY) eval.py\n",
		"[project.scripts]\nrl-train = \"pkg.train:main\"\n[project]\ndependencies = [\"stable-baselines3>=2\", 'trl']\n",
		"KEY=CHANGEME\nexport NGPUS_PER_NODE=8\n",
		"defaults:\n  - _self_\nenv: CartPole-v1\ntrainer:\n  logger: [console, wandb]\n",
		"```bash\npython train.py \\\n  --env-id CartPole-v1\n```\n",
		"| a | [PPO](algos/ppo/) [y](http://z) [w](#a) [v](../x.md#b) ](\n",
		"1. Train:\n  ```python t.py --task=x```\n`a` and `` b `` ```\n.. code-block:: bash\n\n   python3 -m pkg.main a=1 \\\n    b=2\nmytool sft --x [Y]\n",
		"f(\"\"\"x\n", "'", "\"\\", "open(", "os.path.join(", "metrics[", "fieldnames=(", "@dataclass\nclass\n",
		"add_argument(\"--set\", action=\"append\", metavar=\"KEY=VALUE\", help=\"k=v\")",
		"setup(console_scripts=[\"a=b:c\"], install_requires=[\"x\"])",
		"import argparse\nargs = parser.parse_args()\npolicy.train(replay_buffer, 256)\nmodel.train()\n",
		"Run ./train_mpe.sh or see [ppo.py](x/ppo.py); .py .sh",
		"path = os.path.join(self._logdir, f\"{name}.csv\")\nwith open(path, \"a\") as f:\n",
	}
	for _, s := range seeds {
		for k := kindPython; k <= kindYAML; k++ {
			f.Add(uint8(k), s)
		}
	}
	sc := newScanner(mustProfiles(f))
	f.Fuzz(func(t *testing.T, kind uint8, src string) {
		k := fileKind(kind%uint8(kindMaybeScript)) + 1
		name := map[fileKind]string{kindPython: "setup.py", kindShell: "run.sh", kindMake: "Makefile", kindPyproject: "pyproject.toml",
			kindSetupCfg: "setup.cfg", kindRequirements: "requirements.txt", kindReadme: "README.md", kindEnv: ".env",
			kindYAML: "c.yaml", kindMaybeScript: "bin/x"}[k]
		fa := sc.scanFile(name, k, src)
		if fa == nil {
			return
		}
		lines := strings.Count(src, "\n") + 1
		for _, h := range fa.hits {
			if h.line < 0 || h.line > lines {
				t.Errorf("hit %+v outside the file's %d lines", h, lines)
			}
		}
		for _, tg := range fa.tags {
			if tg.tag == "" || tg.line < 1 || tg.line > lines {
				t.Errorf("tag %+v", tg)
			}
		}
		for _, c := range fa.commands {
			if len(c.argv) == 0 {
				t.Errorf("empty command %+v", c)
			}
		}
	})
}

func mustProfiles(tb testing.TB) []Profile {
	p, err := Profiles()
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// TestDeepNesting: bracket nesting that would exhaust the shell parser's
// stack is read line by line instead.
func TestDeepNesting(t *testing.T) {
	sc := newScanner(nil)
	deep := strings.Repeat("$(", 100000) + "python train.py"
	for _, k := range []fileKind{kindShell, kindMake, kindPython} {
		sc.scanFile("x", k, deep)
		sc.scanFile("x", k, "train:\n\t"+deep+"\n")
	}
	if !shallow("a=$(b `c` $(d)) `e` `f` `g`\n") || shallow(strings.Repeat("(", maxNesting)) {
		t.Error("shallow misjudges nesting")
	}
}

// TestHeldOutNames: held-out evaluation is named by a word of its own
// (val, test, eval), never by letters inside another word.
func TestHeldOutNames(t *testing.T) {
	for name, want := range map[string]bool{
		"eval.jsonl": true, "test_metrics.csv": true, "val.csv": true, "validation.jsonl": true,
		"values.csv": false, "value_loss.csv": false, "latest.jsonl": false, "interval.csv": false, "progress.csv": false,
	} {
		if got := evalName(name); got != want {
			t.Errorf("evalName(%q) = %v, want %v", name, got, want)
		}
	}
	for tag, want := range map[string]string{
		"val/accuracy": roleEval, "eval/mean_return": roleEval, "test/reward": roleEval,
		"train/value_loss": "loss", "critic/values/mean": roleOther, "losses/value_loss": "loss",
	} {
		if got := tagRole(tag); got != want {
			t.Errorf("tagRole(%q) = %q, want %q", tag, got, want)
		}
	}
}
