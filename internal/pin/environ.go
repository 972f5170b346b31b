package pin

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"
)

// interpreterVars are the environment variables that change what Python
// runs before a line of the repository's code does: where it imports
// from (a sitecustomize.py on PYTHONPATH), its standard library, the
// user site, a startup file, where its byte code is cached (a prefix
// holding byte code planted for the repository's modules), whether
// asserts run, a library preloaded into every process.
var interpreterVars = []string{"PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONNOUSERSITE", "PYTHONSAFEPATH", "PYTHONSTARTUP",
	"PYTHONPYCACHEPREFIX", "PYTHONPLATLIBDIR", "PYTHONOPTIMIZE", "LD_PRELOAD"}

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
