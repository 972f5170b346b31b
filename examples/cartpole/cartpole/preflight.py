"""Preflight checks that scripts/run.sh runs before training or evaluation.

    python3 -m cartpole.preflight train --config CONFIG [--seed N] [--out DIR] [--set k=v ...]
    python3 -m cartpole.preflight eval --checkpoint POLICY [--episodes N] [--seed-base B] [--out DIR]

The arguments are exactly those of train.py / eval.py, so the checks see the
run that is about to start. Every check prints one line; other tools parse
these lines, so their shape is fixed:

    "  " + glyph + " " + label padded to 5 + "  " + message

OK and SKIP lines go to stdout, WARN and FATAL lines to stderr. The exit
status is 1 if any check is FATAL, else 0.
"""

import os
import shutil
import sys
import tempfile
from collections import namedtuple

from cartpole.cli import eval_parser, train_parser
from cartpole.config import (
    EVAL_SEED_BASE,
    REQUIRED_KEYS,
    ConfigError,
    apply_overrides,
    default_out_dir,
    read_config,
    type_errors,
)
from cartpole.policy import load

OK, WARN, FATAL, SKIP = "OK", "WARN", "FATAL", "SKIP"
GLYPHS = {OK: "✓", WARN: "⚠", FATAL: "✗", SKIP: "⊘"}
ANSI_COLOURS = {OK: "32", WARN: "33", FATAL: "31", SKIP: "36"}  # green, yellow, red, cyan
HEADER = "─" * 25 + " preflight config check " + "─" * 25
FOOTER = "─" * 70

MIN_PYTHON = (3, 8)
LARGE_LR = 0.5
SHORT_RUN_EPISODES = 100
MIN_FREE_BYTES = 100 * 1024 * 1024

Check = namedtuple("Check", "status message")


# -- checks shared by train and eval ------------------------------------------


def check_python(version=sys.version_info):
    found = ".".join(map(str, version[:3]))
    need = ".".join(map(str, MIN_PYTHON))
    if tuple(version[:2]) < MIN_PYTHON:
        return Check(FATAL, f"python3 {found} is too old: need >= {need}")
    return Check(OK, f"python3 {found} (>= {need})")


def output_checks(out, artifact):
    """The output dir must be creatable and writable; warn about clobbering and low disk."""
    if os.path.exists(out) and not os.path.isdir(out):
        return [Check(FATAL, f"output path exists and is not a directory: {out}")]
    existing = nearest_existing_dir(out)
    checks = [check_writable(out, existing)]
    if os.path.exists(os.path.join(out, artifact)):
        checks.append(Check(WARN, f"{out} already holds {artifact}: it will be overwritten"))
    checks.append(check_disk(existing))
    return checks


def nearest_existing_dir(path):
    """``path`` itself if it exists, else the closest ancestor that does."""
    path = os.path.abspath(path)
    while not os.path.isdir(path):
        path = os.path.dirname(path)
    return path


def check_writable(out, existing):
    # Creating a real file catches read-only mounts and ACLs that os.access misses.
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as exc:
        return Check(FATAL, f"output dir not writable: {out} ({exc.strerror or exc})")
    return Check(OK, f"output dir writable: {out}")


def check_disk(existing):
    try:
        free = shutil.disk_usage(existing).free
    except OSError as exc:
        return Check(SKIP, f"disk check: cannot measure free space in {existing} ({exc.strerror or exc})")
    if free < MIN_FREE_BYTES:
        return Check(WARN, f"only {free / 2**20:.0f} MB free in {existing}: writes may fail")
    return Check(OK, f"free disk: {free / 2**30:.1f} GB in {existing}")


# -- train --------------------------------------------------------------------


def train_checks(args):
    config, checks = config_checks(args.config, args.set)
    checks.insert(0, check_python())
    if config is None:
        checks.append(Check(SKIP, "value checks: fix the config errors above first"))
    else:
        checks += [
            check_lr(config["lr"]),
            check_gamma(config["gamma"]),
            check_episodes(config["episodes"]),
            check_ranges(config),
        ]
    checks.append(check_seed(args.seed))
    checks += output_checks(args.out or default_out_dir(args.config, args.seed), "policy.json")
    return checks


def config_checks(path, assignments):
    """Load, override and type-check the config; return ``(config or None, checks)``."""
    try:
        config = read_config(path)
    except ConfigError as exc:
        return None, [Check(FATAL, str(exc))]
    checks = [Check(OK, f"config parses: {path}")]
    try:
        config = apply_overrides(config, assignments)
    except ConfigError as exc:
        return None, checks + [Check(FATAL, str(exc))]
    if assignments:
        checks.append(Check(OK, "overrides applied: " + " ".join(assignments)))
    for key in sorted(set(config) - set(REQUIRED_KEYS)):
        checks.append(Check(WARN, f"unknown key {key!r} is ignored by train.py (typo?)"))
    errors = type_errors(config)
    if errors:
        return None, checks + [Check(FATAL, error) for error in errors]
    checks.append(Check(OK, f"all {len(REQUIRED_KEYS)} required keys present with the right types"))
    return config, checks


