package guard_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// diskRepo adds to the forms repository the files an agent saves with one
// tool call and runs with another: launchers under names that say
// nothing, and everyday scripts next to them that only look similar.
// writeFiles writes files (path → content) under dir with permissions perm.
func writeFiles(t *testing.T, dir string, perm os.FileMode, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), perm); err != nil {
			t.Fatal(err)
		}
	}
}

func diskRepo(t *testing.T) string {
	t.Helper()
	repo, _, _ := formsRepo(t)
	files := map[string]string{
		// A trainer as real repositories write one: it trains when run, not
		// when imported.
		"train.py": "\"\"\"Train a policy.\n\n    python train.py --config configs/a.json\n\"\"\"\nimport torch\n\n\nclass Policy(torch.nn.Module):\n    pass\n\n\ndef main():\n    for step in range(10):\n        pass\n\n\nif __name__ == \"__main__\":\n    main()\n",
		// One that trains at import time, CleanRL style.
		"ppo_train.py":      "import torch\nclass Agent:\n    pass\nargs = parse()\nfor update in range(100):\n    pass\n",
		"run.py":            "import subprocess\nsubprocess.run([\"python3\", \"train.py\", \"--seed\", \"1\"], check=True)\n",
		"go.sh":             "#!/bin/bash\nset -e\npython3 train.py --lr 3e-4\n",
		"sysx.py":           "import sys, subprocess\nsubprocess.Popen([sys.executable, 'train.py'])\n",
		"osys.py":           "import os\nos.system(f\"python3 train.py --seed {1}\")\n",
		"oesc.py":           "import os\n# a hex space, as Python reads it\nos.system('python3\\x20train.py')\n",
		"vec.py":            "import subprocess\n\ncmd = [\n    \"torchrun\", \"--nproc_per_node=8\", \"x.py\",\n]\nsubprocess.check_call(cmd)\n",
		"rp.py":             "import runpy\nrunpy.run_path('train.py', run_name='__main__')\n",
		"ex.py":             "exec(open('train.py').read())\n",
		"il.py":             "import importlib\nimportlib.import_module('train').main()\n",
		"entry.py":          "from train import main\nmain()\n",
		"rlpkg/__init__.py": "",
		"rlpkg/train.py":    "def main():\n    pass\n",
		"rlpkg/utils.py":    "def fmt(x):\n    return str(x)\n",
		"pkgattr.py":        "import rlpkg\n\nrlpkg.train.main()\n",
		"pkguse.py":         "import rlpkg\n\nprint(rlpkg.utils.fmt(1))\n",
		// A module that takes the trainer's entry point for a function
		// nobody calls, and one that calls it under another name.
		"unusedentry.py":        "from train import main, Policy\n\n\ndef cli():\n    main()\n\n\nprint(Policy)\n",
		"aliasentry.py":         "import sys\nfrom train import main as run_it\n\nsys.exit(run_it())\n",
		"tests/test_helpers.py": "from unusedentry import Policy\n\n\ndef test_policy():\n    assert Policy\n",
		// A library's loss module named after its algorithm, imported
		// under a name and handed on as a value.
		"tests/test_loss.py": "import rlpkg.sac as sac_objective\n\n\ndef test_patch(monkeypatch):\n    monkeypatch.setattr(sac_objective, 'X', 1)\n",
		"rlpkg/sac.py":       "X = 0\n",
		"effect.py":          "import rlpkg.sac as s\n",
		// Calls shown in a docstring, a help text and a comment start
		// nothing; a process library's Popen does.
		"docrun.py":       "\"\"\"Runs the sweep, as in\n\n    subprocess.run(['python3', 'train.py', '--seed', '1'])\n\"\"\"\nimport argparse\n\np = argparse.ArgumentParser(epilog=\"then: os.system('torchrun x.py')\")\n# exec(open('train.py').read())\nprint(p)\n",
		"psu.py":          "import psutil\n\npsutil.Popen(['python3', 'train.py'])\n",
		"attr.py":         "import train\n\ntrain.main()\n",
		"atimport.py":     "from ppo_train import Agent\nprint(Agent)\n",
		"helpers.py":      "import subprocess\n\n\ndef fmt(x):\n    return str(x)\n\n\ndef start(cfg):\n    subprocess.run(['python3', 'train.py', '--config', cfg])\n",
		"kick.py":         "from helpers import start\nstart('configs/a.json')\n",
		"chain1.sh":       "bash chain2.sh\n",
		"chain2.sh":       "python3 chain3.py\n",
		"chain3.py":       "import subprocess\nsubprocess.call('accelerate launch x.py', shell=True)\n",
		"approve.sh":      "rlxp contract approve --all --yes\n",
		"ledger.sh":       "echo '{}' >> .rlxp/ledger.jsonl\n",
		"tools/kick.py":   "import os\nos.execvp('python3', ['python3', 'train.py'])\n",
		"scripts/self.sh": "#!/usr/bin/env bash\nDIR=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\npython3 \"$DIR/../train.py\" \"$@\"\n",
		"scripts/arg.sh":  "python3 \"$1\"\n",
		"scripts/notes":   "#!/bin/sh\nexec sbatch job.slurm\n",
		"pyshebang":       "#!/usr/bin/env python3\nimport subprocess\nsubprocess.run(['bash', 'go.sh'])\n",
		// Everyday scripts: an evaluation that borrows the trainer's class,
		// one whose docstring and help show how training is run, tests, and
		// scripts that call git or evaluate.
		"evaluate.py":     "\"\"\"Evaluate a checkpoint trained with `python train.py`.\"\"\"\nimport argparse\nimport subprocess\nfrom train import Policy\nfrom transformers.trainer_utils import set_seed\n\np = argparse.ArgumentParser(description='run python train.py first')\np.add_argument('--out', help='where python train.py wrote the policy')\nsha = subprocess.check_output(['git', 'rev-parse', 'HEAD'])\n\nif __name__ == '__main__':\n    print(Policy, sha, set_seed)\n",
		"use.py":          "import train\nprint(train.Policy)\nfrom helpers import fmt\nprint(fmt(1))\n",
		"scripts/test.sh": "#!/bin/bash\nset -euo pipefail\nDIR=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\npython3 -m pytest -q \"$DIR/../tests\"\npython3 \"$DIR/../evaluate.py\" --out runs/x\n",
		"env.sh":          "eval \"$(pyenv init -)\"\nfor i in /etc/profile.d/*.sh; do . $i; done\n${PYTHON:-python3} -m pip --version\nexport PATH=$HOME/.local/bin:$PATH\n",
		"dyn.sh":          "python3 \"$HERE/train.py\" --seed 1\n",
		"tools/lint.py":   "import subprocess, sys\nsys.exit(subprocess.call([sys.executable, '-m', 'ruff', 'check', '.']))\n",
	}
	writeFiles(t, repo, 0o755, files)
	// A link made by an earlier call, under a name that says nothing.
	if err := os.Symlink("go.sh", filepath.Join(repo, "y")); err != nil {
		t.Fatal(err)
	}
	return repo
}

