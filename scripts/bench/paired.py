#!/usr/bin/env python3
"""Time commands against a reference as paired runs: A B A B ...

usage: paired.py RUNS REF_CMD NAME=EXIT=STDIN=CMD ...

REF_CMD (the reference, e.g. an empty static Go binary) runs right before
each run of every entry, on the same stdin, so that both see the same
machine load; the ratio of each pair is the entry's time over the
reference's. The first round is a warm-up and is not counted. An entry
with EXIT 0 or 2 must exit so every time (a hook: allowed or refused);
"-" is not checked. Prints, for each entry, the median time, the
reference's median over its pairs, and the median and 90th percentile of
the pair ratios.
"""
import shlex
import statistics
import subprocess
import sys
import time


def timed(cmd, stdin):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return (time.perf_counter() - t0) * 1000, p


def main():
    runs = int(sys.argv[1])
    ref = shlex.split(sys.argv[2])
    entries = []
    for arg in sys.argv[3:]:
        name, code, path, cmd = arg.split("=", 3)
        stdin = b""
        if path != "-":
            with open(path, "rb") as f:
                stdin = f.read()
        entries.append((name, code, stdin, shlex.split(cmd)))
    ratios = {name: [] for name, *_ in entries}
    mine = {name: [] for name, *_ in entries}
    theirs = {name: [] for name, *_ in entries}
    for i in range(runs + 1):
        for name, code, stdin, cmd in entries:
            r, _ = timed(ref, stdin)
            t, p = timed(cmd, stdin)
            if code != "-" and str(p.returncode) != code:
                sys.exit(f"{name}: exit {p.returncode} (want {code}), stderr {p.stderr.decode()!r}")
            if i > 0:
                ratios[name].append(t / r)
                mine[name].append(t)
                theirs[name].append(r)
    print(f"{'command':<30} {'median ms':>9} {'ref ms':>8} {'ratio':>6} {'p90 ratio':>9}   ({runs} pairs each, reference: {' '.join(ref)})")
    for name, *_ in entries:
        q = statistics.quantiles(ratios[name], n=10)
        print(f"{name:<30} {statistics.median(mine[name]):>9.2f} {statistics.median(theirs[name]):>8.2f} {statistics.median(ratios[name]):>6.2f} {q[-1]:>9.2f}")


if __name__ == "__main__":
    main()
