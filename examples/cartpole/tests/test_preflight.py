import io
import json
import os
import tempfile
import unittest
from unittest import mock

from cartpole import preflight
from cartpole.preflight import FATAL, OK, SKIP, WARN, Check
from tests.helpers import BASELINE, ROOT, python, run

HEADER = "───────────────────────── preflight config check ─────────────────────────"
FOOTER = "─" * 70


def run_sh(*args, env=None):
    return run(["bash", os.path.join("scripts", "run.sh"), *args], env=env)


class FormatTest(unittest.TestCase):
    """The line format is parsed by other programs, so it is pinned exactly."""

    def test_lines(self):
        self.assertEqual(preflight.format_line(Check(OK, "config parses: c.json")), "  ✓ OK     config parses: c.json")
        self.assertEqual(preflight.format_line(Check(WARN, "w")), "  ⚠ WARN   w")
        self.assertEqual(preflight.format_line(Check(FATAL, "f")), "  ✗ FATAL  f")
        self.assertEqual(preflight.format_line(Check(SKIP, "s")), "  ⊘ SKIP   s")

    def test_colour_wraps_only_the_label(self):
        line = preflight.format_line(Check(FATAL, "f"), colour=True)
        self.assertEqual(line, "  \033[31m✗ FATAL\033[0m  f")

    def test_report_streams_and_summary(self):
        out, err = io.StringIO(), io.StringIO()
        checks = [Check(OK, "a"), Check(WARN, "b"), Check(FATAL, "c"), Check(SKIP, "d")]
        self.assertEqual(preflight.report(checks, out, err), 1)
        self.assertEqual(out.getvalue().splitlines(), [HEADER, "  ✓ OK     a", "  ⊘ SKIP   d", FOOTER])
        self.assertEqual(
            err.getvalue().splitlines(),
            ["  ⚠ WARN   b", "  ✗ FATAL  c", "[preflight] 1 FATAL, 1 WARN — refusing to start. Fix the ✗ items above."],
        )

        out, err = io.StringIO(), io.StringIO()
        self.assertEqual(preflight.report([Check(OK, "a"), Check(WARN, "b")], out, err), 0)
        self.assertEqual(out.getvalue().splitlines()[-1], "[preflight] all fatal checks passed (1 WARN).")

    def test_colour_only_on_a_terminal_without_no_color(self):
        terminal, pipe = mock.Mock(isatty=lambda: True), mock.Mock(isatty=lambda: False)
        with mock.patch.dict(os.environ, {"NO_COLOR": ""}):
            self.assertTrue(preflight.use_colour(terminal))
            self.assertFalse(preflight.use_colour(pipe))
        with mock.patch.dict(os.environ, {"NO_COLOR": "1"}):
            self.assertFalse(preflight.use_colour(terminal))

    def test_python_version(self):
        self.assertEqual(preflight.check_python((3, 7, 9)).status, FATAL)
        self.assertEqual(preflight.check_python((3, 8, 0)).status, OK)


class RunShPreflightTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.out = os.path.join(self.tmp, "run")

    def preflight(self, *args, config=BASELINE):
        return run_sh("train", config, "--out", self.out, "--preflight-only", *args)

    def assertRefused(self, result, line):
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn(line, result.stderr.splitlines())
        self.assertRegex(result.stderr, r"\[preflight\] \d+ FATAL, \d+ WARN — refusing to start\.")
        self.assertFalse(os.path.exists(self.out))

    def test_baseline_passes_without_training(self):
        result = self.preflight()
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        self.assertEqual((lines[0], lines[-2]), (HEADER, FOOTER))
        self.assertIn(f"  ✓ OK     config parses: {BASELINE}", lines)
        self.assertEqual(lines[-1], "[preflight] all fatal checks passed (0 WARN).")
        self.assertEqual(result.stderr, "")
        self.assertFalse(os.path.exists(self.out))

    def test_preflight_only_from_environment(self):
        result = run_sh("train", BASELINE, "--out", self.out, env={"PREFLIGHT_ONLY": "1"})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertNotIn("step:", result.stdout)
        self.assertFalse(os.path.exists(self.out))

    def test_zero_lr(self):
        self.assertRefused(self.preflight("--set", "lr=0"), "  ✗ FATAL  lr=0 → the policy never changes")

    def test_gamma_above_one(self):
        result = self.preflight("--set", "gamma=1.5")
        self.assertRefused(result, "  ✗ FATAL  gamma=1.5 > 1 → returns grow with episode length instead of discounting")

    def test_seed_overlapping_eval_seeds(self):
        result = self.preflight("--seed", "10000")
        self.assertRefused(result, "  ✗ FATAL  seed=10000 overlaps the held-out eval seeds (>= 10000)")

    def test_missing_config(self):
        result = self.preflight(config="configs/missing.json")
        self.assertRefused(result, "  ✗ FATAL  config not found: configs/missing.json")
        self.assertIn("  ⊘ SKIP   value checks: fix the config errors above first", result.stdout.splitlines())

    def test_short_run_warns_but_passes(self):
        result = self.preflight("--set", "episodes=50")
        self.assertEqual(result.returncode, 0)
        self.assertIn("  ⚠ WARN   episodes=50 is short: learning curves will be noisy", result.stderr.splitlines())
        self.assertIn("[preflight] all fatal checks passed (1 WARN).", result.stdout.splitlines())

    def test_wrong_type_and_unknown_key(self):
        with open(os.path.join(ROOT, BASELINE), encoding="utf-8") as f:
            values = dict(json.load(f), episodes="300", lrr=0.1)
        config = os.path.join(self.tmp, "bad.json")
        with open(config, "w", encoding="utf-8") as f:
            json.dump(values, f)
        result = self.preflight(config=config)
        self.assertRefused(result, '  ✗ FATAL  episodes must be an integer, got "300"')
        self.assertIn("  ⚠ WARN   unknown key 'lrr' is ignored by train.py (typo?)", result.stderr.splitlines())

    def test_unwritable_output_dir(self):
        blocker = os.path.join(self.tmp, "file")
        open(blocker, "w").close()
        result = run_sh("train", BASELINE, "--out", blocker, "--preflight-only")
        self.assertEqual(result.returncode, 1)
        self.assertIn(f"  ✗ FATAL  output path exists and is not a directory: {blocker}", result.stderr.splitlines())

    def test_fatal_blocks_training(self):
        result = run_sh("train", BASELINE, "--out", self.out, "--set", "lr=0")
        self.assertEqual(result.returncode, 1)
        self.assertNotIn("step:", result.stdout)
        self.assertFalse(os.path.exists(self.out))

    def test_passing_preflight_goes_on_to_train(self):
        result = run_sh("train", BASELINE, "--out", self.out, "--set", "episodes=3")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("[preflight] all fatal checks passed (1 WARN).", result.stdout)
        self.assertTrue(os.path.exists(os.path.join(self.out, "policy.json")))

        eval_out = os.path.join(self.tmp, "eval")
        refused = run_sh("eval", os.path.join(self.out, "policy.json"), "--out", eval_out, "--seed-base", "42")
        self.assertEqual(refused.returncode, 1)
        self.assertIn("  ✗ FATAL  seed-base=42 overlaps the training seeds (< 10000)", refused.stderr.splitlines())

        evaluated = run_sh("eval", os.path.join(self.out, "policy.json"), "--out", eval_out, "--episodes", "2")
        self.assertEqual(evaluated.returncode, 0, evaluated.stderr)
        self.assertTrue(os.path.exists(os.path.join(eval_out, "eval.jsonl")))


class ModuleEntryPointTest(unittest.TestCase):
    def test_python_module_matches_run_sh(self):
        with tempfile.TemporaryDirectory() as tmp:
            result = python("-m", "cartpole.preflight", "train", "--config", BASELINE, "--set", "lr=0", "--out", tmp)
        self.assertEqual(result.returncode, 1)
        self.assertIn("  ✗ FATAL  lr=0 → the policy never changes", result.stderr.splitlines())


if __name__ == "__main__":
    unittest.main()
