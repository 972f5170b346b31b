import csv
import json
import os
import re
import tempfile
import unittest

from tests.helpers import BASELINE, python, train_quick

# These names are an interface for tools that read the run directory.
PROGRESS_COLUMNS = [
    "time/episodes",
    "time/total_timesteps",
    "time/time_elapsed",
    "rollout/ep_rew_mean",
    "rollout/ep_len_mean",
    "train/loss",
    "train/entropy",
    "train/learning_rate",
]
JSONL_TAGS = ["train/episode_return", "train/episode_length", "train/loss", "train/entropy"]
CONSOLE_LINE = re.compile(r"^step:\d+( - train/[a-z_]+:-?\d+\.\d{3})+$")


class TrainTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.out = os.path.join(self.tmp.name, "run")

    def read(self, name):
        with open(os.path.join(self.out, name), encoding="utf-8") as f:
            return f.read()

    def test_writes_every_metric_file(self):
        result = train_quick(self.out)
        self.assertEqual(
            sorted(os.listdir(self.out)),
            ["config.resolved.json", "metrics.jsonl", "policy.json", "progress.csv"],
        )

        # 6 episodes logged every 4: after episode 4 and after the final one.
        rows = list(csv.reader(self.read("progress.csv").splitlines()))
        self.assertEqual(rows[0], PROGRESS_COLUMNS)
        self.assertEqual([row[0] for row in rows[1:]], ["4", "6"])
        self.assertEqual(float(rows[1][-1]), 0.02)

        records = [json.loads(line) for line in self.read("metrics.jsonl").splitlines()]
        self.assertEqual(len(records), 2)
        for record, row in zip(records, rows[1:]):
            self.assertEqual(sorted(record), ["data", "step"])
            self.assertEqual(list(record["data"]), JSONL_TAGS)
            self.assertEqual(record["step"], int(row[1]))

        console = [line for line in result.stdout.splitlines() if line.startswith("step:")]
        self.assertEqual(len(console), 2)
        for line in console:
            self.assertRegex(line, CONSOLE_LINE)

        resolved = json.loads(self.read("config.resolved.json"))
        self.assertEqual((resolved["seed"], resolved["episodes"], resolved["log_every"]), (0, 6, 4))

        metadata = json.loads(self.read("policy.json"))["metadata"]
        self.assertEqual(metadata["total_timesteps"], records[-1]["step"])

    def test_same_seed_same_run(self):
        train_quick(self.out, "--seed", "5")
        first = self.read("policy.json"), self.read("metrics.jsonl")
        train_quick(self.out, "--seed", "5")
        self.assertEqual((self.read("policy.json"), self.read("metrics.jsonl")), first)

    def test_set_keeps_the_config_type(self):
        train_quick(self.out, "--set", "lr=1")
        self.assertIsInstance(json.loads(self.read("config.resolved.json"))["lr"], float)
        for bad in ("episodes=1.5", "nosuchkey=1", "lr"):
            result = python("train.py", "--config", BASELINE, "--out", self.out, "--set", bad)
            self.assertNotEqual(result.returncode, 0, bad)
            self.assertIn("--set", result.stderr)

    def test_refuses_eval_seeds(self):
        result = python("train.py", "--config", BASELINE, "--out", self.out, "--seed", "10000")
        self.assertNotEqual(result.returncode, 0)
        self.assertFalse(os.path.exists(self.out))


if __name__ == "__main__":
    unittest.main()
