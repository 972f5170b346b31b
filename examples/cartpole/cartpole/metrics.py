"""Training metrics, written in the layouts common RL tooling already reads.

* ``progress.csv``: Stable-Baselines3 / rllab style, one row per log step.
* ``metrics.jsonl``: verl's file-logger shape, ``{"step": ..., "data": {...}}``.
* stdout: verl's console style, ``step:N - key:value - key:value``.

The column and tag names below are a stable interface: downstream tools
look them up by name.
"""

import csv
import json
import os

PROGRESS_COLUMNS = (
    "time/episodes",
    "time/total_timesteps",
    "time/time_elapsed",
    "rollout/ep_rew_mean",
    "rollout/ep_len_mean",
    "train/loss",
    "train/entropy",
    "train/learning_rate",
)

JSONL_TAGS = (
    "train/episode_return",
    "train/episode_length",
    "train/loss",
    "train/entropy",
)


class MetricsLogger:
    """Appends one record per log step to progress.csv, metrics.jsonl and stdout.

    Files are flushed after every record so a run can be watched, or
    salvaged, while it is still going.
    """

    def __init__(self, out_dir, stdout):
        self._csv_file = open(os.path.join(out_dir, "progress.csv"), "w", newline="", encoding="utf-8")
        self._jsonl_file = open(os.path.join(out_dir, "metrics.jsonl"), "w", encoding="utf-8")
        self._csv = csv.DictWriter(self._csv_file, fieldnames=PROGRESS_COLUMNS)
        self._csv.writeheader()
        self._csv_file.flush()
        self._stdout = stdout

    def log(self, *, episodes, total_timesteps, time_elapsed, ep_return, ep_length, loss, entropy, lr):
        """Record the means over the episodes since the previous log step."""
        self._csv.writerow(
            {
                "time/episodes": episodes,
                "time/total_timesteps": total_timesteps,
                "time/time_elapsed": round(time_elapsed, 3),
                "rollout/ep_rew_mean": ep_return,
                "rollout/ep_len_mean": ep_length,
                "train/loss": loss,
                "train/entropy": entropy,
                "train/learning_rate": lr,
            }
        )
        self._csv_file.flush()

        data = dict(zip(JSONL_TAGS, (ep_return, ep_length, loss, entropy)))
        self._jsonl_file.write(json.dumps({"step": total_timesteps, "data": data}) + "\n")
        self._jsonl_file.flush()

        print(console_line(total_timesteps, data), file=self._stdout, flush=True)

    def close(self):
        self._csv_file.close()
        self._jsonl_file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def console_line(step, data):
    """``step:1234 - train/episode_return:87.300 - ...``, as verl prints to the console."""
    fields = [f"step:{step}"]
    for key, value in data.items():
        fields.append(f"{key}:{value:.3f}" if isinstance(value, float) else f"{key}:{value}")
    return " - ".join(fields)
