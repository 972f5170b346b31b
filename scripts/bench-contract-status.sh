#!/usr/bin/env bash
# Benchmark `rlxp contract status --json` on the example repo against a
# Python + PyYAML reference doing the same parse and report.
#   bash scripts/bench-contract-status.sh BIN [RUNS]
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
runs=${2:-200}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Debian's python3 carries python3-yaml; any python3 with PyYAML will do.
py=${PYTHON:-/usr/bin/python3}
"$py" -c 'import yaml' 2>/dev/null || { echo "bench: $py lacks PyYAML (apt-get install python3-yaml)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/rlxp-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -R "$here/examples/cartpole" "$work/repo"
"$bin" init --root "$work/repo" >/dev/null
cp "$here/examples/drafts/cartpole/contract.yaml" "$here/examples/drafts/cartpole/adapter.yaml" "$work/repo/.rlxp/"
"$bin" contract approve --all --yes --by bench --root "$work/repo" >/dev/null
# One stale section, so both sides do the whole comparison.
sed -i.bak 's/^  max_runs: 24$/  max_runs: 25/' "$work/repo/.rlxp/contract.yaml"

echo "rlxp $("$bin" --version | cut -d' ' -f2), $("$py" --version), PyYAML $("$py" -c 'import yaml; print(yaml.__version__, "(C loader)" if hasattr(yaml, "CSafeLoader") else "(pure Python)")')"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$py" "$here/scripts/bench/compare.py" "$runs" \
  "rlxp=$bin contract status --json --root $work/repo" \
  "python=$py $here/scripts/bench/contract_status.py $work/repo"