def check_lr(lr):
    if lr == 0:
        return Check(FATAL, f"lr={lr:g} → the policy never changes")
    if lr < 0:
        return Check(FATAL, f"lr={lr:g} → updates climb the loss: the policy gets worse")
    if lr > LARGE_LR:
        return Check(WARN, f"lr={lr:g} is large: updates are likely to diverge")
    return Check(OK, f"lr={lr:g}")


def check_gamma(gamma):
    if gamma > 1:
        return Check(FATAL, f"gamma={gamma:g} > 1 → returns grow with episode length instead of discounting")
    if gamma <= 0:
        return Check(FATAL, f"gamma={gamma:g} ≤ 0 → every step gets the same return: no learning signal")
    return Check(OK, f"gamma={gamma:g}")


def check_episodes(episodes):
    if episodes < 1:
        return Check(FATAL, f"episodes={episodes} → nothing would be trained")
    if episodes < SHORT_RUN_EPISODES:
        return Check(WARN, f"episodes={episodes} is short: learning curves will be noisy")
    return Check(OK, f"episodes={episodes}")


def check_ranges(config):
    """Bounds on the remaining keys, each of which would crash or mislead the run."""
    problems = []
    if config["max_steps"] < 1:
        problems.append(f"max_steps={config['max_steps']} must be >= 1")
    if config["log_every"] < 1:
        problems.append(f"log_every={config['log_every']} must be >= 1")
    if config["hidden"] < 0:
        problems.append(f"hidden={config['hidden']} must be >= 0 (0 = linear policy)")
    if config["entropy_coef"] < 0:
        problems.append(f"entropy_coef={config['entropy_coef']:g} must be >= 0")
    if problems:
        return Check(FATAL, "; ".join(problems))
    return Check(
        OK,
        f"max_steps={config['max_steps']} log_every={config['log_every']} "
        f"hidden={config['hidden']} entropy_coef={config['entropy_coef']:g}",
    )


def check_seed(seed):
    if seed >= EVAL_SEED_BASE:
        return Check(FATAL, f"seed={seed} overlaps the held-out eval seeds (>= {EVAL_SEED_BASE})")
    if seed < 0:
        return Check(FATAL, f"seed={seed} is negative: random.Random would treat it as seed {-seed}")
    return Check(OK, f"seed={seed} is disjoint from the eval seeds (>= {EVAL_SEED_BASE})")


# -- eval ---------------------------------------------------------------------


def eval_checks(args):
    checks = [check_python(), check_checkpoint(args.checkpoint)]
    if args.episodes < 1:
        checks.append(Check(FATAL, f"episodes={args.episodes} → nothing would be evaluated"))
    else:
        checks.append(Check(OK, f"episodes={args.episodes}"))
    checks.append(check_seed_base(args.seed_base, args.episodes))
    out = args.out or os.path.dirname(args.checkpoint) or "."
    return checks + output_checks(out, "eval.jsonl")


def check_checkpoint(path):
    try:
        _, metadata = load(path)
    except (OSError, ValueError, KeyError) as exc:
        return Check(FATAL, f"checkpoint does not load: {path}: {exc}")
    return Check(OK, f"checkpoint loads: {path} ({metadata.get('total_timesteps', '?')} env steps)")


def check_seed_base(seed_base, episodes):
    if seed_base < EVAL_SEED_BASE:
        return Check(FATAL, f"seed-base={seed_base} overlaps the training seeds (< {EVAL_SEED_BASE})")
    last = seed_base + max(episodes, 1) - 1
    return Check(OK, f"eval seeds {seed_base}..{last} are disjoint from the training seeds (< {EVAL_SEED_BASE})")


# -- report -------------------------------------------------------------------


def format_line(check, colour=False):
    label = f"{GLYPHS[check.status]} {check.status:<5}"
    if colour:
        label = f"\033[{ANSI_COLOURS[check.status]}m{label}\033[0m"
    return f"  {label}  {check.message}"


def report(checks, stdout, stderr, colour=False):
    """Print the framed check list and the summary; return the exit status."""
    print(HEADER, file=stdout, flush=True)
    for check in checks:
        stream = stderr if check.status in (WARN, FATAL) else stdout
        print(format_line(check, colour), file=stream, flush=True)
    print(FOOTER, file=stdout, flush=True)
    fatals = sum(check.status == FATAL for check in checks)
    warns = sum(check.status == WARN for check in checks)
    if fatals:
        summary = f"[preflight] {fatals} FATAL, {warns} WARN — refusing to start. Fix the ✗ items above."
        print(summary, file=stderr, flush=True)
        return 1
    print(f"[preflight] all fatal checks passed ({warns} WARN).", file=stdout, flush=True)
    return 0


def use_colour(stream):
    # https://no-color.org: a non-empty NO_COLOR turns colour off.
    return stream.isatty() and not os.environ.get("NO_COLOR")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    modes = {"train": (train_parser, train_checks), "eval": (eval_parser, eval_checks)}
    if not argv or argv[0] not in modes:
        sys.exit("usage: python3 -m cartpole.preflight {train,eval} ARGS...")
    make_parser, run_checks = modes[argv[0]]
    args = make_parser().parse_args(argv[1:])
    # The glyphs must reach the parser as UTF-8 even under a C/POSIX locale.
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(encoding="utf-8")
    return report(run_checks(args), sys.stdout, sys.stderr, use_colour(sys.stdout))


if __name__ == "__main__":
    sys.exit(main())
