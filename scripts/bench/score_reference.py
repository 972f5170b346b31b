#!/usr/bin/env python3
"""Reference for `rlxp score` on one big metric file, for benchmarking.

Python standard library only: reads a JSONL, CSV or TensorBoard event file,
keeps the points of one tag, and computes the aggregates rlxp reports for
it (points, last value, mean of the last N). Prints one JSON line.

usage: score_reference.py FORMAT FILE TAG N
"""
import csv
import json
import struct
import sys
from collections import deque


def jsonl(path, tag):
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if tag in row:
                yield row[tag]


def csv_rows(path, tag):
    with open(path, newline="", encoding="utf-8") as f:
        r = csv.reader(f)
        col = next(r).index(tag)
        for row in r:
            if col < len(row) and row[col] != "":
                yield float(row[col])


def varint(b, i):
    shift = value = 0
    while True:
        c = b[i]
        i += 1
        value |= (c & 0x7F) << shift
        if c < 0x80:
            return value, i
        shift += 7


def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield num, v


def tfevents(path, tag):
    want = tag.encode()
    with open(path, "rb") as f:
        while True:
            hdr = f.read(12)
            if len(hdr) < 12:
                return
            (n,) = struct.unpack("<Q", hdr[:8])
            data = f.read(n)
            f.read(4)  # the data CRC: the reference trusts the file
            for num, v in fields(data):
                if num != 5:
                    continue
                for snum, sv in fields(v):
                    if snum != 1:
                        continue
                    name = value = None
                    for vnum, vv in fields(sv):
                        if vnum == 1:
                            name = vv
                        elif vnum == 2:
                            (value,) = struct.unpack("<f", vv)
                    if name == want and value is not None:
                        yield value


def main():
    fmt, path, tag, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    reader = {"jsonl": jsonl, "csv": csv_rows, "tfevents": tfevents}[fmt]
    last = deque(maxlen=n)
    count = 0
    for v in reader(path, tag):
        last.append(v)
        count += 1
    print(json.dumps({"points": count, "last": last[-1], "mean_last_n": sum(last) / len(last)}))


if __name__ == "__main__":
    main()