// TestScriptsOnDisk: a script saved by one tool call and run by another is
// judged by what it holds when the command runs it.
func TestScriptsOnDisk(t *testing.T) {
	repo := diskRepo(t)
	const launch, approve, writes = "starts training directly", "human act", "written by rlxp alone"
	checkForms(t, repo, []struct{ cmd, want string }{
		{"python3 run.py", launch},
		{"uv run run.py", launch},
		{"bash go.sh", launch},
		{"./go.sh", launch},
		{"sh go.sh && echo done", launch},
		{"source go.sh", launch},
		{". ./go.sh", launch},
		{"sh < go.sh", launch},
		{"nohup ./go.sh > log 2>&1 &", launch},
		{"./y", launch},
		{"python3 sysx.py", launch},
		{"python3 osys.py", launch},
		{"python3 oesc.py", launch},
		{"python3 vec.py", "torchrun"},
		{"python3 rp.py", launch},
		{"python3 ex.py", launch},
		{"python3 il.py", launch},
		{"python3 entry.py", launch},
		{"python3 pkgattr.py", launch},
		{"python3 aliasentry.py", launch},
		{"python3 effect.py", launch},
		{"python3 psu.py", launch},
		{"python3 attr.py", launch},
		{"python3 atimport.py", launch},
		{"python3 kick.py", launch},
		{"bash chain1.sh", "accelerate launch"},
		{"python3 -m tools.kick", launch},
		{"bash scripts/self.sh --seed 1", launch},
		{"bash scripts/arg.sh train.py", launch},
		{"scripts/notes", "sbatch"},
		{"./pyshebang", launch},
		{"bash approve.sh", approve},
		{"sh ledger.sh", writes},
		{"bash dyn.sh", launch},
	})
	checkForms(t, repo, []struct{ cmd, want string }{
		{"python3 evaluate.py --out runs/x", "allow"},
		{"python3 use.py", "allow"},
		{"python3 pkguse.py", "allow"},
		{"python3 docrun.py", "allow"},
		{"python3 unusedentry.py && pytest tests/test_helpers.py tests/test_loss.py", "allow"},
		{"bash scripts/test.sh", "allow"},
		{"source env.sh && python3 evaluate.py", "allow"},
		{"bash scripts/arg.sh tools/constraints.py", "allow"},
		{"python3 tools/lint.py && python3 helpers.py", "allow"},
		{"python3 -c 'from train import Policy; print(Policy)'", "allow"},
		{"cat go.sh run.py && bash -n go.sh && python3 -m py_compile run.py", "allow"},
	})
}

