package builtin

import (
	"bytes"
	"fmt"
	iofs "io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"

	"github.com/rlxp/rlxp/internal/document"
)

// Profiles are the frameworks whose own rules the preflight knows.
func Profiles() []Profile {
	return []Profile{
		{Name: "hydra", Matches: usesHydra, Rules: []Rule{
			{ID: "hydra-groups", Checks: "every config group override names an option the group has",
				Why: "Hydra refuses an unknown group option only when the run starts", Run: hydraGroupsRule},
		}},
		{Name: "verl", Matches: usesVerl, Rules: []Rule{
			{ID: "verl-topology", Checks: "trainer.nnodes (plus rollout.nnodes) and n_gpus_per_node equal the contract's nodes and GPUs per node; tensor- and sequence-parallel sizes divide the train world",
				Why: "Ray waits for resources that never come, or verl fails its world-size assertion after the model loads", Run: verlTopologyRule},
		}},
		{Name: "rsl_rl/Isaac tasks", Matches: usesTaskRegistry, Rules: []Rule{
			{ID: "task", Checks: "--task names a task the repository registers (gym register(id=...), task_registry.register)",
				Why: "an unregistered task fails after the simulator has started", Run: tasksRule},
		}},
		{Name: "rl-baselines3-zoo", Matches: usesZoo, Rules: []Rule{
			{ID: "sb3-zoo", Checks: "hyperparams/<algo>.yml has an entry for --env, and each of its keys (and --hyperparams) is one the zoo or the algorithm reads",
				Why: "the zoo stops on a missing entry, and the algorithm on an unknown keyword, after the environments are built", Run: zooRule},
		}},
	}
}

func usesHydra(t *Target) bool {
	for _, p := range t.Programs {
		if p.Hydra != nil {
			return true
		}
	}
	return false
}

// hydraGroup says whether key is a config group of a Hydra main: a
// directory under its config path.
func hydraGroup(p *Program, key string) (string, bool) {
	if p == nil || p.Hydra == nil {
		return "", false
	}
	dir := filepath.Join(p.Hydra.ConfigPath, filepath.FromSlash(strings.ReplaceAll(strings.TrimLeft(key, "+~"), ".", "/")))
	st, err := os.Stat(dir)
	return dir, err == nil && st.IsDir()
}

func hydraGroupsRule(t *Target) []Finding {
	var fs []Finding
	for _, e := range t.Entries {
		p := t.program(e)
		for _, a := range e.Args {
			k, v, has := strings.Cut(a, "=")
			if !has || strings.HasPrefix(a, "-") {
				continue
			}
			dir, group := hydraGroup(p, k)
			if !group {
				continue
			}
			var options []string
			entries, _ := os.ReadDir(dir)
			for _, en := range entries {
				if name, isYAML := strings.CutSuffix(en.Name(), ".yaml"); isYAML {
					options = append(options, name)
				}
			}
			if slices.Contains(options, v) {
				fs = append(fs, ok("config group %s has option %s", strings.TrimLeft(k, "+~"), v))
			} else {
				fs = append(fs, fatal("config group %s has no option %s (options: %s)", strings.TrimLeft(k, "+~"), v, strings.Join(options, ", ")))
			}
		}
	}
	return fs
}

// dotlist is every key=value argument of the command's calls (not an
// option's value): the overrides of a Hydra program such as verl's, whose
// entry module is installed rather than in the repository.
func (t *Target) dotlist() map[string]string {
	kv := map[string]string{}
	for _, c := range t.Calls {
		for i, a := range c.Args {
			k, v, has := strings.Cut(a, "=")
			if has && i > 0 && !strings.HasPrefix(a, "-") && (!strings.HasPrefix(c.Args[i-1], "-") || strings.Contains(c.Args[i-1], "=")) {
				kv[strings.TrimLeft(k, "+~")] = v
			}
		}
	}
	return kv
}

func usesVerl(t *Target) bool {
	for _, c := range t.Calls {
		for i, a := range c.Args {
			if a == "-m" && i+1 < len(c.Args) && strings.HasPrefix(c.Args[i+1], "verl.") {
				return true
			}
		}
	}
	for _, p := range t.Programs {
		if slices.Contains(p.Uses, "verl") {
			return true
		}
	}
	return false
}

