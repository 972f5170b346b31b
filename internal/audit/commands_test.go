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
	} {
		script, module, _ := pyTarget(strings.Fields(c.cmd))
		if script != c.script || module != c.module {
			t.Errorf("pyTarget(%q) = %q, %q; want %q, %q", c.cmd, script, module, c.script, c.module)
		}
	}
}