// TestTaskFiles: a task runner runs the commands its task file gives the
// tasks named (every task's, when it names none or one the file does not
// hold); the other tasks stay allowed.
func TestTaskFiles(t *testing.T) {
	repo := diskRepo(t)
	files := map[string]string{
		"tox.ini":          "[tox]\nenvlist = py311, lint\n\n[testenv]\ndeps = pytest\ncommands = pytest -q tests\n\n[testenv:lint]\ncommands = ruff check .\n\n[testenv:quick]\ncommands =\n    python3 -c 'print(1)'\n    python3 train.py --epochs 1 {posargs}\n",
		"noxfile.py":       "import nox\n\n\n@nox.session\ndef tests(session):\n    session.install('pytest')\n    session.run('pytest', '-q')\n\n\n@nox.session(python='3.11')\ndef smoke(session):\n    session.run('python3', 'train.py', '--epochs', '1')\n",
		"tasks.py":         "from invoke import task\n\n\n@task\ndef lint(c):\n    c.run('ruff check .')\n\n\n@task\ndef quick(c, epochs=1):\n    c.run(f'python3 train.py --epochs {epochs}')\n",
		"dodo.py":          "def task_lint():\n    return {'actions': ['ruff check .']}\n\n\ndef task_fit():\n    return {'actions': [['python3', 'train.py']], 'file_dep': ['train.py']}\n",
		"Snakefile":        "rule all:\n    input: \"results/policy.pt\"\n\nrule fit:\n    output: \"results/policy.pt\"\n    shell: \"python3 train.py --out {output}\"\n\nrule plot:\n    shell:\n        \"python3 tools/constraints.py\"\n",
		"mk/Makefile":      "docs:\n\tcd docs && make html\nfit:\n\tcd sub && $(MAKE) fit\n",
		"mk/docs/Makefile": "SPHINXBUILD = sphinx-build\nhelp:\n\t@$(SPHINXBUILD) -M help . _build\n.PHONY: help Makefile\n%: Makefile\n\t@$(SPHINXBUILD) -M $@ . _build $(O)\n",
		"mk/sub/Makefile":  "fit:\n\tpython3 ../../train.py --epochs 1\n",
		"other/tox.toml":   "[env_run_base]\ncommands = [[\"pytest\", \"-q\"]]\n\n[env.quick]\ncommands = [\n  [\"torchrun\", \"--nproc_per_node=2\", \"x.py\"],\n]\n",
	}
	writeFiles(t, repo, 0o644, files)
	const launch = "starts training directly"
	checkForms(t, repo, []struct{ cmd, want string }{
		{"tox -e quick", "runs the commands of quick (tox.ini)"},
		{"tox run -e lint,quick -- -x", launch},
		{"nox -s smoke", "runs the commands of smoke (noxfile.py)"},
		{"nox", launch},
		{"invoke quick", "runs the commands of quick (tasks.py)"},
		{"inv quick --epochs 2", launch},
		{"doit fit", "runs the commands of fit (dodo.py)"},
		{"doit", launch},
		{"snakemake -j1", "runs the commands of fit (Snakefile)"},
		{"snakemake --cores 1 results/policy.pt", launch},
		{"tox -c other/tox.toml -e quick", "torchrun"},
		{"make -C mk fit", launch},
	})
	checkForms(t, repo, []struct{ cmd, want string }{
		{"tox && tox -e lint && tox -e py311 -- -x tests && tox -l", "allow"},
		{"nox -s tests && nox -l && nox --list", "allow"},
		{"invoke lint && invoke --list", "allow"},
		{"doit lint && doit list", "allow"},
		{"snakemake plot && snakemake -n && snakemake --cores 1 -n", "allow"},
		{"cd other && tox -e py311", "allow"},
		{"make -C mk docs && cd mk && make docs", "allow"},
	})
}

// TestJustImports: a recipe a justfile imports runs as its own.
func TestJustImports(t *testing.T) {
	repo := t.TempDir()
	files := map[string]string{
		".rlxp/adapter.yaml": "schema: rlxp.adapter/v1\n",
		"justfile":           "import 'just/train.just'\nimport? 'missing.just'\nmod rl\nmod? ops\nmod lab 'lab/tasks.just'\nmod? gone\n\nlint:\n    ruff check .\n",
		"just/train.just":    "quick:\n    python3 train.py --epochs 1\n",
		// modules: recipes under a name, run in the module's directory
		"rl/mod.just":    "fit:\n    python3 train.py\n\nplot:\n    python3 plot.py\n",
		"ops.just":       "mod nested 'deep'\nlint:\n    ruff check .\n",
		"deep/justfile":  "go:\n    torchrun --nproc_per_node 2 main.py\n",
		"lab/tasks.just": "sweep lr='3e-4':\n    python3 ../train.py --lr {{lr}}\n",
	}
	writeFiles(t, repo, 0o644, files)
	checkForms(t, repo, []struct{ cmd, want string }{
		{"just quick", "starts training directly"},
		{"just rl fit", "runs the recipe fit (rl/mod.just:2)"},
		{"just rl::fit", "starts training directly"},
		{"just lab sweep 1e-3", "starts training directly"},
		{"just ops nested go", "torchrun"},
		{"just ops::nested::go", "torchrun"},
		{"just $R", "starts training directly"},
		{"just lint", "allow"},
		{"just rl plot && just ops lint && just gone x && just --list rl", "allow"},
	})
}

