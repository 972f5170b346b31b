#!/usr/bin/env python3
"""Time hook commands on payloads fed to stdin, interleaved.

usage: guard.py RUNS NAME=EXIT=PAYLOAD=CMD ...

Each entry runs CMD with the file PAYLOAD on stdin, RUNS times. A hook
(EXIT 0: allowed, 2: refused) must exit so every time and print nothing on
stdout; a reference (EXIT "-") is not checked. The entries alternate so that all see the same machine load; the
first round is a warm-up and is not counted. Prints the median, 10th and
90th percentiles of the wall time of each.
"""
import shlex
import statistics
import subprocess
import sys
import time


def main():
    runs = int(sys.argv[1])
    entries = []
    for arg in sys.argv[2:]:
        name, code, payload, cmd = arg.split("=", 3)
        with open(payload, "rb") as f:
            entries.append((name, code, f.read(), shlex.split(cmd)))
    times = {name: [] for name, *_ in entries}
    for i in range(runs + 1):
        for name, code, stdin, cmd in entries:
            t0 = time.perf_counter()
            p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            dt = time.perf_counter() - t0
            if code != "-" and (str(p.returncode) != code or p.stdout):
                sys.exit(f"{name}: exit {p.returncode} (want {code}), stdout {p.stdout!r}, stderr {p.stderr.decode()!r}")
            if i > 0:
                times[name].append(dt * 1000)
    print(f"{'command':<22} {'median ms':>10} {'p10 ms':>8} {'p90 ms':>8}   ({runs} runs each, interleaved)")
    for name, *_ in entries:
        t = sorted(times[name])
        q = statistics.quantiles(t, n=10)
        print(f"{name:<22} {statistics.median(t):>10.2f} {q[0]:>8.2f} {q[-1]:>8.2f}")


if __name__ == "__main__":
    main()
