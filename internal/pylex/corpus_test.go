package pylex

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// tricky are literals and layouts that tokenizers get wrong.
var tricky = []string{
	`x = 'a' "b" r'\d+' b"\x00\xff" rb'\n' Rb"x" BR'y' u'é' f'{x}' F"{x!r:>{w}}" fR'{a}\n' rf"\{x}"` + "\n",
	`s = "esc: \a\b\f\n\r\t\v \\ \' \" \101 \x41 \u00e9 \U0001F600 \q \N{BULLET}"` + "\n",
	`b = b"\101\x41\u00e9\q"` + "\n",
	"t = '''one\ntwo ''' + \"\"\"three \"quoted\" \\\"\"\" four\"\"\"\n",
	"cont = 1 + \\\n    2\nline = 'a\\\nb'\n",
	`f = f"{a['k']}-{b:{w}.{p}f}-{{literal}}-{c!s}-{d=}-{e:%Y-%m-%d}-{'#'}"` + "\n",
	`g = f"{x:'>10}" + f"{y:=^5}"` + "\n",
	"h = f'''\n{\n  a +\n  b\n}\n'''\n",
	"n = [0x1F, 0o17, 0b101, 1_000_000, 3.14, .5, 5., 1e10, 1E-3, 2.5e+3j, 7j, 0, 00]\n",
	"ops = a ** b // c @ d << e >> f <= g >= h == i != j -> k := l ... m\nx **= 2; y //= 3; z >>= 1; w <<= 1; v @= u\n",
	"def f(a, *, b=1, **kw) -> int:\n    if a:\n        return (a +\n                b)\n    else:\n\n        # a comment\n        pass\n    return 0\n",
	"class C:\n\tdef m(self):\n\t\treturn {'a': [1, 2,\n\t\t\t3]}\n\nx = 1\n",
	"if x:\n    pass\n  # odd comment\n\n    \ny = 2",
	"lambda: (yield)\nasync def g():\n    await h()\n    async with a as b:\n        pass\n",
	"données = 'unicode names'\nπ = 3.14\n",
	"x = 1 # comment with 'quote\ny = \"# not a comment\"\n",
	"s = ('implicit'\n     'concatenation'\n     f'{x}')\n",
	"d = {**a, 'b': [*c]}\nprint(*args, sep='')\n",
	"def g():\n    \"\"\"Docstring with 'quotes' and \\\"escapes\\\".\"\"\"\n    return r'''raw \\\\''' + '\\\\'\n",
	"x = [\n    1,\n    2,\n]\nif True:\n    y = x[1:2:3]\n",
	"\n\n# only comments\n",
	"",
	"x",
	"if a:\n    b\n",
	"bb = b'abc' B'\\x7f'\nm = a if b else c\n",
	"q = f\"{x:{'>' if y else '<'}10}\"\n",
	"e = f'{x!r}' f'{y!a:10}' f'{z!s}'\n",
	"if a:\r\n    b = '''x\r\ny'''\r\n    c = [1,\r\n         2]\r\n",
	`k = f'{a}{b}' f"{'x' + 'y'}" u'\u00e9\x00' b'\777'` + "\n",
	"with open('a') as f, \\\n     open('b') as g:\n    pass\n",
	"x = 1if y else 2\nz = 0_0 + 1_0 if 0 else 0b_1\n",
}

// files are Python programs of the kind the scanners read.
var files = map[string]string{
	"train.py": `#!/usr/bin/env python3
"""Train a policy.

Usage:
    python train.py --env CartPole-v1 --total-steps 100000
"""
import argparse
import os, sys
import subprocess
from pathlib import Path
from typing import (
    Any,
    Dict,
)

import torch
from torch.utils.tensorboard import SummaryWriter

ROOT = Path(__file__).resolve().parent
COLUMNS = ("step", "reward/mean", 'loss/policy')


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="train")
    p.add_argument("--env", default="CartPole-v1", help='the "environment" id')
    p.add_argument("--config", default=os.path.join("configs", "ppo.yaml"))
    p.add_argument("--lr", type=float, default=3e-4)
    return p.parse_args(argv)


class Trainer:
    def __init__(self, cfg: Dict[str, Any]) -> None:
        self.cfg = cfg
        self.writer = SummaryWriter(log_dir=f"runs/{cfg['name']}")

    def fit(self, steps: int = 1_000) -> float:
        total = 0.0
        for step in range(steps):
            loss = torch.tensor(1.0) * 0.5
            loss.backward()
            self.writer.add_scalar("train/loss", loss.item(), step)
            self.writer.add_scalar(f"reward/{self.cfg['env']}", total, step)
            total += loss.item() ** 2
        return total


def main():
    args = parse_args()
    with open(ROOT / "configs" / "base.json") as f:
        cfg = {"name": "run", "env": args.env, **json.load(f)}
    subprocess.run([sys.executable, "eval.py", "--ckpt", "out/model.pt"], check=True)
    os.system("python prepare.py --fast")
    print(f"done: {Trainer(cfg).fit():.3f} (lr={args.lr!r})")


if __name__ == "__main__":
    main()
`,
	"logger.py": `import csv, json
from dataclasses import dataclass, field


@dataclass
class Args:
    seed: int = 1
    exp_name: str = 'ppo'  # the experiment's name
    gamma: float = 0.99
    tags: list = field(default_factory=lambda: ["a", "b"])


class Logger:
    """Writes metrics as CSV rows and JSON lines."""

    def __init__(self, path, prefix=''):
        self.f = open(path + '.csv', 'w', newline='')
        self.w = csv.DictWriter(self.f, fieldnames=['step', 'eval/return'])
        self.prefix = prefix

    def log(self, step, **kv):
        row = {f'{self.prefix}/{k}' if self.prefix else k: v for k, v in kv.items()}
        self.w.writerow(dict(step=step, **row))
        print(json.dumps({"step": step, **row}) + "\n", end='')
        print("%s/%d" % ("loss", step), '{}/x'.format("a"), "\\")

    def close(self):
        self.f.close()  # noqa: E501 \
`,
	"launch.py": `import runpy, shlex
import subprocess as sp
from subprocess import Popen, check_call

cmd = ["torchrun", "--nproc_per_node", "8", "train.py"]
if __name__ == '__main__':
    sp.call(cmd)
    Popen(shlex.split("python train.py --seed 1"))
    check_call('bash scripts/run.sh', shell=True)
    runpy.run_path("train.py", run_name="__main__")
    exec(open('setup_env.py').read())
    x = r"C:\path\to\file" ; y = b'\x00' ; z = 0xFF_FF
`,
}

// corpus is the tricky literals, the programs above written to dir, and
// the repository's own Python files read in place: name → source.
func corpus(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i, s := range tricky {
		out["tricky"+string(rune('a'+i))] = s
	}
	dir := t.TempDir()
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[name] = string(b)
	}
	var repo []string
	for _, g := range []string{"../../examples/*/*.py", "../../examples/*/*/*.py", "../../scripts/bench/*.py", "../preflight/builtin/*.py"} {
		m, _ := filepath.Glob(g)
		repo = append(repo, m...)
	}
	if len(repo) == 0 {
		t.Fatal("no Python files in the repository to read")
	}
	sort.Strings(repo)
	for _, p := range repo {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = string(b)
	}
	return out
}