// TestOtherLanguagesAndWrites: JavaScript, Perl, Ruby and R scripts run
// from disk are judged by the commands their process calls start, and a
// script in any of these languages or Python that writes rlxp's records
// is refused; scripts that only read the records, or write elsewhere,
// run.
func TestOtherLanguagesAndWrites(t *testing.T) {
	repo := diskRepo(t)
	files := map[string]string{
		"run.js":       "const cp = require('child_process');\n// usage: node run.js\ncp.execSync('python3 train.py --seed 1', {stdio: 'inherit'});\n",
		"spawn.mjs":    "import { spawn } from 'node:child_process';\nconst p = spawn('python3', ['train.py', '--lr', '3e-4']);\n",
		"tmpl.js":      "const { execSync } = require('child_process');\nfor (const s of [1, 2]) execSync(`python3 ${dir}/train.py --seed ${s}`);\n",
		"ok.js":        "const cp = require('child_process');\nconsole.log('train with: python3 train.py');\nconsole.log(cp.execSync('git rev-parse HEAD').toString());\n",
		"sys.pl":       "use strict;\nsystem('python3', 'train.py', '--seed', 1) == 0 or die;\n",
		"bare.pl":      "system \"torchrun --nproc_per_node 2 main.py\";\n",
		"tick.pl":      "my $out = `python3 train.py`;\nmy $h = qx{accelerate launch main.py};\n",
		"ok.pl":        "print \"run: python3 train.py\\n\";\nmy $sha = `git rev-parse HEAD`;\n",
		"run.rb":       "system('python3 train.py')\n",
		"px.rb":        "out = %x(torchrun main.py)\n",
		"ok.rb":        "puts 'python3 train.py trains the policy'\nputs File.read('.rlxp/ledger.jsonl').lines.size\n",
		"run.R":        "system(\"python3 train.py --seed 1\")\n",
		"var.js":       "const { execSync } = require('child_process');\nconst cmd = \"python3 train.py --seed 1\";\nexecSync(cmd, { stdio: 'inherit' });\n",
		"varv.js":      "const cp = require('child_process');\nlet py = 'python3';\nconst args = ['train.py', '--lr', '3e-4'];\ncp.spawnSync(py, args);\n",
		"var.pl":       "use strict;\nmy $c = \"python3 train.py --seed 1\";\nsystem($c) == 0 or die;\n",
		"varl.pl":      "my @cmd = ('torchrun', '--nproc_per_node', '2', 'main.py');\nsystem(@cmd);\n",
		"varb.pl":      "my $cmd = 'python3 train.py';\nsystem $cmd;\n",
		"var.rb":       "cmd = \"python3 train.py --seed 1\"\nsystem(cmd)\n",
		"varok.js":     "const { execSync } = require('child_process');\nconst msg = 'python3 train.py trains';\nconsole.log(msg);\nconst cmd = 'git rev-parse HEAD';\nexecSync(cmd);\n",
		"varok.pl":     "my $usage = \"python3 train.py --seed 1\";\nprint $usage;\nmy $c = \"git status\";\nsystem($c);\n",
		"varok.rb":     "cmd = \"python3 train.py\"\nputs cmd\ncmd = \"ls -l\"\nsystem(cmd)\n",
		"nodex":        "#!/usr/bin/env node\nrequire('child_process').execSync('python3 train.py');\n",
		"perlx":        "#!/usr/bin/perl\nexec 'torchrun', 'main.py';\n",
		"rubyx":        "#!/usr/bin/env ruby\nsystem 'python3 train.py'\n",
		"approve.js":   "require('child_process').execSync('rlxp contract approve --all --yes');\n",
		"w.js":         "const fs = require('fs');\nfs.appendFileSync('.rlxp/approvals.jsonl', '{}\\n');\n",
		"w.pl":         "open(my $fh, '>>', '.rlxp/ledger.jsonl') or die;\nprint $fh \"{}\\n\";\n",
		"w2.pl":        "open(FH, \">.rlxp/approvals.jsonl\");\n",
		"w.rb":         "File.write('.rlxp/contract.yaml', 'x: 1')\n",
		"rd.js":        "const fs = require('fs');\nconst rows = fs.readFileSync('.rlxp/ledger.jsonl', 'utf8').split('\\n');\nfs.writeFileSync('report.json', JSON.stringify(rows));\n",
		"wa.py":        "open('.rlxp/approvals.jsonl', 'a').write('{}')\n",
		"wcopy.py":     "import shutil\nshutil.copy('/tmp/c.yaml', '.rlxp/contract.yaml')\n",
		"wpath.py":     "from pathlib import Path\nPath('.rlxp/ledger.jsonl').write_text('')\n",
		"wrm.py":       "import os\nos.remove('.rlxp/ledger.jsonl')\n",
		"wtree.py":     "import shutil\nshutil.rmtree('.rlxp/runs')\n",
		"wname.py":     "import json\nfrom pathlib import Path\n\nLEDGER = Path('.rlxp') / 'ledger.jsonl'\n\n\ndef main():\n    with LEDGER.open('a') as f:\n        f.write(json.dumps({'verdict': 'improved'}) + '\\n')\n\n\nif __name__ == '__main__':\n    main()\n",
		"wjoin.py":     "import os\nwith open(os.path.join('.rlxp', 'approvals.jsonl'), 'w') as f:\n    f.write('')\n",
		"wfstr.py":     "import os\nroot = os.getcwd()\nopen(f'{root}/.rlxp/ledger.jsonl', 'a').write('{}')\n",
		"summarize.py": "import json, shutil\n# never write .rlxp/ledger.jsonl by hand: rlxp does\nrows = [json.loads(l) for l in open('.rlxp/ledger.jsonl')]\nshutil.copy('.rlxp/ledger.jsonl', 'backup/ledger.jsonl')\nwith open('summary.txt', 'w') as f:\n    f.write(str(len(rows)))\n",
		"unused.py":    "def _reset():\n    open('.rlxp/ledger.jsonl', 'w').close()\n\n\nprint('ok')\n",
	}
	writeFiles(t, repo, 0o755, files)
	const launch, approve, writes = "starts training directly", "human act", "written by rlxp alone"
	checkForms(t, repo, []struct{ cmd, want string }{
		{"node run.js", launch},
		{"node --max-old-space-size=4096 spawn.mjs", launch},
		{"node tmpl.js", launch},
		{"perl -w sys.pl", launch},
		{"perl bare.pl", "torchrun"},
		{"perl tick.pl", launch},
		{"ruby run.rb", launch},
		{"ruby px.rb", "torchrun"},
		{"Rscript run.R", launch},
		{"./nodex", launch},
		{"./perlx", "torchrun"},
		{"./rubyx", launch},
		{"node var.js", launch},
		{"node varv.js", launch},
		{"perl var.pl", launch},
		{"perl varl.pl", "torchrun"},
		{"perl varb.pl", launch},
		{"ruby var.rb", launch},
		{"node approve.js", approve},
		{"node w.js", writes},
		{"perl w.pl", writes},
		{"perl w2.pl", writes},
		{"ruby w.rb", writes},
		{"python3 wa.py", writes},
		{"python3 wcopy.py", writes},
		{"python3 wpath.py", writes},
		{"python3 wrm.py", writes},
		{"python3 wtree.py", writes},
		{"python3 wname.py", writes},
		{"python3 wjoin.py", writes},
		{"python3 wfstr.py", writes},
	})
	checkForms(t, repo, []struct{ cmd, want string }{
		{"node ok.js && perl ok.pl && ruby ok.rb", "allow"},
		{"node varok.js && perl varok.pl && ruby varok.rb", "allow"},
		{"node rd.js && node -e 'console.log(1)' && perl -ne 'print if /lr/' train.py", "allow"},
		{"python3 summarize.py && python3 unused.py", "allow"},
		{"node --version && ruby -v && cat run.js", "allow"},
	})
}

