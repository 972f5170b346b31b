package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkDecision holds for every decision: a reason exactly when denied, on
// one line.
func checkDecision(t *testing.T, d Decision) {
	t.Helper()
	if d.Deny != (d.Reason != "") {
		t.Fatalf("deny %v with reason %q", d.Deny, d.Reason)
	}
	if strings.ContainsAny(d.Reason, "\n\r") {
		t.Fatalf("reason is not one line: %q", d.Reason)
	}
}

// FuzzCheck feeds payloads, seeded with real ones from both hosts, to the
// whole hook path, in a repository with the example's adapter.
func FuzzCheck(f *testing.F) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed payloads: %v", err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"tool_name":"Bash","tool_input":{"command":"bash -c 'eval \"torchrun x\"'"}}`))
	f.Add([]byte(`{"tool_name":"Bash","cwd":"sub","tool_input":{"command":"tmux send-keys -t x"}}`))
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":".rlxp/ledger.jsonl","content":"x"}}`))
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"NotebookEdit","tool_input":{"notebook_path":1}}`))
	f.Add([]byte(`{"tool_name":"apply_patch","turn_id":"t","tool_input":{"command":"*** Begin Patch\n*** Move to: .rlxp/runs/x\n"}}`))
	f.Add([]byte(`{"tool_name":"Bash","tool_input":{"command":["rlxp","launch","e","--confirm","d"]}}`))
	root := f.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".rlxp"), 0o755); err != nil {
		f.Fatal(err)
	}
	adapter := "schema: rlxp.adapter/v1\ncommands:\n"
	for k, v := range cartpole() {
		adapter += "  " + k + ": \"" + v + "\"\n"
	}
	if err := os.WriteFile(filepath.Join(root, ".rlxp", "adapter.yaml"), []byte(adapter), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		g := &Guard{}
		checkDecision(t, g.Check(payload, root))
	})
}

// FuzzDecide feeds shell source to the parser, the fallback splitter and
// the rules.
func FuzzDecide(f *testing.F) {
	for _, s := range []string{
		"CUDA_VISIBLE_DEVICES=0 nohup python train.py > log 2>&1 &",
		"bash -lc 'source .venv/bin/activate && torchrun train.py'",
		"tmux new-session -d -s t 'python train.py' && screen -dmS x python train.py",
		"ssh -p 22 host 'cd r && sbatch job.sh'",
		"rlxp contract approve --all --yes",
		"go run ./cmd/rlxp experiment approve e1",
		"cat <<'EOF' > x.sh\ntorchrun train.py\nEOF\nbash <<EOF\n$(echo hi)\nEOF",
		"bash scripts/run.sh train 'configs/a b.json' --seed 0 --out d --preflight-only",
		"a=$((1+2)); echo ${a:-x} \"$(ls)\" `pwd` <(cat) \\\n next",
		"torchrun train.py && (",
		"env -S 'python train.py'",
		"timeout",
		"sudo -u",
		"screen -S",
		"tmux -c",
		"go run",
		"rlxp contract $'\\x61pprove' --all --yes --by --version",
		"python3 tr{a,}in.py && X=1; echo ${X:-y} $((X+1)) <(ls) $(  )",
		"cat f | python3 - ; echo 'ls' | sh ; curl x | bash",
		"docker run --rm --entrypoint torchrun img; apptainer exec i python3 t.py",
		"find . -exec python3 {} \\; ; xargs -I% python3 % ; parallel 'x {}' ::: a",
		"env -S 'python3 train.py' ; env -C /tmp -S",
		"script -qec 'rlxp contract approve' /dev/null; su -c; flock l -c",
		"echo x > .rlxp/ledger.jsonl; sed -i s/a/b/ .rlxp/x.yaml; python3 -c \"open('.rlxp/a','w')\"",
		"cd $X && cd - && pushd /tmp && bash scripts/run.sh train x",
		"python3 -c \"import os, subprocess; os.system('python3 train.py'); subprocess.run(['torchrun', 'x.py'])\"",
		"python3 - <<'EOF'\nimport runpy, train as t, a.b\nfrom x.y import z\nrunpy.run_path('train.py')\n'''`qx`'''\nEOF",
		"perl -e 'system(\"python3\", \"train.py\"); print `ls`' ; node -e \"require('child_process').spawn('a', ['b'])\"",
		"cp train.py /tmp/t.py && ln -s a b && dd if=x of=y && tee q < r; python3 /tmp/t.py; bash b; ./y",
		"echo 'torchrun x' > r.sh; printf '%s\\n%b' a b > s.sh; curl x > u.sh; bash r.sh && sh s.sh && . u.sh",
		"make -C . -f Makefile -j4 run V=1 && make -n && tox -e train,lint && nox -s t && invoke x --y z && snakemake -c1",
	} {
		f.Add(s)
	}
	p := NewPolicy(repo, cartpole())
	f.Fuzz(func(t *testing.T, command string) {
		checkDecision(t, testGuard(repo, p).Decide(command, repo))
	})
}

// FuzzMakefile feeds makefiles, seeded with this repository's own and the
// forms repository's, to the makefile reader and the recipe walk: they
// must end, within their bounds, whatever the text.
func FuzzMakefile(f *testing.F) {
	own, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(own), "build")
	f.Add(string(own), "")
	f.Add(makefileSeed, "smoke")
	f.Add("a: b ; echo $@ $< $^ $$x $(X:.c=.o) ${Y} $Z\n\t$(shell ls) $(foreach v,$(V),$(v))\nb::\n\t@-+echo \\\n next\ndefine T\n\tx\nendef\nX != ls\nY ?= 1\nY += 2\nZ ::= $(Y)\n", "a")
	f.Fuzz(func(t *testing.T, data, goal string) {
		mf := parseMakefile("/r/Makefile", data, maxIncludes)
		var goals []string
		if goal != "" {
			goals = []string{goal}
		}
		if rs := mf.recipes(goals, goal == "all", nil, "/r"); len(rs) > maxRecipes+len(data) {
			t.Fatalf("%d recipe lines from %d bytes", len(rs), len(data))
		}
	})
}

// makefileSeed is the kind of makefile RL repositories have: variables,
// phony targets, a training target behind a prerequisite.
const makefileSeed = `PY ?= python3
LINT_PATHS = *.py tests/ scripts/
.PHONY: all test lint run data smoke
all: lint test ## the default goal
test:
	$(PY) -m pytest -q tests
