package audit

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fileTags scans one in-memory Python file and returns its tags with
// their backends.
func fileTags(t *testing.T, src string) map[string]string {
	t.Helper()
	sc := newScanner(mustProfiles(t))
	f := sc.scanFile("train.py", kindPython, src)
	got := map[string]string{}
	for _, tg := range f.tags {
		got[tg.tag] = tg.backend
	}
	return got
}

func TestSpreadDictKeys(t *testing.T) {
	for _, c := range []struct {
		name string
		src  string
		want map[string]string
	}{{
		name: "a dict built above and spread into the logged one",
		src: "import wandb\nlogs = {\"actor_loss\": a, \"qf_loss\": q}\nif ev:\n    logs[\"eval_avg_return\"] = r\n" +
			"wandb.log({\"speed\": s, **logs}, step=1)\n",
		want: map[string]string{"actor_loss": "wandb", "qf_loss": "wandb", "eval_avg_return": "wandb", "speed": "wandb"},
	}, {
		name: "a spread of a call's result names no key",
		src:  "import wandb\nwandb.log({\"speed\": s, **stats()})\n",
		want: map[string]string{"speed": "wandb"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, fileTags(t, c.src)); diff != "" {
				t.Errorf("tags (-want +got):\n%s", diff)
			}
		})
	}
}