// TestSweeps: a Hydra multirun or a W&B agent starts a run for each point
// of a sweep, whatever the script is called; a script's own -m option
// and a single Hydra run of a script that is not a trainer stay allowed.
func TestSweeps(t *testing.T) {
	repo := diskRepo(t)
	app := "import hydra\n\n\n@hydra.main(config_path='conf', config_name='config', version_base=None)\ndef main(cfg):\n    print(cfg)\n\n\nif __name__ == '__main__':\n    main()\n"
	writeFiles(t, repo, 0o644, map[string]string{"main.py": app, "tools/export.py": "import sys\nprint(sys.argv)\n"})
	const sweep = "sweep"
	checkForms(t, repo, []struct{ cmd, want string }{
		{"python3 main.py -m", "Hydra multirun"},
		{"python3 main.py --multirun optimizer.lr=1e-3,3e-4", "Hydra multirun"},
		{"python3 tools/export.py -m lr=1e-3,3e-4", "Hydra multirun"},
		{"python3 tools/export.py -m hydra/launcher=submitit_slurm", "Hydra multirun"},
		{"python3 -m pkg.app -m 'seed=range(0,5)'", "Hydra multirun"},
		{"my-app --multirun seed=1,2", "Hydra multirun"},
		{"nohup python3 main.py -m seed=0 > sweep.log 2>&1 &", "Hydra multirun"},
		{"wandb agent team/proj/abc123", sweep},
	})
	checkForms(t, repo, []struct{ cmd, want string }{
		{"python3 main.py optimizer.lr=1e-3 --cfg job", "allow"},
		{"python3 tools/export.py -m model.pt", "allow"},
		{"python3 main.py --help && git commit -m 'lr=1e-3,3e-4' && wandb sweep sweep.yaml && wandb login", "allow"},
	})
}