lint:
	# stop on syntax errors
	ruff check ${LINT_PATHS} --select=E9,F63
run: data
	$(PY) train.py --config configs/a.json
data:
	$(PY) split_train_val.py
smoke:
	-@$(MAKE) run EPOCHS=1
docs:
	cd docs && $(MAKE) html
`

// FuzzJustfile feeds justfiles to the justfile reader and the recipe
// walk, with the recipes and arguments of a command line.
func FuzzJustfile(f *testing.F) {
	f.Add("py := \"python3\"\nset shell := [\"bash\", \"-c\"]\n\ndefault: lint\n\n# style\nlint:\n    ruff check .\n\nfit config=\"configs/a.json\":\n    {{py}} train.py --config {{config}}\n\nsmoke: (fit \"configs/smoke.json\") && lint\n    @echo done\n\nsweep:\n    #!/usr/bin/env python3\n    import subprocess\n    subprocess.run([\"python3\", \"train.py\"])\n\ntest *args:\n    {{py}} -m pytest {{args}} {{{{x}}}} {{ env_var('X') }}\n", "smoke fit a b")
	f.Add("[private]\n@a $x +y='1':\n\techo {{x}}\n", "")
	f.Fuzz(func(t *testing.T, data, words string) {
		jf := parseJustfile(data)
		if runs := jf.run(strings.Fields(words), words == "*"); len(runs) > len(jf.recipes) {
			t.Fatalf("%d bodies from %d recipes", len(runs), len(jf.recipes))
		}
	})
}

// FuzzScriptOnDisk feeds a file a command runs, seeded with the example's
// real trainer, evaluation script and runner and with task files, to the
// readers of scripts on disk and of task files: the file is written where
// the command finds it, then run by Python, by the shell and as each task
// runner's task file.
func FuzzScriptOnDisk(f *testing.F) {
	for _, p := range []string{"train.py", "eval.py", "scripts/run.sh", "cartpole/preflight.py"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "examples", "cartpole", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("[tox]\nenvlist = py311\n[testenv:quick]\ncommands =\n    python3 train.py {posargs}\n")
	f.Add("import nox\n@nox.session\ndef smoke(session):\n    session.run('python3', 'train.py')\n")
	f.Add("def task_fit():\n    return {'actions': [['python3', 'train.py'], 'ruff check .']}\n")
	f.Add("rule fit:\n    shell:\n        \"python3 train.py\"\n        \" --out {output}\"\n")
	f.Add("import subprocess, sys\ncmd = [sys.executable, 'train.py']\nsubprocess.run(cmd)\nfrom train import (main,\n    Policy as P)\n")
	dash, err := os.ReadFile(filepath.Join("..", "dashboard", "static", "app.js"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(dash))
	f.Add("const cp = require('child_process');\ncp.execSync(`python3 ${d}/train.py`);\nspawn('torchrun', ['x.py'])\nfs.appendFileSync('.rlxp/ledger.jsonl', '')\n// x\n")
	f.Add("open(my $fh, '>>', '.rlxp/ledger.jsonl');\nsystem \"python3 train.py\";\nmy $x = qx{torchrun a};\nexec 'a', 'b';\n")
	f.Add("out = %x(torchrun main.py)\nFile.write('.rlxp/contract.yaml', 'x')\nsystem 'python3 train.py' # c\n")
	f.Add("LEDGER = Path('.rlxp') / 'ledger.jsonl'\nwith LEDGER.open('a') as f:\n    f.write('')\nshutil.copy('.rlxp/ledger.jsonl', os.path.join('.rlxp', 'x'))\n")
	f.Add(`{"scripts": {"a": "python3 train.py", "prea": "npm run a", "posta": "bash x.sh"}}`)
	f.Add("[project.scripts]\na = \"train:main\"\n[tool.pdm.scripts]\na = {composite = [\"b\", \"python3 train.py\"]}\nb = \"a\"\n[tool.pdm.scripts.c]\ncall = \"x:y\"\n[tool.hatch.envs.default.scripts]\na = [\n  \"torchrun x.py\",\n]\n[tool.pixi.tasks]\na = { cmd = [\"python3\", \"train.py\"], depends-on = [\"a\"] }\nb = '''\nmulti\n'''\n")
	f.Add("SHELL=/bin/bash\n# c\n*/5 * * * * cd /r && python3 train.py % in\n@reboot torchrun x.py\n1 2\n")
	f.Add("mod a\nmod? b 'c/d'\nmod e \"x.just\"\nmod\n")
	f.Add("[pytest]\ntestpaths =\n    # c\n    tests\npython_files = test_*.py *_check.py\n[tool:pytest]\nnorecursedirs = .* build\n[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n")
	f.Add("import subprocess\n\n\n@pytest.fixture\ndef f():\n    pass\n\n\nclass TestX:\n    def test_a(self):\n        subprocess.run(['python3', 'train.py'])\n")
	f.Add("const cmd = \"python3 train.py\";\nexecSync(cmd);\nmy @c = ('a', 'b'); system(@c);\ncmd = 'x'\nsystem cmd\nspawn(py, args)\n")
	f.Add(`{"scripts": {"a": "npm-run-all b 'c:*'", "b": "concurrently npm:c:x 'python3 train.py'", "c:x": "run-s a"}}`)
	root := f.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".rlxp"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "tests"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".git", "hooks"), 0o755); err != nil {
		f.Fatal(err)
	}
	names := []string{"x.py", "x.sh", "tox.ini", "tox.toml", "noxfile.py", "tasks.py", "dodo.py", "Snakefile", "x.js", "x.pl", "x.rb",
		"package.json", "pyproject.toml", "pixi.toml", "jobs.cron", "justfile", "a.just", ".git/hooks/post-commit",
		"pytest.ini", "setup.cfg", "conftest.py", "tests/test_x.py"}
	f.Fuzz(func(t *testing.T, body string) {
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(root, n), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		g := &Guard{Load: func(string) *Policy { return NewPolicy(root, cartpole()) }}
		if err := os.Chmod(filepath.Join(root, ".git", "hooks", "post-commit"), 0o755); err != nil {
			t.Fatal(err)
		}
		checkDecision(t, g.Decide("python3 x.py && bash x.sh && tox && tox -c tox.toml && nox && invoke a && doit && snakemake", root))
		checkDecision(t, g.Decide("node x.js && perl x.pl && ruby x.rb && npm run a && pdm run a && hatch run a && pixi run a && uv run a && poe a && crontab jobs.cron && git commit -m x && just a b && just $X", root))
		checkDecision(t, g.Decide("pytest && pytest -k a --co tests && python3 -m pytest --pyargs tests && npm-run-all a 'c:*' && concurrently npm:b 'x y' && npm --prefix . run a", root))
	})
}
