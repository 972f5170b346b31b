package audit

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
)

// writeRepo unpacks a testdata/repos txtar archive into a fresh directory.
func writeRepo(t testing.TB, name string) string {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "repos", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := make(map[string]string, len(ar.Files))
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	writeTree(t, dir, files)
	return dir
}

// writeTree writes files (slash path → content) under dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// summary is the part of a report the table tests pin down.
type summary struct {
	Frameworks []string          // id:confidence
	Entries    []string          // kind: command, train and eval only
	Tags       map[string]string // tag -> role, for the tags a case names
	Systems    []string          // config systems
	Commands   map[string]string // drafted adapter commands
	Unknown    bool
}

func summarize(r *Report, tags []string) summary {
	s := summary{Tags: map[string]string{}, Commands: r.Adapter.Commands, Unknown: r.Unknown()}
	for _, f := range r.Frameworks {
		s.Frameworks = append(s.Frameworks, f.Kind+":"+string(f.Confidence))
	}
	for _, e := range r.EntryPoints {
		if e.Kind != "other" {
			s.Entries = append(s.Entries, e.Kind+": "+e.Command)
		}
	}
	for _, want := range tags {
		s.Tags[want] = "(missing)"
		for _, t := range r.Tags {
			if t.Tag == want {
				s.Tags[want] = t.Role
			}
		}
	}
	for _, c := range r.Config {
		if c.Kind == "system" || c.Kind == "overrides" {
			s.Systems = append(s.Systems, c.Name)
		}
	}
	sort.Strings(s.Systems)
	return s
}