// TestGitHooks: a git hook runs when git runs it, with nobody asking:
// writing one that trains is refused as running it would be, and a git
// command is judged by the hooks it runs.
func TestGitHooks(t *testing.T) {
	repo := diskRepo(t)
	files := map[string]string{
		".git/hooks/pre-commit":        "#!/bin/sh\nruff check .\npython3 -m pytest -q\n",
		".git/hooks/post-checkout":     "#!/bin/sh\nbash go.sh\n",
		".git/hooks/pre-push":          "#!/bin/sh\npython3 train.py --steps 10\n",
		".git/hooks/post-merge.sample": "#!/bin/sh\npython3 train.py\n",
		"hk/post-commit":               "#!/bin/sh\nnohup torchrun main.py &\n",
		"scripts/pre-commit":           "#!/bin/sh\nruff check .\n",
		"scripts/post-commit-train":    "#!/bin/sh\npython3 train.py\n",
	}
	writeFiles(t, repo, 0o755, files)
	const launch = "starts training directly"
	checkForms(t, repo, []struct{ cmd, want string }{
		{"echo 'python3 train.py' > .git/hooks/post-commit && chmod +x .git/hooks/post-commit", "writes the git hook"},
		{"printf '#!/bin/sh\\ntorchrun main.py\\n' > .git/hooks/post-commit", "torchrun"},
		{"cp scripts/post-commit-train .git/hooks/post-commit", launch},
		{"ln -sf ../../go.sh .git/hooks/post-commit", launch},
		{"mkdir -p .husky && cat > .husky/pre-commit <<'EOF'\npython3 train.py --epochs 1\nEOF", launch},
		{"git checkout -b lr-sweep", "post-checkout"},
		{"cd tools && git switch main", launch},
		{"git push origin HEAD", "pre-push"},
		{"git -c core.hooksPath=hk commit -m 'tune lr'", "torchrun"},
	})
	checkForms(t, repo, []struct{ cmd, want string }{
		{"git add -A && git commit -m 'train: tune lr' && git status", "allow"},
		{"cp scripts/pre-commit .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit", "allow"},
		{"git push --no-verify origin HEAD && git merge feature && git log --oneline -3", "allow"},
		{"cat .git/hooks/pre-push && echo '# notes' > .git/info/exclude", "allow"},
	})
}

