"""Write the blobs a `git ls-tree -r -z` listing (on stdin) names into OUT.

    git --git-dir=GITDIR ls-tree -r -z REV | python3 export_tree.py GITDIR OUT

Blob by blob, so that a partial clone, which lacks its largest files, still
exports; symbolic links and missing blobs are skipped.
"""
import os
import subprocess
import sys

gitdir, out = sys.argv[1], sys.argv[2]
cat = subprocess.Popen(["git", "--git-dir", gitdir, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
for entry in sys.stdin.buffer.read().split(b"\0"):
    if not entry:
        continue
    meta, path = entry.split(b"\t", 1)
    mode, kind, sha = meta.split()
    if kind != b"blob" or mode == b"120000":
        continue
    cat.stdin.write(sha + b"\n")
    cat.stdin.flush()
    header = cat.stdout.readline()
    if header.endswith(b"missing\n"):
        continue
    data = cat.stdout.read(int(header.split()[2]))
    cat.stdout.read(1)
    dest = os.path.join(out.encode(), path)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, "wb") as f:
        f.write(data)
