package audit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// flowTags runs the cross-file flow over in-memory Python files and
// returns the tags it adds, with whether each is on an evaluation path.
func flowTags(t *testing.T, files map[string]string) map[string]bool {
	t.Helper()
	profiles, err := Profiles()
	if err != nil {
		t.Fatal(err)
	}
	sc := newScanner(profiles)
	var all []*facts
	names := sortedKeys(files)
	for _, n := range names {
		all = append(all, sc.scanFile(n, kindPython, files[n]))
	}
	before := map[*facts]int{}
	for _, f := range all {
		before[f] = len(f.tags)
	}
	fl := newFlow(sc, all)
	fl.derive()
	fl.calls(all)
	got := map[string]bool{}
	for _, f := range all {
		for _, h := range f.tags[before[f]:] {
			got[h.tag] = got[h.tag] || h.eval
		}
	}
	return got
}

func TestFlowTags(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  map[string]bool
	}{{
		name: "wrapper with a category parameter, dict returned from another module",
		files: map[string]string{
			"logger.py": "import wandb\n\nclass Logger:\n    def log(self, d, category='train'):\n        _d = {}\n" +
				"        for k, v in d.items():\n            _d[category + '/' + k] = v\n        wandb.log(_d)\n",
			"agent.py": "class Agent:\n    def update(self, batch):\n        info = {}\n        info['critic_loss'] = 1.0\n        return info\n",
			"train.py": "def evaluate(logger, agent):\n    stats = agent.update(None)\n    logger.log(stats, 'eval')\n\n" +
				"def train(logger, agent):\n    m = agent.update(None)\n    logger.log(m, category='train')\n",
		},
		want: map[string]bool{"eval/critic_loss": true, "train/critic_loss": false},
	}, {
		name: "a wrapper's key that is not a literal logs nothing",
		files: map[string]string{
			"logger.py": "class L:\n    def scalar(self, key, v):\n        self.w.add_scalar('x/' + key, v)\n",
			"train.py":  "def train(l, name):\n    l.scalar(name, 1.0)\n    l.scalar('loss', 2.0)\n",
		},
		want: map[string]bool{"x/loss": false},
	}} {
		t.Run(c.name, func(t *testing.T) {
			got := flowTags(t, c.files)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("tags (-want +got):\n%s", diff)
			}
		})
	}
}
