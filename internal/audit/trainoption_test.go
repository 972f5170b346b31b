package audit

import (
	"context"
	"strings"
	"testing"
)

// TestAlgorithmOption: a documented command whose option value names an
// RL algorithm (--config=qmix, algo=ppo) trains, though its program's
// name and its own code (it hands off to another module) do not say so.
func TestAlgorithmOption(t *testing.T) {
	main := "from run import run\n\n\ndef go(config):\n    run(config)\n\n\nif __name__ == \"__main__\":\n    go({})\n"
	for _, c := range []struct {
		name, readme, want string
	}{
		{"option=value", "python src/main.py --config=qmix --env-config=gymma with env_args.key=x\n", "python src/main.py"},
		{"key=value", "python src/main.py algo=ppo env=cartpole\n", "python src/main.py"},
		{"quoted value", "python src/main.py --config=\"mappo\"\n", "python src/main.py"},
		{"a value that is no algorithm", "python src/main.py --config=default\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{
				"README.md":   "# Agents\n\nRun an experiment:\n\n```sh\n" + c.readme + "```\n",
				"src/main.py": main,
				"src/run.py":  "def run(config):\n    return config\n",
			})
			r, err := Run(context.Background(), dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := r.Adapter.Commands["train"]
			if c.want == "" && got != "" || c.want != "" && !strings.HasPrefix(got, c.want+" ") {
				t.Errorf("commands.train = %q, want it to run %q", got, c.want)
			}
		})
	}
}
