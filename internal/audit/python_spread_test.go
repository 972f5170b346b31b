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

// TestKeyValueLoggers: a key-value logger's literal keys are tags
// (logger.logkv("eprewmean", v)), and a wrapper's prefix given as a name
// assigned one of two strings above the call logs both tags.
func TestKeyValueLoggers(t *testing.T) {
	got := fileTags(t, "from baselines import logger\nlogger.logkv('eprewmean', m)\nlogger.record_tabular(\"fps\", f)\n"+
		"self.logger.log_stat(\"epsilon\", e, t)\nlogger.logkv('Episode reward', m)\n")
	want := map[string]string{"eprewmean": "logger", "fps": "logger", "epsilon": "logger", "Episode reward": "logger"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	flow := flowTags(t, map[string]string{
		"runner.py": "class Runner:\n    def run(self, test_mode=False):\n        log_prefix = \"test_\" if test_mode else \"\"\n" +
			"        self._log(self.returns, log_prefix)\n        other = make()\n        self._log(self.returns, other)\n\n" +
			"    def _log(self, returns, prefix):\n        self.logger.log_stat(prefix + \"return_mean\", mean(returns), self.t)\n",
	})
	if diff := cmp.Diff(map[string]bool{"test_return_mean": false, "return_mean": false}, flow); diff != "" {
		t.Errorf("flow tags (-want +got):\n%s", diff)
	}
}

// TestSacredObserver: Sacred's file observer is a JSON metrics backend
// (it writes metrics.json); importing it alone is not.
func TestSacredObserver(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"create", "from sacred.observers import FileStorageObserver\nex.observers.append(FileStorageObserver.create(path))\n", []string{"json"}},
		{"constructor", "from sacred.observers import FileStorageObserver\nex.observers.append(FileStorageObserver(path))\n", []string{"json"}},
		{"import only", "from sacred.observers import FileStorageObserver\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newScanner(mustProfiles(t)).scanFile("main.py", kindPython, c.src)
			var got []string
			for _, h := range f.hits {
				if h.cat == catBackend {
					got = append(got, h.name)
				}
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("backends (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRenamedKeys: a helper that returns a dict's items under new keys
// ({f"{prefix}{k}": v for k, v in d.items()}) gives its caller the keys
// it is passed, renamed, its prefix given by position or by name; a
// dict merged in with |= adds its keys.
func TestRenamedKeys(t *testing.T) {
	got := flowTags(t, map[string]string{
		"utils.py": "def add_prefix(d, prefix):\n    return {f\"{prefix}{k}\": v for k, v in d.items()}\n",
		"track.py": "import wandb\n\ndef log(args, metrics):\n    if args.use_wandb:\n        wandb.log(metrics)\n",
		"rollout.py": "from utils import add_prefix\nimport track\n\ndef sample_metrics(samples):\n    out = {}\n" +
			"    out[\"truncated_ratio\"] = 0.5\n    return out\n\n" +
			"def log_rollout(args, samples):\n    log_dict = {}\n    log_dict |= add_prefix(sample_metrics(samples), \"rollout/\")\n    log_dict |= add_prefix({\"fps\": 1.0}, prefix=\"perf/\")\n" +
			"    track.log(args, log_dict)\n",
	})
	want := map[string]bool{"rollout/truncated_ratio": false, "perf/fps": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flow tags (-want +got):\n%s", diff)
	}
}
