package pin

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/rlxp/rlxp/internal/adapter"
)

// interpreterVars are the environment variables that change what Python
// runs before a line of the repository's code does: where it imports
// from (a sitecustomize.py on PYTHONPATH), its standard library, the
// user site, a startup file, a library preloaded into every process.
var interpreterVars = []string{"PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONNOUSERSITE", "PYTHONSAFEPATH", "PYTHONSTARTUP", "LD_PRELOAD"}

// launchVars are set by the launch itself, or change with every shell:
// not the approver's to pin.
func launchVar(name string) bool {
	switch name {
	case "CUDA_VISIBLE_DEVICES", "NNODES", "NODE_RANK", "MASTER_ADDR",
		"PWD", "OLDPWD", "SHLVL", "RANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "_":
		return true
	}
	return strings.HasPrefix(name, "RLXP_")
}

// shellVar matches a variable a command expands: $NAME or ${NAME…}.
var shellVar = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$(?:\{([A-Za-z_][A-Za-z0-9_]*)|([A-Za-z_][A-Za-z0-9_]*))`)
})

// pinEnv pins the environment variables the train commands expand and
// those that change what the interpreter runs, by the digest of their
// value ("" unset): a run inherits the launching process's environment,
// so LR=0.9 set in the agent's shell changes what "--lr $LR" runs.
// lookup reads the environment (os.LookupEnv).
func (m *Material) pinEnv(cmds []string, lookup func(string) (string, bool)) {
	m.Env = map[string]string{}
	names := append([]string(nil), interpreterVars...)
	for _, c := range cmds {
		for _, g := range shellVar().FindAllStringSubmatch(c, -1) {
			if n := g[1] + g[2]; !launchVar(n) {
				names = append(names, n)
			}
		}
	}
	for _, n := range names {
		v, ok := lookup(n)
		if !ok {
			m.Env[n] = ""
			continue
		}
		h := sha256.Sum256([]byte(v))
		m.Env[n] = "sha256:" + hex.EncodeToString(h[:])
	}
}

// pinInstalled pins the identity of the Python environments the run may
// use: a virtual environment (a directory holding pyvenv.cfg) at the
// root's top level, and the one the adapter's interpreter lies in. For
// each site-packages directory it pins the installed distributions by
// name and version (their .dist-info and .egg-info entries) and, by
// content, the files Python runs at start-up from there (*.pth,
// sitecustomize.py, usercustomize.py) and *.egg-link files. An edit
// inside an installed package's own files is not seen.
func (m *Material) pinInstalled(root string, ad *adapter.Adapter) {
	m.Installed = map[string]string{}
	var envs []string
	if entries, err := os.ReadDir(root); err == nil {
		for _, e := range entries {
			if d := filepath.Join(root, e.Name()); e.IsDir() && isVenv(d) {
				envs = append(envs, d)
			}
		}
	}
	if py := ad.Runtime.Python; strings.Contains(py, "/") {
		if !filepath.IsAbs(py) {
			py = filepath.Join(root, py)
		}
		if d := filepath.Dir(filepath.Dir(py)); isVenv(d) {
			envs = append(envs, d)
		}
	}
	sort.Strings(envs)
	for i, env := range envs {
		if i > 0 && env == envs[i-1] {
			continue
		}
		sites, _ := filepath.Glob(filepath.Join(env, "lib*", "python*", "site-packages"))
		for _, sp := range sites {
			entries, err := os.ReadDir(sp)
			if err != nil {
				continue
			}
			for _, e := range entries {
				n := e.Name()
				key := showPath(root, filepath.Join(sp, n))
				switch {
				case strings.HasSuffix(n, ".dist-info") || strings.HasSuffix(n, ".egg-info"):
					m.Installed[key] = "installed"
				case strings.HasSuffix(n, ".pth") || strings.HasSuffix(n, ".egg-link") || n == "sitecustomize.py" || n == "usercustomize.py":
					sum, err := fileSum(filepath.Join(sp, n))
					if err != nil {
						sum = "unreadable"
					}
					m.Installed[key] = sum
				}
			}
		}
	}
}

func isVenv(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "pyvenv.cfg"))
	return err == nil
}

// showPath is p relative to root when inside it, else absolute.
func showPath(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}