func TestFrameworks(t *testing.T) {
	tests := []struct {
		repo string
		tags []string
		want summary
	}{
		{
			repo: "cleanrl",
			tags: []string{"charts/episodic_return", "charts/episodic_length", "losses/approx_kl", "losses/entropy", "charts/SPS"},
			want: summary{
				Frameworks: []string{"cleanrl:high"},
				Entries:    []string{"train: python ppo.py"},
				Tags: map[string]string{"charts/episodic_return": "train_reward", "charts/episodic_length": "episode_length",
					"losses/approx_kl": "kl", "losses/entropy": "entropy", "charts/SPS": "other"},
				Systems:  []string{"tyro"},
				Commands: map[string]string{"preflight": "rlxp preflight {experiment} --seed {seed}", "train": "python ppo.py --env-id CartPole-v1 --seed {seed} {params}"},
			},
		},
		{
			repo: "sb3",
			tags: []string{"custom/reward_shaping"},
			want: summary{
				Frameworks: []string{"sb3:high"},
				Entries:    []string{"train: python train.py", "eval: python enjoy.py"},
				Tags:       map[string]string{"custom/reward_shaping": "train_reward"},
				Systems:    []string{"argparse"},
				Commands: map[string]string{"preflight": "rlxp preflight {experiment} --seed {seed}",
					"train": "python train.py --seed {seed} --log-folder {run_dir} {params}",
					"eval":  "python enjoy.py --folder {run_dir} {params}",
				},
			},
		},
		{
			repo: "rsl_rl",
			want: summary{
				Frameworks: []string{"rsl_rl:high"},
				Entries:    []string{"train: python legged_gym/scripts/train.py", "eval: python legged_gym/scripts/play.py"},
				Tags:       map[string]string{},
				Commands: map[string]string{"preflight": "rlxp preflight {experiment} --seed {seed}",
					"train": "python legged_gym/scripts/train.py --task=anymal_c_flat {params}",
					"eval":  "python legged_gym/scripts/play.py {params}",
				},
			},
		},
		{
			repo: "verl",
			want: summary{
				Frameworks: []string{"verl:high"},
				Entries:    []string{"train: bash examples/grpo_trainer/run_qwen2-7b.sh", "train: python -m verl.trainer.main_ppo"},
				Tags:       map[string]string{},
				Systems:    []string{"hydra overrides"},
				Commands:   map[string]string{"preflight": "rlxp preflight {experiment} --seed {seed}", "train": "bash examples/grpo_trainer/run_qwen2-7b.sh {params}"},
			},
		},
		{
			repo: "holosoma",
			want: summary{
				Frameworks: []string{"holosoma:high"},
				Entries:    []string{"train: python src/holosoma/holosoma/train_agent.py", "train: holosoma-train", "eval: python src/holosoma/holosoma/eval_agent.py"},
				Tags:       map[string]string{},
				Systems:    []string{"tyro"},
				Commands: map[string]string{"preflight": "rlxp preflight {experiment} --seed {seed}",
					"train": "python src/holosoma/holosoma/train_agent.py exp:g1-29dof --training.seed {seed} {params}",
					"eval":  "python src/holosoma/holosoma/eval_agent.py {params}",
				},
			},
		},
		{
			repo: "rl_games",
			want: summary{
				Frameworks: []string{"rl_games:high"},
				Entries:    []string{"train: python isaacgymenvs/train.py"},
				Tags:       map[string]string{},
				Systems:    []string{"hydra"},
				Commands:   map[string]string{"preflight": "rlxp preflight {experiment} --seed {seed}", "train": "python isaacgymenvs/train.py {params}"},
			},
		},
		{
			repo: "tianshou",
			want: summary{
				Frameworks: []string{"tianshou:high"},
				Entries:    []string{"train: python examples/mujoco/mujoco_ppo.py"},
				Tags:       map[string]string{},
				Systems:    []string{"argparse"},
				Commands:   map[string]string{"preflight": "rlxp preflight {experiment} --seed {seed}", "train": "python examples/mujoco/mujoco_ppo.py --seed {seed} --logdir {run_dir} {params}"},
			},
		},
		{
			repo: "trl",
			want: summary{
				Frameworks: []string{"trl:high"},
				Entries:    []string{"train: bash scripts/train.sh", "train: python examples/grpo.py"},
				Tags:       map[string]string{},
				Systems:    []string{"hf_argparser"},
				Commands:   map[string]string{"preflight": "rlxp preflight {experiment} --seed {seed}", "train": "bash scripts/train.sh {params}"},
			},
		},
		{
			// Its own loop, logged through meters, a group logger and a
			// prefixed logger, outweighs one benchmark script's library.
			repo: "ownloop",
			tags: []string{"Rewards/rew_avg", "Loss/value_loss", "episode/score", "episode/length", "episode_reward"},
			want: summary{
				Frameworks: []string{"sb3:high", "generic:medium"},
				Entries:    []string{"train: python flock.py", "train: python benchmarks/benchmark_sb3.py"},
				Tags: map[string]string{"Rewards/rew_avg": "train_reward", "Loss/value_loss": "loss", "episode/score": "train_reward",
					"episode/length": "episode_length", "episode_reward": "held_out_eval"},
				Systems: []string{"hydra"},
				Commands: map[string]string{"preflight": "rlxp preflight {experiment} --seed {seed}",
					"train": "python flock.py exp=ppo env.id=CartPole-v1 {params}"},
			},
		},
		{
			repo: "vendored",
			want: summary{Frameworks: []string{"unknown:low"}, Tags: map[string]string{}, Unknown: true},
		},
		{
			repo: "supervised",
			tags: []string{"train/loss", "val/accuracy"},
			want: summary{
				Frameworks: []string{"unknown:low"},
				Entries:    []string{"train: python train.py"},
				Tags:       map[string]string{"train/loss": "loss", "val/accuracy": "held_out_eval"},
				Systems:    []string{"argparse"},
				Commands:   map[string]string{"preflight": "rlxp preflight {experiment} --seed {seed}", "train": "python train.py --out {run_dir} {params}"},
				Unknown:    true,
			},
		},
		{
			repo: "empty",
			want: summary{Frameworks: []string{"unknown:low"}, Tags: map[string]string{}, Unknown: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.repo, func(t *testing.T) {
			r, err := Run(context.Background(), writeRepo(t, tt.repo), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summarize(r, tt.tags)); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDefaultsLogger: a Hydra defaults entry choosing the logger group
// (- /logger@logger: tensorboard) is the backend a run writes with; the
// group's other configs (mlflow.yaml) are choices nobody made.
func TestDefaultsLogger(t *testing.T) {
	r, err := Run(context.Background(), writeRepo(t, "ownloop"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range r.Logging {
		got = append(got, l.Kind+" "+l.Evidence[0].String())
	}
	want := []string{"tensorboard flock/configs/metric/default.yaml:3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("logging (-want +got):\n%s", diff)
	}
}
