"""Experiment configs: a flat JSON object, optionally overridden with ``--set key=value``."""

import json
import math
import os

# Training seeds live below this value and evaluation seeds at or above it, so
# a held-out episode never reuses a seed the policy was trained on.
EVAL_SEED_BASE = 10000

# Every key train.py reads, with the JSON type it must have. Number keys
# accept integers as well, so "gamma": 1 is a valid discount, but not NaN or
# infinity, which Python's json module would otherwise let through.
REQUIRED_KEYS = {
    "lr": float,
    "gamma": float,
    "episodes": int,
    "hidden": int,
    "entropy_coef": float,
    "max_steps": int,
    "log_every": int,
}
TYPE_NAMES = {float: "a finite number", int: "an integer"}


class ConfigError(ValueError):
    """A config that cannot be loaded or used as given."""


def read_config(path):
    """Parse ``path`` as a JSON object, with readable errors for the usual mistakes."""
    try:
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
    except FileNotFoundError:
        raise ConfigError(f"config not found: {path}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"config does not parse as JSON: {path}: {exc}") from None
    if not isinstance(config, dict):
        raise ConfigError(f"config must be a JSON object, got {type(config).__name__}: {path}")
    return config


def apply_overrides(config, assignments):
    """Return a copy of ``config`` with each ``key=value`` string applied.

    The value is converted to the type the key already has, so ``lr=1`` stays
    a float and ``episodes=1.5`` is rejected; unknown keys are rejected too,
    so a typo cannot silently leave the intended setting untouched.
    """
    config = dict(config)
    for assignment in assignments:
        key, sep, raw = assignment.partition("=")
        if not sep or not key:
            raise ConfigError(f"--set {assignment}: expected key=value")
        if key not in config:
            raise ConfigError(f"--set {assignment}: unknown config key {key!r}")
        config[key] = coerce(raw, config[key], key)
    return config


def coerce(raw, current, key):
    """Convert the string ``raw`` to the type of ``current``."""
    try:
        if isinstance(current, bool):
            if raw.lower() not in ("true", "false"):
                raise ValueError(raw)
            return raw.lower() == "true"
        if isinstance(current, int):
            return int(raw)
        if isinstance(current, float):
            return float(raw)
        if isinstance(current, str):
            return raw
        return json.loads(raw)
    except ValueError:
        kind = type(current).__name__
        raise ConfigError(f"--set {key}={raw}: cannot convert {raw!r} to {kind}") from None


def type_errors(config):
    """Messages for every required key that is missing or has the wrong type."""
    errors = []
    for key, kind in REQUIRED_KEYS.items():
        if key not in config:
            errors.append(f"missing required key: {key} ({TYPE_NAMES[kind]})")
        elif not has_type(config[key], kind):
            errors.append(f"{key} must be {TYPE_NAMES[kind]}, got {json.dumps(config[key])}")
    return errors


def has_type(value, kind):
    if isinstance(value, bool):  # bool is an int subclass, but never a valid number here
        return False
    if kind is float:
        return isinstance(value, (int, float)) and math.isfinite(value)
    return isinstance(value, kind)


def load_config(path, assignments=()):
    """Read, override and type-check a config; raise ConfigError on any problem."""
    config = apply_overrides(read_config(path), assignments)
    errors = type_errors(config)
    if errors:
        raise ConfigError(f"{path}: " + "; ".join(errors))
    return config


def default_out_dir(config_path, seed):
    """``runs/<config name>/seed<N>``, the layout the README and scripts assume."""
    name = os.path.splitext(os.path.basename(config_path))[0]
    return os.path.join("runs", name, f"seed{seed}")
