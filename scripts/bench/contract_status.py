#!/usr/bin/env python3
"""Reference for `rlxp contract status --json`, for benchmarking.

Does the same parse-and-report with python3 and PyYAML: read
.rlxp/contract.yaml, compute each section's digest (sha256 over canonical
JSON, the rule rlxp uses), compare it with the recorded approval, and
print the status as one JSON object. It skips rlxp's schema validation,
so it does less work than rlxp does.
"""
import hashlib
import json
import re
import sys

import yaml

SECTIONS = ["task", "metrics", "scope", "budget", "hardware", "baseline", "evaluation"]


class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """PyYAML follows YAML 1.1, where 1e-3 is a string; rlxp reads it as
    the YAML 1.2 float it is, and so must the reference."""


Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9]+[eE][-+]?[0-9]+$"), list("-+0123456789"))


def canonical(v):
    """Match Go's encoding/json: integral floats print without a fraction."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e21:
        return int(v)
    if isinstance(v, dict):
        return {k: canonical(x) for k, x in v.items()}
    if isinstance(v, list):
        return [canonical(x) for x in v]
    return v


def digest(value):
    canon = json.dumps(canonical(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canon.encode()).hexdigest()


def main(root):
    path = root + "/.rlxp/contract.yaml"
    with open(path, encoding="utf-8") as f:
        doc = yaml.load(f, Loader=Loader)
    approvals = doc.get("approvals") or {}
    sections, all_ok = [], True
    for name in SECTIONS:
        content = doc.get(name)
        s = {"section": name}
        if content is None:
            s["state"] = "incomplete"
        else:
            s["digest"] = digest(content)
            a = approvals.get(name)
            if a is None:
                s["state"] = "unapproved"
            else:
                s["approval"] = a
                s["state"] = "approved" if a.get("digest") == s["digest"] else "stale"
        all_ok = all_ok and s["state"] == "approved"
        sections.append(s)
    json.dump({"schema": "rlxp.contract-status/v1", "file": path, "sections": sections, "approved": all_ok},
              sys.stdout, indent=2)
    print()
    return 0 if all_ok else 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
