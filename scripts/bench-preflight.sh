#!/usr/bin/env bash
# What rlxp's built-in preflight adds to `rlxp check` on the example repo
# (examples/cartpole, its own preflight removed from adapter.yaml), beside
# the declared interpreter's own start (`python -c pass`), which it pays
# once to read the entry points. Four commands run in turn (A B C D A B C
# D ...), each RUNS times; the medians print side by side:
#   python -c pass          the interpreter's start
#   rlxp preflight          the built-in preflight alone
#   rlxp check (built-in)   check with it
#   rlxp check (no-op)      check with a declared preflight that only prints
#                           its summary line (one bash start)
# The goal: check (built-in) − check (no-op) − python start < 0.5 s.
#   bash scripts/bench-preflight.sh BIN [RUNS]
# PYTHON names the interpreter (default python3); the adapter declares it.
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
runs=${2:-15}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
py=${PYTHON:-python3}

work=$(mktemp -d "${TMPDIR:-/tmp}/rlxp-bench-preflight.XXXXXX")
trap 'rm -rf "$work"' EXIT

# setup DIR PREFLIGHT: the example repo, approved, with the given
# commands.preflight line ("" for none).
setup() {
  cp -R "$here/examples/cartpole" "$1"
  "$bin" init --root "$1" --project cartpole >/dev/null
  cp "$here/examples/drafts/cartpole/contract.yaml" "$1/.rlxp/"
  grep -v '^  preflight:' "$here/examples/drafts/cartpole/adapter.yaml" |
    sed "s#^  python: python3\$#  python: $py#" >"$1/.rlxp/adapter.yaml"
  if [[ -n $2 ]]; then
    sed -i "s#^commands:\$#commands:\n  preflight: \"$2\"#" "$1/.rlxp/adapter.yaml"
  fi
  "$bin" contract approve --all --yes --root "$1" >/dev/null
  "$bin" experiment add lr01 --param lr=0.01 --seeds 0 --root "$1" >/dev/null
  "$bin" experiment approve lr01 --yes --root "$1" >/dev/null
}
setup "$work/builtin" ""
setup "$work/noop" "echo '[preflight] all fatal checks passed (0 WARN).'"

# A check that is not safe to run still measures what it costs: exit 3 is
# its answer (no GPU here), not a failure of the benchmark.
run() { "$@" >/dev/null 2>&1 || [[ $? == 3 ]]; }
"$bin" preflight lr01 --root "$work/builtin" >/dev/null || { echo "the example fails the built-in preflight" >&2; exit 1; }

names=("$py -c pass" "rlxp preflight" "rlxp check (built-in)" "rlxp check (no-op)")
cmds=(
  "$py -c pass"
  "$bin preflight lr01 --root $work/builtin"
  "$bin check lr01 --root $work/builtin"
  "$bin check lr01 --root $work/noop"
)
declare -a times
for ((r = 0; r < runs; r++)); do
  for i in "${!cmds[@]}"; do
    start=$EPOCHREALTIME
    # shellcheck disable=SC2086 # the commands are word lists
    run ${cmds[$i]}
    end=$EPOCHREALTIME
    times[i]+="$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }') "
  done
done

median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "rlxp $("$bin" --version | cut -d' ' -f2), $("$py" --version 2>&1) ($py), $runs runs each"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
declare -a med
for i in "${!cmds[@]}"; do
  med[i]=$(median <<<"${times[i]}")
  printf '%-24s %8.3f s (median)\n' "${names[$i]}" "${med[i]}"
done
awk -v b="${med[2]}" -v n="${med[3]}" -v p="${med[0]}" 'BEGIN {
  added = b - n
  printf "check: the built-in preflight adds %.3f s; beyond the interpreter start: %.3f s (goal < 0.5 s)\n", added, added - p
}'
