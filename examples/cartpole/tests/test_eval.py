import csv
import json
import os
import tempfile
import unittest

from tests.helpers import python, train_quick


class EvalTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.run_dir = os.path.join(tmp.name, "run")
        train_quick(self.run_dir)
        self.checkpoint = os.path.join(self.run_dir, "policy.json")

    def evaluate(self, out, *extra):
        result = python("eval.py", "--checkpoint", self.checkpoint, "--episodes", "5", "--out", out, *extra)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(os.path.join(out, "eval.jsonl"), encoding="utf-8") as f:
            summary = f.read()
        with open(os.path.join(out, "eval.csv"), encoding="utf-8") as f:
            episodes = f.read()
        return summary, episodes

    def test_writes_summary_and_episode_rows(self):
        summary, episodes = self.evaluate(self.run_dir)
        lines = summary.splitlines()
        self.assertEqual(len(lines), 1)
        record = json.loads(lines[0])
        self.assertEqual(
            list(record),
            ["step", "eval/mean_return", "eval/std_return", "eval/mean_length", "eval/episodes"],
        )
        with open(self.checkpoint, encoding="utf-8") as f:
            self.assertEqual(record["step"], json.load(f)["metadata"]["total_timesteps"])
        self.assertEqual(record["eval/episodes"], 5)

        rows = list(csv.DictReader(episodes.splitlines()))
        self.assertEqual(list(rows[0]), ["episode", "seed", "return", "length"])
        self.assertEqual([int(row["seed"]) for row in rows], [10000, 10001, 10002, 10003, 10004])
        returns = [float(row["return"]) for row in rows]
        self.assertAlmostEqual(record["eval/mean_return"], sum(returns) / len(returns))

    def test_is_deterministic(self):
        first = self.evaluate(os.path.join(self.run_dir, "a"))
        self.assertEqual(self.evaluate(os.path.join(self.run_dir, "b")), first)

    def test_seed_base_picks_the_episodes(self):
        def returns(episodes_csv):
            return [row["return"] for row in csv.DictReader(episodes_csv.splitlines())]

        _, default = self.evaluate(os.path.join(self.run_dir, "a"))
        _, shifted = self.evaluate(os.path.join(self.run_dir, "b"), "--seed-base", "20000")
        self.assertNotEqual(returns(shifted), returns(default))

    def test_refuses_training_seeds(self):
        result = python("eval.py", "--checkpoint", self.checkpoint, "--seed-base", "9999")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("--seed-base", result.stderr)


if __name__ == "__main__":
    unittest.main()
