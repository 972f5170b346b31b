#!/usr/bin/env python3
"""Time two commands side by side, interleaved, and compare their output.

usage: compare.py RUNS NAME=CMD NAME=CMD

Each command runs RUNS times, alternating so that both see the same machine
load; the first run of each is a warm-up and is not counted. Prints the
median, 10th and 90th percentiles and the ratio of medians. The commands
must agree on every section's state and digest.
"""
import json
import shlex
import statistics
import subprocess
import sys
import time


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if p.returncode not in (0, 3):
        sys.exit(f"{cmd[0]} exited {p.returncode}: {p.stderr.decode()}")
    return dt, p.stdout


def states(out):
    doc = json.loads(out)
    return [(s["section"], s["state"], s.get("digest")) for s in doc["sections"]]


def main():
    runs = int(sys.argv[1])
    cmds = [a.split("=", 1) for a in sys.argv[2:]]
    cmds = [(name, shlex.split(cmd)) for name, cmd in cmds]
    times = {name: [] for name, _ in cmds}
    outputs = {}
    for i in range(runs + 1):
        for name, cmd in cmds:
            dt, out = run(cmd)
            outputs[name] = out
            if i > 0:
                times[name].append(dt * 1000)
    ref = None
    for name, _ in cmds:
        st = states(outputs[name])
        if ref is None:
            ref = st
        elif st != ref:
            sys.exit(f"outputs differ:\n{ref}\n{st}")
    print(f"{'command':<10} {'median ms':>10} {'p10 ms':>8} {'p90 ms':>8}   ({runs} runs each, interleaved)")
    med = {}
    for name, _ in cmds:
        t = sorted(times[name])
        med[name] = statistics.median(t)
        q = statistics.quantiles(t, n=10)
        print(f"{name:<10} {med[name]:>10.2f} {q[0]:>8.2f} {q[-1]:>8.2f}")
    names = [n for n, _ in cmds]
    print(f"speed-up of {names[0]} over {names[1]}: {med[names[1]] / med[names[0]]:.1f}x (ratio of medians)")
    print("outputs agree: same state and digest for every section")


if __name__ == "__main__":
    main()