// TestProjectScripts: a runner runs the command lines its project file
// gives a script or task (package.json, pyproject.toml, pixi.toml), and
// crontab installs jobs that run later; the other scripts and tasks, and
// listing the crontab, stay allowed.
func TestProjectScripts(t *testing.T) {
	repo := diskRepo(t)
	files := map[string]string{
		"package.json": `{"name": "rl", "scripts": {"fit": "python3 train.py --seed 1", "prego": "echo start", "go": "node tools/x.js", "postgo": "bash go.sh", "lint": "eslint .", "test": "jest", "sweep": "npm run fit"}}`,
		"pyproject.toml": "[project]\nname = \"rl\"\n\n[project.scripts]\nfitx = \"train:main\"\nevalx = \"evaluate:main\"\n\n" +
			"[tool.pdm.scripts]\nquick = \"python3 train.py --epochs 1\"\nlint = \"ruff check .\"\nall = {composite = [\"lint\", \"quick\"]}\n\n" +
			"[tool.pdm.scripts.entry]\ncall = \"train:main\"\n\n" +
			"[tool.hatch.envs.default.scripts]\nsmoke = [\n  \"python3 -c 'print(1)'\",\n  \"torchrun --nproc_per_node 2 main.py\",\n]\ncov = \"pytest --cov\"\n\n" +
			"[tool.pixi.tasks]\nfit4 = \"python3 train.py\"\nfmt = { cmd = \"ruff format .\" }\nrun-all = { cmd = \"echo ok\", depends-on = [\"fit4\"] }\n\n" +
			"[tool.poe.tasks]\nlearn = { shell = \"python3 train.py && echo done\" }\ndocs = \"mkdocs build\"\n",
		"tools/x.js":       "console.log(1)\n",
		"web/package.json": `{"scripts": {"all": "npm-run-all lint fit:*", "lint": "eslint .", "fit:a": "python3 ../train.py --seed 1", "fit:b": "echo b", "both": "concurrently -n w,t \"npm:watch\" \"npm:fit:*\"", "watch": "tsc -w", "seq": "run-s lint build", "build": "tsc", "dev": "concurrently \"npm:watch\" \"vite\"", "chain": "npm run lint && npm run fit:a"}}`,
		"jobs.cron":        "# nightly\nSHELL=/bin/bash\n0 3 * * * cd " + "REPO" + " && python3 train.py --seed 7 >> log 2>&1\n",
		"ok.cron":          "@daily " + "REPO" + "/tools/backup.sh\n",
	}
	for name, body := range files {
		files[name] = strings.ReplaceAll(body, "REPO", repo)
	}
	writeFiles(t, repo, 0o644, files)
	const launch = "starts training directly"
	checkForms(t, repo, []struct{ cmd, want string }{
		{"npm run fit", "runs the script fit (package.json)"},
		{"npm run go", launch},
		{"yarn fit --seed 2", launch},
		{"pnpm run sweep", launch},
		{"bun run fit", launch},
		{"uv run fitx", launch},
		{"poetry run fitx --steps 10", launch},
		{"pdm run quick", launch},
		{"pdm run all", launch},
		{"pdm run entry", launch},
		{"hatch run smoke", "torchrun"},
		{"hatch run default:smoke", "torchrun"},
		{"pixi run fit4", launch},
		{"pixi run run-all", launch},
		{"poe learn", launch},
		{"npx -y torchrun main.py", "torchrun"},
		{"npx -c 'python3 train.py'", launch},
		{"npm exec -- torchrun main.py", "torchrun"},
		{"pnpm dlx accelerate launch main.py", "accelerate launch"},
		{"cd web && npm run fit:a", launch},
		{"cd web && npx npm-run-all fit:a", launch},
		{"cd web && npm-run-all --parallel lint 'fit:*'", launch},
		{"cd web && run-s lint fit:a", launch},
		{"cd web && run-p -l lint fit:b fit:a", launch},
		{"cd web && npm run all", launch},
		{"cd web && npm run both", launch},
		{"cd web && concurrently 'npm:watch' 'python3 ../train.py'", launch},
		{"cd web && npx concurrently --kill-others \"npm run lint\" \"npm:fit:a\"", launch},
		{"cd web && yarn run chain", launch},
		{"cd web && bun run chain", launch},
		{"cd web && pnpm chain", launch},
		{"npm --prefix web run fit:a", launch},
		{"yarn --cwd web fit:a", launch},
		{"pnpm -C web run fit:a", launch},
		{"npm run lint --prefix=web && npm run fit:a --prefix web", launch},
		{"crontab jobs.cron", "installs cron jobs"},
		{"echo '*/5 * * * * cd " + repo + " && torchrun main.py' | crontab -", "torchrun"},
		{"(crontab -l; echo '@reboot python3 " + repo + "/train.py') | crontab -", "cannot verify"},
	})
	checkForms(t, repo, []struct{ cmd, want string }{
		{"npm run lint && npm test && npm install && yarn add lodash && pnpm lint", "allow"},
		{"npx eslint . && npx -y prettier --check . && pnpm exec tsc --noEmit && bunx vitest run", "allow"},
		{"uv run evalx && pdm run lint && hatch run cov && pixi run fmt && poe docs", "allow"},
		{"uv run pytest -q && poetry run python3 tools/constraints.py && pdm run python3 evaluate.py", "allow"},
		{"crontab -l && crontab ok.cron && crontab -r", "allow"},
		{"cd web && npm-run-all lint build && run-s lint build && run-p watch build && npm run seq && npm run dev", "allow"},
		{"cd web && concurrently 'npm:watch' 'vite' && npx concurrently -k \"npm:lint\" \"npm:build\" && npm run fit:b", "allow"},
		{"npm --prefix web run lint && yarn --cwd web build && pnpm -C web run seq", "allow"},
	})
}

// TestPytest: a test that calls the trainer's entry point, or a
// conftest.py that starts it, runs the trainer under pytest; tests that
// borrow the trainer's helpers run.
func TestPytest(t *testing.T) {
	repo := diskRepo(t)
	files := map[string]string{
		"tests/test_policy.py":   "from train import Policy\n\n\ndef test_policy():\n    assert Policy is not None\n",
		"tests/test_smoke.py":    "import pytest\nfrom train import main\n\n\ndef test_main():\n    main()\n",
		"tests/test_cli.py":      "import subprocess, sys\n\n\nclass TestCLI:\n    def test_runs(self):\n        subprocess.run([sys.executable, 'train.py', '--steps', '100000'], check=True)\n",
		"tests/test_help.py":     "import subprocess\n\n\ndef test_help():\n    subprocess.run(['python3', 'train.py', '--help'], check=True)\n",
		"hooked/conftest.py":     "import subprocess\nimport pytest\n\n\n@pytest.fixture(scope='session', autouse=True)\ndef kick():\n    subprocess.Popen(['torchrun', 'main.py'])\n",
		"hooked/test_nothing.py": "def test_ok():\n    pass\n",
		"tests/conftest.py":      "import pytest\n\n\n@pytest.fixture\ndef cfg():\n    return {'lr': 3e-4}\n",
	}
	writeFiles(t, repo, 0o644, files)
	const launch = "starts training directly"
	checkForms(t, repo, []struct{ cmd, want string }{
		{"python3 -m pytest tests/test_smoke.py -q", launch},
		{"pytest -x tests/test_smoke.py::test_main", launch},
		{"pytest tests/test_cli.py", launch},
		{"pytest hooked", "torchrun"},
		{"cd hooked && pytest -q", "torchrun"},
		// found by pytest's own discovery
		{"pytest", launch},
		{"pytest -q tests", launch},
		{"python3 -m pytest -x", launch},
		{"pytest -k cli tests", launch},
	})
	checkForms(t, repo, []struct{ cmd, want string }{
		{"pytest tests/test_policy.py && python3 -m pytest -q tests/test_policy.py tests/test_help.py", "allow"},
		{"pytest -q tests/test_policy.py tests/test_help.py --ignore tests/test_smoke.py", "allow"},
	})
}

