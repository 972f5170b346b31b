"""Command-line arguments shared by train.py, eval.py and the preflight.

scripts/run.sh hands the same arguments to the preflight and then to the
real command, so both must accept exactly the same flags.
"""

import argparse

from cartpole.config import EVAL_SEED_BASE


def train_parser():
    parser = argparse.ArgumentParser(description="Train a CartPole policy with REINFORCE.")
    parser.add_argument("--config", required=True, help="JSON config, e.g. configs/baseline.json")
    parser.add_argument("--seed", type=int, default=0, help=f"training seed, 0..{EVAL_SEED_BASE - 1}")
    parser.add_argument("--out", help="output dir (default: runs/<config name>/seed<N>)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a config key; the value takes the type the key has in the config",
    )
    return parser


def eval_parser():
    parser = argparse.ArgumentParser(description="Evaluate a CartPole checkpoint on held-out seeds.")
    parser.add_argument("--checkpoint", required=True, help="policy.json written by train.py")
    parser.add_argument("--episodes", type=int, default=20, help="number of held-out episodes")
    parser.add_argument(
        "--seed-base",
        type=int,
        default=EVAL_SEED_BASE,
        help=f"episode i is seeded with seed-base + i; must be >= {EVAL_SEED_BASE}",
    )
    parser.add_argument("--out", help="output dir (default: the checkpoint's directory)")
    return parser