// verlTopologyRule checks verl's resource pools against the contract:
// trainer.nnodes (plus rollout.nnodes where the rollout has nodes of its
// own) is the contract's nodes, n_gpus_per_node its GPUs per node, and
// the tensor- and sequence-parallel sizes divide the GPUs they split.
func verlTopologyRule(t *Target) []Finding {
	kv := t.dotlist()
	num := func(k string) (int, bool) {
		n, err := strconv.Atoi(kv[k])
		return n, err == nil
	}
	var fs []Finding
	nodes, hasNodes := num("trainer.nnodes")
	perNode, hasPer := num("trainer.n_gpus_per_node")
	if !hasNodes || !hasPer {
		return []Finding{skip("verl: trainer.nnodes and trainer.n_gpus_per_node are not both in the command (verl's defaults apply): topology not checked")}
	}
	world := nodes * perNode
	total, what := nodes, fmt.Sprintf("trainer.nnodes=%d", nodes)
	if rn, ok := num("rollout.nnodes"); ok {
		total += rn
		what += fmt.Sprintf(" + rollout.nnodes=%d", rn)
		if rp, ok := num("rollout.n_gpus_per_node"); ok && rp != perNode {
			fs = append(fs, fatal("verl: rollout.n_gpus_per_node=%d differs from trainer.n_gpus_per_node=%d; the contract approves %d GPUs per node", rp, perNode, t.GPUsPerRun))
		}
	}
	if t.Nodes > 0 && total != t.Nodes {
		fs = append(fs, fatal("verl: %s asks for %d node%s; the contract approves %d", what, total, plural(total), t.Nodes))
	}
	if perNode != t.GPUsPerRun {
		fs = append(fs, fatal("verl: trainer.n_gpus_per_node=%d; the contract approves %d GPU%s per node", perNode, t.GPUsPerRun, plural(t.GPUsPerRun)))
	}
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := k[strings.LastIndexByte(k, '.')+1:]
		if name != "tensor_model_parallel_size" && name != "ulysses_sequence_parallel_size" {
			continue
		}
		n, ok := num(k)
		switch {
		case !ok || n < 1:
			fs = append(fs, fatal("verl: %s=%s is not a positive whole number", k, kv[k]))
		case world%n != 0:
			fs = append(fs, fatal("verl: %s=%d does not divide the train world of %d GPUs (%d node%s × %d)", k, n, world, nodes, plural(nodes), perNode))
		case name == "tensor_model_parallel_size" && n > perNode:
			fs = append(fs, warn("verl: %s=%d spans nodes (%d GPUs per node): tensor parallelism across nodes is slow", k, n, perNode))
		}
	}
	if len(fs) == 0 {
		fs = append(fs, ok("verl: %s × %d GPUs per node as the contract approves; parallel sizes divide the world of %d", what, perNode, world))
	}
	return fs
}

// taskFrameworks are the modules of repositories that pick an environment
// with --task from a registry (rsl_rl, Isaac Lab and Isaac Gym tasks,
// legged_gym).
var taskFrameworks = []string{"rsl_rl", "isaaclab", "omni", "isaacgym", "legged_gym", "gymnasium", "gym"}

func usesTaskRegistry(t *Target) bool {
	for _, e := range t.Entries {
		p := t.program(e)
		if p != nil && optionValue(e.Args, "--task") != "" && slices.ContainsFunc(p.Uses, func(m string) bool { return slices.Contains(taskFrameworks, m) }) {
			return true
		}
	}
	return false
}

// optionValue is the value of a long option among args ("--task X" or
// "--task=X"), "" when absent.
func optionValue(args []string, name string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
		if a == name && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			return args[i+1]
		}
	}
	return ""
}

// registration finds the ids a repository registers: gym/gymnasium
// register(id=...) and legged_gym's task_registry.register(name, ...).
var registration = lazyRegexp(`(?:^|[\s(=;])(?:\w+\.)*register\(\s*(?:id\s*=\s*)?["']([^"'\s]+)["']`)

// maxScanned bounds the Python files read for registered tasks.
const maxScanned = 5000

// registeredTasks are the task ids the repository's Python files register.
func registeredTasks(root string) []string {
	var ids []string
	files := 0
	_ = filepath.WalkDir(root, func(path string, de iofs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if de.IsDir() {
			if name := de.Name(); path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "__pycache__" || name == "runs" || name == "outputs" || name == "site-packages") {
				return filepath.SkipDir
			}
			return nil
		}
		if files++; files > maxScanned {
			return iofs.SkipAll
		}
		if !strings.HasSuffix(path, ".py") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(data, []byte("register(")) {
			return nil
		}
		for _, m := range registration().FindAllSubmatch(data, -1) {
			ids = append(ids, string(m[1]))
		}
		return nil
	})
	sort.Strings(ids)
	return slices.Compact(ids)
}

// tasksRule checks --task against the tasks the repository registers; a
// repository that registers none takes its tasks from installed packages,
// which are not read.
func tasksRule(t *Target) []Finding {
	ids := registeredTasks(t.Root)
	var fs []Finding
	for _, e := range t.Entries {
		task := optionValue(e.Args, "--task")
		switch {
		case task == "":
		case len(ids) == 0:
			fs = append(fs, skip("task %s: the repository registers no task (they come from installed packages, not read)", task))
		case slices.Contains(ids, task):
			fs = append(fs, ok("task %s is registered in the repository", task))
		default:
			fs = append(fs, fatal("task %s is not registered in the repository (closest: %s)", task, closest(task, ids)))
		}
	}
	return fs
}

// zooKeys are the keys of an rl-baselines3-zoo hyperparameter entry that
// the zoo itself reads; the rest go to the algorithm's constructor.
var zooKeys = []string{"n_timesteps", "n_envs", "normalize", "monitor_kwargs", "frame_stack", "env_wrapper", "vec_env_wrapper", "callback", "noise_type", "noise_std", "policy"}