// TestPytestDiscovery: pytest collects the test files its configuration
// names (testpaths, python_files, norecursedirs; pytest.ini,
// pyproject.toml, setup.cfg or tox.ini, found from where it runs up to
// its rootdir) and the packages --pyargs names; a collected test that
// starts the trainer is a launch. Tests that do not, a -k that leaves the
// training test out, --collect-only, and directories pytest does not
// enter stay allowed.
func TestPytestDiscovery(t *testing.T) {
	repo := diskRepo(t)
	trains := "import subprocess\n\n\ndef test_policy_shape():\n    assert True\n\n\ndef test_full_run():\n    subprocess.run(['python3', 'train.py', '--steps', '100'], check=True)\n"
	unit := "from train import Policy\n\n\ndef test_policy():\n    assert Policy\n"
	files := map[string]string{
		"pyproject.toml":            "[project]\nname = \"rl\"\n\n[tool.pytest.ini_options]\ntestpaths = [\"checks\"]\npython_files = [\"check_*.py\"]\n",
		"checks/check_train.py":     trains,
		"checks/test_ignored.py":    "import os\nos.system('torchrun main.py')\n",
		"unit/test_unit.py":         unit,
		"unit/build/test_x.py":      "import os\nos.system('torchrun main.py')\n",
		"unit/.venv/test_y.py":      "import os\nos.system('torchrun main.py')\n",
		"pkg/__init__.py":           "",
		"pkg/tests/__init__.py":     "",
		"pkg/tests/check_e2e.py":    "import subprocess, sys\n\n\nclass TestEndToEnd:\n    def test_trains(self):\n        subprocess.check_call([sys.executable, '-m', 'train'])\n",
		"sub/setup.cfg":             "[metadata]\nname = sub\n\n[tool:pytest]\ntestpaths =\n    # the slow ones\n    slow\n",
		"sub/slow/test_slow.py":     "import subprocess\n\n\ndef test_slow():\n    subprocess.run('accelerate launch x.py', shell=True)\n",
		"sub/fast/test_fast.py":     "def test_fast():\n    assert 1\n",
		"tox/tox.ini":               "[tox]\nenvlist = py\n\n[pytest]\npython_files = *_spec.py\n",
		"tox/run_spec.py":           "import subprocess\n\n\ndef test_run():\n    subprocess.run(['python3', 'ppo_train.py'])\n",
		"tox/test_not_collected.py": "import subprocess\n\n\ndef test_run():\n    subprocess.run(['python3', 'ppo_train.py'])\n",
	}
	writeFiles(t, repo, 0o644, files)
	// hooked/ (a conftest that trains) is the diskRepo's: keep it out of these.
	if err := os.RemoveAll(filepath.Join(repo, "hooked")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(repo, "tests")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "unit", ".venv", "pyvenv.cfg"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	const launch = "starts training directly"
	checkForms(t, repo, []struct{ cmd, want string }{
		{"pytest", "runs checks/check_train.py"},
		{"python3 -m pytest -q", launch},
		{"pytest checks", launch},
		{"pytest -k full_run", launch},
		{"pytest --pyargs pkg", launch},
		{"pytest pkg", launch},
		{"pytest sub/slow", "accelerate launch"},
		{"cd tox && pytest", launch},
		{"uv run pytest -x", launch},
	})
	checkForms(t, repo, []struct{ cmd, want string }{
		{"pytest unit && pytest -q unit/test_unit.py", "allow"},
		{"pytest -k policy_shape", "allow"},
		{"pytest --collect-only -q && pytest --co", "allow"},
		{"pytest sub/fast", "allow"},
		{"pytest --ignore=checks/check_train.py checks", "allow"},
		{"pytest tox/test_not_collected.py --co", "allow"},
	})
	// Where it runs, the nearest configuration rules.
	checkForms(t, filepath.Join(repo, "sub"), []struct{ cmd, want string }{{"pytest", "accelerate launch"}})
	checkForms(t, filepath.Join(repo, "sub", "fast"), []struct{ cmd, want string }{{"pytest", "allow"}})
}
