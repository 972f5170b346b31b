package audit

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEpisodeRewardTerms: an environment that hands its framework the
// episode sums of each reward term in a loop over the names of its
// config's reward scales gets one tag per name the config lists, under
// the framework's prefix; a loop over names from no config drafts none.
func TestEpisodeRewardTerms(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"envs/robot_config.py": "class RobotCfg:\n    class rewards:\n        class scales:\n            tracking_lin_vel = 1.0\n" +
			"            torques = -0.00001\n\n        only_positive_rewards = True\n\n    class normalization:\n        class obs_scales:\n            lin_vel = 2.0\n",
		"envs/go2_config.py": "from envs.robot_config import RobotCfg\n\nclass Go2Cfg(RobotCfg):\n    class rewards(RobotCfg.rewards):\n" +
			"        class scales(RobotCfg.rewards.scales):\n            feet_air_time = 1.0\n",
		"envs/robot.py": "import torch\n\nclass Robot:\n    def __init__(self, cfg):\n        self.cfg = cfg\n" +
			"        self.reward_scales = class_to_dict(self.cfg.rewards.scales)\n" +
			"        self.episode_sums = {name: torch.zeros(4, dtype=torch.float)\n                             for name in self.reward_scales.keys()}\n" +
			"        self.other = {}\n\n" +
			"    def reset_idx(self, env_ids):\n        self.extras[\"episode\"] = {}\n        for key in self.episode_sums.keys():\n" +
			"            self.extras[\"episode\"]['rew_' + key] = torch.mean(self.episode_sums[key][env_ids])\n" +
			"        for k in self.other:\n            self.extras[\"episode\"][f\"other_{k}\"] = 0.0\n",
		"train.py": "from rsl_rl.runners import OnPolicyRunner\n\nif __name__ == '__main__':\n    OnPolicyRunner(env, cfg).learn(1000)\n",
	})
	r, err := Run(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, tg := range r.Tags {
		if len(tg.Tag) > 8 && tg.Tag[:8] == "Episode/" {
			got[tg.Tag] = tg.Role
		}
	}
	want := map[string]string{"Episode/rew_tracking_lin_vel": "task_term", "Episode/rew_torques": "task_term", "Episode/rew_feet_air_time": "task_term"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("episode tags (-want +got):\n%s", diff)
	}
}
