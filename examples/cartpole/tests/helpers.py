"""Shared paths and a subprocess runner for the tests."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join("configs", "baseline.json")


def run(args, env=None):
    """Run a command from the example's root, capturing text output."""
    full_env = dict(os.environ, NO_COLOR="1", **(env or {}))
    return subprocess.run(args, cwd=ROOT, env=full_env, capture_output=True, text=True, encoding="utf-8")


def python(*args, env=None):
    return run([sys.executable, *args], env=env)


def train_quick(out, *extra):
    """A few-episode training run: enough to exercise every output, in well under a second."""
    result = python("train.py", "--config", BASELINE, "--out", out,
                    "--set", "episodes=6", "--set", "log_every=4", *extra)
    if result.returncode != 0:
        raise AssertionError(f"train.py failed:\n{result.stderr}")
    return result