// algoKeys are the constructor arguments of Stable-Baselines3's
// algorithms, by the zoo's --algo name.
var algoKeys = sync.OnceValue(func() map[string][]string {
	common := []string{"learning_rate", "gamma", "policy_kwargs", "verbose", "seed", "device", "tensorboard_log", "stats_window_size", "use_sde", "sde_sample_freq"}
	onPolicy := append(slices.Clone(common), "n_steps", "gae_lambda", "ent_coef", "vf_coef", "max_grad_norm", "rollout_buffer_class", "rollout_buffer_kwargs", "normalize_advantage")
	offPolicy := append(slices.Clone(common), "buffer_size", "learning_starts", "batch_size", "tau", "train_freq", "gradient_steps", "action_noise",
		"replay_buffer_class", "replay_buffer_kwargs", "optimize_memory_usage")
	return map[string][]string{
		"ppo":  append(slices.Clone(onPolicy), "batch_size", "n_epochs", "clip_range", "clip_range_vf", "target_kl"),
		"a2c":  append(slices.Clone(onPolicy), "rms_prop_eps", "use_rms_prop"),
		"dqn":  append(slices.Clone(offPolicy), "target_update_interval", "exploration_fraction", "exploration_initial_eps", "exploration_final_eps", "max_grad_norm"),
		"sac":  append(slices.Clone(offPolicy), "ent_coef", "target_update_interval", "target_entropy", "use_sde_at_warmup"),
		"td3":  append(slices.Clone(offPolicy), "policy_delay", "target_policy_noise", "target_noise_clip"),
		"ddpg": offPolicy,
	}
})

func usesZoo(t *Target) bool {
	for _, e := range t.Entries {
		if optionValue(e.Args, "--algo") != "" && optionValue(e.Args, "--env") != "" && zooDir(t.Root) != "" {
			return true
		}
	}
	return false
}

// zooDir is the repository's folder of hyperparameter files.
func zooDir(root string) string {
	for _, d := range []string{"hyperparams", "rl_zoo3/hyperparams"} {
		if st, err := os.Stat(filepath.Join(root, d)); err == nil && st.IsDir() {
			return d
		}
	}
	return ""
}

// zooRule checks what rl-baselines3-zoo reads before it trains: the
// algorithm's hyperparams file, its entry for the env (or "atari"), and
// that each key of the entry, and of --hyperparams key:value, is one the
// zoo or the algorithm accepts.
func zooRule(t *Target) []Finding {
	var fs []Finding
	for _, e := range t.Entries {
		algo, env := optionValue(e.Args, "--algo"), optionValue(e.Args, "--env")
		if algo == "" || env == "" {
			continue
		}
		dir := zooDir(t.Root)
		file := filepath.Join(dir, algo+".yml")
		data, err := os.ReadFile(filepath.Join(t.Root, file))
		if err != nil {
			files, _ := filepath.Glob(filepath.Join(t.Root, dir, "*.yml"))
			var algos []string
			for _, f := range files {
				algos = append(algos, strings.TrimSuffix(filepath.Base(f), ".yml"))
			}
			fs = append(fs, fatal("sb3 zoo: --algo %s has no %s (closest: %s)", algo, file, closest(algo, algos)))
			continue
		}
		var entries map[string]map[string]any
		if err := yaml.Unmarshal(data, &entries); err != nil {
			fs = append(fs, fatal("sb3 zoo: %v", document.SyntaxError(file, data, err)))
			continue
		}
		entry, found := entries[env]
		if !found && strings.Contains(env, "NoFrameskip") {
			entry, found = entries["atari"]
		}
		if !found {
			fs = append(fs, fatal("sb3 zoo: %s has no entry for %s (closest: %s)", file, env, closest(env, slices.Sorted(maps.Keys(entries)))))
			continue
		}
		known, checks := algoKeys()[algo]
		if !checks {
			fs = append(fs, ok("sb3 zoo: %s has an entry for %s (keys not checked: rlxp knows no constructor of %s)", file, env, algo))
			continue
		}
		accepted := append(slices.Clone(zooKeys), known...)
		keys := slices.Sorted(maps.Keys(entry))
		keys = append(keys, hyperparamOverrides(e.Args)...)
		bad := 0
		for _, k := range keys {
			if !slices.Contains(accepted, k) {
				bad++
				fs = append(fs, fatal("sb3 zoo: %s for %s sets %s, which neither the zoo nor %s reads (closest: %s)", file, env, k, strings.ToUpper(algo), closest(k, accepted)))
			}
		}
		if bad == 0 {
			fs = append(fs, ok("sb3 zoo: %s has an entry for %s, every key of it one %s or the zoo reads", file, env, strings.ToUpper(algo)))
		}
	}
	return fs
}

// hyperparamOverrides are the keys of the zoo's --hyperparams key:value
// arguments.
func hyperparamOverrides(args []string) []string {
	var keys []string
	for i, a := range args {
		if a != "--hyperparams" && a != "-params" {
			continue
		}
		for _, kv := range args[i+1:] {
			if strings.HasPrefix(kv, "-") {
				break
			}
			k, _, _ := strings.Cut(kv, ":")
			keys = append(keys, k)
		}
	}
	return keys
}
