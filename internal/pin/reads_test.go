package pin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/adapter"
)

// writeTree writes files (path → content) under a new directory.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestReadFiles: the files a run reads, followed from the command through
// configs, scripts, Hydra defaults and overrides, and dotenv users; what
// scripts write, what runs write and what nothing names are left out.
func TestReadFiles(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		cmd     string
		def     string
		outputs []string
		users   []string
		want    []string
	}{{
		name: "config chain, relative to the config and to the root",
		files: map[string]string{
			"configs/a.json":      `{"base": "private/b.json", "other": "c.yaml"}`,
			"private/b.json":      `{"include": "deep/d.yaml"}`,
			"private/deep/d.yaml": "gamma: 0.9",
			"configs/c.yaml":      "x: 1",
			"private/unnamed":     "nothing names it",
		},
		cmd:  "python3 train.py --config configs/a.json",
		want: []string{"configs/a.json", "configs/c.yaml", "private/b.json", "private/deep/d.yaml"},
	}, {
		name: "flag=path values and the default config",
		files: map[string]string{
			"train.py": "print(1)", "private/x.yaml": "a: 1", "configs/base.toml": `inc = "private/t.ini"`, "private/t.ini": "k=v",
		},
		cmd: "python3 train.py --extra=private/x.yaml", def: "configs/base.toml",
		want: []string{"configs/base.toml", "private/t.ini", "private/x.yaml", "train.py"},
	}, {
		name: "Hydra defaults and command-line group overrides",
		files: map[string]string{
			"conf/config.yaml":      "defaults:\n  - model: small\n  - override /optim: adam\n  - optional local@_here_: site\n  - db\n  - _self_\n",
			"conf/model/small.yaml": "h: 1", "conf/model/big.yaml": "h: 9", "conf/model/unused.yaml": "h: 0",
			"conf/optim/adam.yaml": "lr: 1", "conf/local/site.yaml": "s: 1", "conf/db.yaml": "d: 1",
		},
		cmd:  "python3 train.py --hydra=conf/config.yaml model=big",
		want: []string{"conf/config.yaml", "conf/db.yaml", "conf/local/site.yaml", "conf/model/big.yaml", "conf/model/small.yaml", "conf/optim/adam.yaml"},
	}, {
		name: "Hydra config directories: every config in them",
		files: map[string]string{
			"src/train.py":     "@hydra.main(config_path=\"../conf\", config_name=\"config\")\n",
			"conf/config.yaml": "hydra:\n  searchpath: [file://site_conf]\n", "conf/model/any.yaml": "h: 1",
			"site_conf/local.yaml": "x: 1", "other/config.yaml": "not a config dir",
			"cli/a.yml": "a: 1",
		},
		cmd: "python3 src/train.py --config-dir cli", users: []string{"src/train.py"},
		want: []string{"cli/a.yml", "conf/config.yaml", "conf/model/any.yaml", "site_conf/local.yaml", "src/train.py"},
	}, {
		name:  "paths inside the command's words",
		files: map[string]string{".env": "A=1", "opts.txt": "--lr 1"},
		cmd:   "env $(cat .env) python3 train.py @opts.txt",
		want:  []string{".env", "opts.txt"},
	}, {
		name: "a script's sourced files, not its redirection targets",
		files: map[string]string{
			"run.sh":        "#!/bin/bash\nsource secrets/a.env\n. ./b.cfg\npython3 train.py > out.json 2>>err.log | tee -a tee.log\n",
			"secrets/a.env": "LR=1", "b.cfg": "x", "out.json": "{}", "err.log": "", "tee.log": "",
		},
		cmd:  "bash run.sh",
		want: []string{"b.cfg", "run.sh", "secrets/a.env"},
	}, {
		name: "dotenv users: .env up from the caller, the working directory's, the literals",
		files: map[string]string{
			"pkg/sub/settings.py": "load_dotenv()\nload_dotenv('private/extra.env')\n",
			"pkg/.env":            "A=1", ".env": "B=2", "private/extra.env": "C=3", "pkg/sub/other/.env": "not up",
		},
		cmd: "python3 -m pkg.train", users: []string{"pkg/sub/settings.py"},
		want: []string{".env", "pkg/.env", "private/extra.env"},
	}, {
		name:  "make reads its Makefile",
		files: map[string]string{"Makefile": "train:\n\tpython3 train.py --config private/m.yaml\n", "private/m.yaml": "a: 1"},
		cmd:   "make train",
		want:  []string{"Makefile", "private/m.yaml"},
	}, {
		name:  "launchers that load .env themselves",
		files: map[string]string{".env": "A=1"},
		cmd:   "pipenv run python train.py",
		want:  []string{".env"},
	}, {
		name: "outputs, run directories, rlxp's state and paths outside are left out",
		files: map[string]string{
			"configs/a.yaml":        "resume: checkpoints/last.json\nstate: .rlxp/contract.yaml\nlog: runs/x/log.json\nabs: /etc/hostname\nup: ../x.json\n",
			"checkpoints/last.json": "{}", ".rlxp/contract.yaml": "", "runs/x/log.json": "{}",
		},
		cmd: "python3 train.py configs/a.yaml", outputs: []string{"runs/", "checkpoints/"},
		want: []string{"configs/a.yaml"},
	}, {
		name: "Python: the paths its reading calls, pathlib and os.path.join name",
		files: map[string]string{
			"train.py": `import json, yaml
import numpy as np, torch, pandas as pd
from pathlib import Path
import os.path as osp
from omegaconf import OmegaConf
import gin
cfg = yaml.safe_load(open("cfg/x.yaml"))
meta = json.load(open('cfg/meta.json', "r"))
obs = np.load("data/obs.npy")
ckpt = torch.load(f"private/init.pt", map_location="cpu")
df = pd.read_csv(filepath_or_buffer="data/table.csv")
extra = (Path("data") / "x.json").read_text()
hp = os.path.join("configs", "hp.yaml")
oc = OmegaConf.load("conf/base.yaml")
gin.parse_config_file("conf/train.gin")
open("out/log.txt", "w").write("written")
with open(file="out/w.json", mode="a") as f: pass
`,
			"cfg/x.yaml": "a: 1", "cfg/meta.json": "{}", "data/obs.npy": "n", "private/init.pt": "p",
			"data/table.csv": "c", "data/x.json": "{}", "configs/hp.yaml": "h: 1", "conf/base.yaml": "b: 1",
			"conf/train.gin": "g = 1", "out/log.txt": "", "out/w.json": "", "cfg/unnamed.yaml": "nothing names it",
		},
		cmd: "python3 train.py",
		want: []string{"cfg/meta.json", "cfg/x.yaml", "conf/base.yaml", "conf/train.gin", "configs/hp.yaml",
			"data/obs.npy", "data/table.csv", "data/x.json", "private/init.pt", "train.py"},
	}, {
		name: "Python: paths through names, __file__, a computed name in a literal directory, argparse defaults",
		files: map[string]string{
			"src/run.py": `import os
from pathlib import Path
HERE = Path(__file__).resolve().parent
CONF = HERE / "conf"
BASE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "base.yaml")
def main(name):
    with open(CONF / "local.yaml") as f:
        pass
    cfg = load_config(BASE)
    task = os.path.join("tasks", name)
    env = open(f"envs/{name}.json")
    p.add_argument("--config", default="private/default.yaml")
    p.add_argument("--out", default="runs/x")
    save_dir = Path("private") / "saved.yaml"
`,
			"src/conf/local.yaml": "l: 1", "src/base.yaml": "b: 1", "tasks/a.yaml": "a", "tasks/b.json": "b",
			"tasks/data.bin": "not a config", "envs/cartpole.json": "{}", "private/default.yaml": "d: 1",
			"private/saved.yaml": "written by the run",
		},
		cmd: "python3 src/run.py",
		want: []string{"envs/cartpole.json", "private/default.yaml", "src/base.yaml", "src/conf/local.yaml",
			"src/run.py", "tasks/a.yaml", "tasks/b.json"},
	}, {
		name: "Python: literals have the value Python gives them",
		files: map[string]string{
			"train.py": `import json
a = json.load(open('private/it\'s.json'))
b = open(f"private/{{x}}.json")
c = open("private/\x63.yaml"); d = open(f"conf/{cfg["name"]}.yaml")
`,
			"private/it's.json": "{}", "private/{x}.json": "{}", "private/c.yaml": "c: 1", "private/other.yaml": "o: 1", "conf/a.yaml": "a: 1",
		},
		cmd:  "python3 train.py",
		want: []string{"conf/a.yaml", "private/c.yaml", "private/it's.json", "private/{x}.json", "train.py"},
	}, {
		name: "Python: modules imported from the repository are searched in turn",
		files: map[string]string{
			"train.py":             "from rl.agent import make\nimport rl.utils as u\nfrom rl import envs\nimport torch\n",
			"rl/__init__.py":       "",
			"rl/agent.py":          "from .nets import mlp\nfrom . import buffers\n",
			"rl/nets.py":           "H = open('private/nets.json')\n",
			"rl/buffers.py":        "",
			"rl/utils/__init__.py": "",
			"rl/envs.py":           "import importlib\nimportlib.import_module('rl.plugins.extra')\n",
			"rl/plugins/extra.py":  "",
			"rl/unused.py":         "open('private/never.json')\n",
			"private/nets.json":    "{}", "private/never.json": "{}",
		},
		cmd: "python3 train.py",
		want: []string{"private/nets.json", "rl/__init__.py", "rl/agent.py", "rl/buffers.py", "rl/envs.py",
			"rl/nets.py", "rl/plugins/extra.py", "rl/utils/__init__.py", "train.py"},
	}, {
		name: "Python: names computed at run time under a literal directory or package, globs and listings",
		files: map[string]string{
			"train.py": `import glob, os, importlib
from pathlib import Path
def main(args, name, x):
    cfg = open(f"configs/{args.env}.yaml")
    hp = os.path.join("hp", name + ".yaml")
    extra = Path("cfg") / f"{x}.json"
    for f in sorted(glob.glob("tasks/*.yaml")):
        pass
    for p in Path("plugins").glob("*.py"):
        pass
    envs = [e for e in os.listdir("envs") if e.endswith(".json")]
    for q in Path("deep").rglob("*.toml"):
        pass
    algo = importlib.import_module(f"algos.{args.algo}")
    for d in os.listdir(ckpt_dir):
        pass
    for c in glob.glob("data/*.npy"):
        pass
`,
			"configs/cartpole.yaml": "a", "configs/notes.md": "not a config", "hp/a.yaml": "h", "cfg/b.json": "{}",
			"tasks/t1.yaml": "t", "tasks/t2.json": "not matched", "plugins/p1.py": "", "plugins/readme.txt": "",
			"envs/e.json": "{}", "deep/x/y.toml": "", "algos/ppo.py": "", "algos/sac/__init__.py": "",
			"data/a.npy": "data, not a config",
		},
		cmd: "python3 train.py",
		want: []string{"algos/ppo.py", "algos/sac/__init__.py", "cfg/b.json", "configs/cartpole.yaml", "deep/x/y.toml",
			"envs/e.json", "hp/a.yaml", "plugins/p1.py", "tasks/t1.yaml", "train.py"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := writeTree(t, tc.files)

			ad := &adapter.Adapter{}
			ad.Config.Default = tc.def
			got, err := readFiles(root, root, ad, []string{tc.cmd}, tc.outputs, tc.users, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("readFiles (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadSumLarge: a file above ContentLimit is pinned by its size,
// modification time and first and last MiB, not by all of its content.
func TestReadSumLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "data.bin")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(ContentLimit + 4<<20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	stamp := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(p, stamp, stamp); err != nil {
		t.Fatal(err)
	}
	before, err := readSum(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(before, "size:") {
		t.Fatalf("large file pinned as %q, want by size", before)
	}
	write := func(off int64) string {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt([]byte("x"), off); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.Chtimes(p, stamp, stamp); err != nil {
			t.Fatal(err)
		}
		got, err := readSum(p)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := write(10); got == before {
		t.Errorf("an edit of the first MiB went unseen")
	}
	before = write(ContentLimit + 4<<20 - 10)
	// The documented limit: an edit in the middle that restores the
	// modification time is not seen.
	if got := write(ContentLimit / 2); got != before {
		t.Errorf("middle edit changed the pin %q -> %q; the docs say it does not", before, got)
	}
	if err := os.Chtimes(p, stamp.Add(time.Second), stamp.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got, _ := readSum(p); got == before {
		t.Errorf("a new modification time went unseen")
	}
}

// TestMigrate: an approval in pin format 1 keeps verifying where nothing
// changed, and names what format 2 pins beyond it.
func TestMigrate(t *testing.T) {
	old := Material{Commands: map[string]string{"seed 0": "python train.py"}, Adapter: "sha256:a", Head: "abc",
		Files: map[string]string{"train.py": "sha256:1"}}
	same := old
	same.Version, same.Reads = Version, map[string]string{}
	if got := migrate(old, same); len(got) != 0 {
		t.Errorf("unchanged repository reported as %v", got)
	}
	more := same
	more.Files = map[string]string{"train.py": "sha256:1", "../lib/util.py": "sha256:2"}
	more.Reads = map[string]string{".env": "sha256:3", "train.py": "sha256:1"}
	more.hidden = map[string]bool{".env": true}
	want := []string{"approved in pin format 1, which did not pin the files the run reads that git does not show nor the code above the rlxp root; now pinned: ../lib/util.py, .env"}
	if diff := cmp.Diff(want, migrate(old, more)); diff != "" {
		t.Errorf("migrate (-want +got):\n%s", diff)
	}
}

// FuzzReadFiles: any config content is read without error or panic, and
// every file found lies inside the root.
func FuzzReadFiles(f *testing.F) {
	f.Add([]byte(`{"base": "b.json", "x": [1, "c.yaml"]}`))
	f.Add([]byte("defaults:\n  - model: small\n  - override /optim: [adam, sgd]\n  - 3\n  - {a: null}\n"))
	f.Add([]byte("#!/bin/sh\nsource ../../etc/passwd\n. b.json > c.yaml\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		root := writeTree(t, map[string]string{"b.json": "{}", "c.yaml": "a: 1", "model/small.yaml": "h: 1"})
		if err := os.WriteFile(filepath.Join(root, "a.yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readFiles(root, root, &adapter.Adapter{}, []string{"bash a.yaml"}, nil, []string{"a.yaml"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range got {
			if strings.HasPrefix(p, "../") || filepath.IsAbs(p) {
				t.Fatalf("found %s outside the root", p)
			}
		}
	})
}

// TestInterpreters: ignored Python under a virtual environment, an
// installed package tree, a cache or a tool's copy of the code is not the
// repository's code; elsewhere it is.
func TestInterpreters(t *testing.T) {
	root := writeTree(t, map[string]string{"env/pyvenv.cfg": "home = /usr/bin"})
	venv := map[string]bool{}
	for p, want := range map[string]bool{
		"env/lib/python3/x.py":                  true,
		"lib/site-packages/y.py":                true,
		"wandb/run-1/files/code/train.py":       true,
		"pkg/__pycache__/z.py":                  true,
		"local_settings.py":                     false,
		"private/model.py":                      false,
		"../lib/vendored/envy/pyvenv_helper.py": false,
	} {
		if got := interpreters(root, p, venv); got != want {
			t.Errorf("interpreters(%s) = %v, want %v", p, got, want)
		}
	}
}

// TestReadsLine: the approver is told which files git does not show are
// pinned with the approval.
func TestReadsLine(t *testing.T) {
	m := Material{Reads: map[string]string{"private/base.json": "sha256:1", ".env": "sha256:2", "train.py": "sha256:3"},
		hidden: map[string]bool{"private/base.json": true, ".env": true}}
	want := "  also pins the files the run reads that git does not show: .env, private/base.json\n"
	if diff := cmp.Diff(want, m.readsLine()); diff != "" {
		t.Errorf("readsLine (-want +got):\n%s", diff)
	}
	if got := (Material{}).readsLine(); got != "" {
		t.Errorf("no reads told as %q", got)
	}
}

// FuzzPythonReads: any Python source is searched without error, panic or
// endless loop, and every file found lies inside the root. Seeded with
// the example trainer's real code.
func FuzzPythonReads(f *testing.F) {
	seeds, err := filepath.Glob("../../examples/cartpole/*.py")
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no example trainer to seed with: %v", err)
	}
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("open(Path(__file__).parent / 'b.json' + f'{x}c' [0], mode='r')\nfrom ..x import (a as b,\n c)\nos.path.join(\n"))
	f.Add([]byte("x = '''unterminated\nopen('b.json')"))
	f.Fuzz(func(t *testing.T, data []byte) {
		root := writeTree(t, map[string]string{"b.json": "{}", "cfg/c.yaml": "a: 1", "pkg/__init__.py": "import os"})
		if err := os.WriteFile(filepath.Join(root, "train.py"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readFiles(root, root, &adapter.Adapter{}, []string{"python3 train.py"}, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range got {
			if strings.HasPrefix(p, "../") || filepath.IsAbs(p) {
				t.Fatalf("found %s outside the root", p)
			}
		}
	})
}

// TestDotenvWords: the substring search inspect makes in place of
// dotenvPattern finds every word of it.
func TestDotenvWords(t *testing.T) {
	for _, w := range strings.Split(dotenvPattern, "|") {
		if !strings.Contains(w, "dotenv") && w != "env_file" {
			t.Errorf("dotenvPattern's word %q holds neither dotenv nor env_file: inspect would miss it", w)
		}
	}
}
