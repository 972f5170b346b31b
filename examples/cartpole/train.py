#!/usr/bin/env python3
"""Train a softmax policy on CartPole-v1 with REINFORCE.

    python3 train.py --config configs/baseline.json --seed 0 --out runs/baseline/seed0 \
        [--set lr=0.02 --set gamma=0.99 ...]

Writes progress.csv, metrics.jsonl, policy.json and config.resolved.json into
--out and prints one verl-style line per log step. A run is a pure function
of (config, seed): the environment is seeded with ``seed`` and the policy's
initialisation and action sampling with a separate stream derived from it.
"""

import json
import os
import random
import sys
import time

from cartpole.cli import train_parser
from cartpole.config import EVAL_SEED_BASE, ConfigError, default_out_dir, load_config
from cartpole.env import CartPoleEnv
from cartpole.metrics import MetricsLogger
from cartpole.policy import SoftmaxPolicy
from cartpole.reinforce import Adam, ReturnNormaliser, discounted_returns, policy_gradient, run_episode


def train(config, seed, logger):
    """Run ``config["episodes"]`` REINFORCE updates, one per episode.

    Logs the means over each window of ``log_every`` episodes (and over the
    final, possibly shorter, window). Returns ``(policy, total env steps)``.
    """
    env = CartPoleEnv(max_steps=config["max_steps"])
    # A string seed gives the agent a stream independent of the environment's.
    rng = random.Random(f"policy:{seed}")
    policy = SoftmaxPolicy(hidden=config["hidden"], rng=rng)
    optimiser = Adam(policy.layers, lr=config["lr"])
    normaliser = ReturnNormaliser()

    start = time.perf_counter()
    total_steps = 0
    window = []
    for episode in range(1, config["episodes"] + 1):
        trajectory = run_episode(env, policy, rng, seed=seed if episode == 1 else None)
        rewards = [step[3] for step in trajectory]
        advantages = normaliser(discounted_returns(rewards, config["gamma"]))
        grads, loss, entropy = policy_gradient(policy, trajectory, advantages, config["entropy_coef"])
        optimiser.step(policy.layers, grads)

        total_steps += len(trajectory)
        window.append((sum(rewards), len(trajectory), loss, entropy))
        if episode % config["log_every"] == 0 or episode == config["episodes"]:
            ep_return, ep_length, loss, entropy = (sum(col) / len(window) for col in zip(*window))
            logger.log(
                episodes=episode,
                total_timesteps=total_steps,
                time_elapsed=time.perf_counter() - start,
                ep_return=ep_return,
                ep_length=ep_length,
                loss=loss,
                entropy=entropy,
                lr=config["lr"],
            )
            window = []
    return policy, total_steps


def write_json(path, data):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, sort_keys=True)
        f.write("\n")


def main(argv=None):
    args = train_parser().parse_args(argv)
    try:
        config = load_config(args.config, args.set)
    except ConfigError as exc:
        sys.exit(f"train.py: {exc}")
    if not 0 <= args.seed < EVAL_SEED_BASE:
        sys.exit(f"train.py: --seed must be in [0, {EVAL_SEED_BASE}): higher seeds are held out for eval")

    out = args.out or default_out_dir(args.config, args.seed)
    os.makedirs(out, exist_ok=True)
    resolved = dict(config, seed=args.seed)
    write_json(os.path.join(out, "config.resolved.json"), resolved)

    start = time.perf_counter()
    with MetricsLogger(out, sys.stdout) as logger:
        policy, total_steps = train(config, args.seed, logger)
    checkpoint = os.path.join(out, "policy.json")
    metadata = {"total_timesteps": total_steps, "episodes": config["episodes"], "config": resolved}
    policy.save(checkpoint, metadata)
    print(f"[train] wrote {checkpoint} after {total_steps} env steps in {time.perf_counter() - start:.2f}s")


if __name__ == "__main__":
    main()
