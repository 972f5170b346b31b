#!/usr/bin/env python3
"""Evaluate a checkpoint on held-out CartPole episodes.

    python3 eval.py --checkpoint runs/baseline/seed0/policy.json \
        --episodes 20 --seed-base 10000 --out runs/baseline/seed0

The policy acts greedily (most likely action), and episode i starts from
the environment seeded with seed-base + i. Training only ever uses seeds
below 10000, so with seed-base >= 10000 every evaluation episode is unseen,
and the result is a deterministic function of (checkpoint, seed-base,
episodes). Writes eval.jsonl (one summary line) and eval.csv (one row per
episode).
"""

import csv
import json
import os
import statistics
import sys

from cartpole.cli import eval_parser
from cartpole.config import EVAL_SEED_BASE
from cartpole.env import CartPoleEnv
from cartpole.metrics import console_line
from cartpole.policy import load

# CartPole-v1's own time limit. Fixed here rather than taken from the training
# config, so scores from runs trained with different max_steps stay comparable.
EVAL_MAX_STEPS = 500

EPISODE_COLUMNS = ("episode", "seed", "return", "length")


def run_greedy_episode(policy, seed):
    """Return ``(return, length)`` of one greedy episode from the env seeded with ``seed``."""
    env = CartPoleEnv(max_steps=EVAL_MAX_STEPS)
    obs = env.reset(seed=seed)
    total, length, done = 0.0, 0, False
    while not done:
        obs, reward, terminated, truncated = env.step(policy.act(obs))
        total += reward
        length += 1
        done = terminated or truncated
    return total, length


def evaluate(policy, episodes, seed_base):
    """One ``{"episode", "seed", "return", "length"}`` row per held-out episode."""
    rows = []
    for episode in range(episodes):
        seed = seed_base + episode
        ep_return, length = run_greedy_episode(policy, seed)
        rows.append({"episode": episode, "seed": seed, "return": ep_return, "length": length})
    return rows


def summarise(rows, step):
    """The eval.jsonl record; std is the population standard deviation."""
    returns = [row["return"] for row in rows]
    return {
        "step": step,
        "eval/mean_return": statistics.fmean(returns),
        "eval/std_return": statistics.pstdev(returns),
        "eval/mean_length": statistics.fmean(row["length"] for row in rows),
        "eval/episodes": len(rows),
    }


def main(argv=None):
    args = eval_parser().parse_args(argv)
    if args.seed_base < EVAL_SEED_BASE:
        sys.exit(f"eval.py: --seed-base must be >= {EVAL_SEED_BASE}: lower seeds may have been used in training")
    if args.episodes < 1:
        sys.exit("eval.py: --episodes must be >= 1")
    try:
        policy, metadata = load(args.checkpoint)
    except (OSError, ValueError, KeyError) as exc:
        sys.exit(f"eval.py: cannot load checkpoint {args.checkpoint}: {exc}")

    out = args.out or os.path.dirname(args.checkpoint) or "."
    os.makedirs(out, exist_ok=True)
    rows = evaluate(policy, args.episodes, args.seed_base)
    summary = summarise(rows, metadata.get("total_timesteps", 0))

    with open(os.path.join(out, "eval.csv"), "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=EPISODE_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    with open(os.path.join(out, "eval.jsonl"), "w", encoding="utf-8") as f:
        f.write(json.dumps(summary) + "\n")

    print(console_line(summary["step"], {k: v for k, v in summary.items() if k != "step"}))


if __name__ == "__main__":
    main()
