#!/usr/bin/env bash
# Benchmark `rlxp score` on ~1 GB metric histories (JSONL, CSV, tfevents):
# against `wc -l` on the same file (the I/O floor) and a Python
# standard-library reader doing the same aggregation, side by side.
#   bash scripts/bench-score.sh BIN [STEPS]
# Generated files are kept in $RLXP_BENCH_DATA (default /tmp/rlxp-bench-data);
# $GENMETRICS names a prebuilt scripts/bench/genmetrics where Go is absent.
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
steps=${2:-1000000}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data=${RLXP_BENCH_DATA:-/tmp/rlxp-bench-data}
py=${PYTHON:-python3}
mkdir -p "$data"
work=$(mktemp -d "${TMPDIR:-/tmp}/rlxp-bench-score.XXXXXX")
trap 'rm -rf "$work"' EXIT

# tags per format, chosen so that each file is about 1 GB at 1M steps
declare -A tags=([jsonl]=40 [csv]=60 [tfevents]=16)
gen() {
  local f=$data/history-$1-$steps.$1
  if [[ ! -s $f ]]; then
    if [[ -n ${GENMETRICS:-} ]]; then
      "$GENMETRICS" -format "$1" -steps "$steps" -tags "${tags[$1]}" -o "$f.tmp"
    else
      (cd "$here" && go run ./scripts/bench/genmetrics -format "$1" -steps "$steps" -tags "${tags[$1]}" -o "$f.tmp")
    fi
    mv "$f.tmp" "$f"
  fi
  echo "$f"
}

# run CMD...: print "seconds maxrss_kb" of one run of CMD (output discarded).
measure() {
  /usr/bin/time -f '%e %M' -o "$work/t" "$@" >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  cat "$work/t"
}
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

printf '%-9s %8s %9s %9s %9s %8s %8s %10s\n' format size wc-l_s rlxp_s python_s vs_wc vs_py rlxp_rss
for fmt in jsonl csv tfevents; do
  file=$(gen "$fmt")
  size=$(du -h "$file" | cut -f1)
  repo=$work/$fmt
  mkdir -p "$repo"
  "$bin" init --root "$repo" >/dev/null
  cat >"$repo/.rlxp/contract.yaml" <<YAML
schema: rlxp.contract/v1
task: {description: benchmark, environment: synthetic, success: n/a}
metrics:
  primary: {name: eval/return, source: big, aggregate: mean_last_n, n: 100, goal: maximize, held_out: true}
scope: {parameters: {}, files: [], categories: []}
budget: {gpu_hours: 0, max_run_wall_clock: 1h, max_runs: 10, max_concurrent: 1}
hardware: {target: bench, launcher: local, gpus_per_run: 0, nodes: 1}
baseline: {experiment: baseline, command: none, seeds: [0]}
evaluation: {command: none, source: big, episodes: 1, seeds: [1000], held_out: synthetic}
YAML
  cat >"$repo/.rlxp/adapter.yaml" <<YAML
schema: rlxp.adapter/v1
metrics:
  sources:
    big: {path: "$file", format: $fmt}
YAML
  cat "$file" >/dev/null # warm the page cache: every contender reads from memory
  wc=() ; rl=() ; rss=0
  for i in 1 2 3; do
    read -r s _ < <(measure wc -l "$file"); wc+=("$s")
    read -r s kb < <(measure "$bin" score baseline --root "$repo" --run-dir . --dry-run --json); rl+=("$s")
    (( kb > rss )) && rss=$kb
    cp "$work/out" "$work/rlxp.json"
  done
  read -r pys _ < <(measure "$py" "$here/scripts/bench/score_reference.py" "$fmt" "$file" eval/return 100)
  cp "$work/out" "$work/py.json"
  "$py" - "$work/rlxp.json" "$work/py.json" "$fmt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["result"]["primary"]["mean"]
p = json.loads(open(sys.argv[2]).read())["mean_last_n"]
tol = 1e-6 if sys.argv[3] == "tfevents" else 1e-9
if abs(r - p) > tol * max(1, abs(p)):
    sys.exit(f"rlxp and the reference disagree: {r} vs {p}")
PY
  w=$(median3 "${wc[@]}"); r=$(median3 "${rl[@]}")
  awk -v f="$fmt" -v s="$size" -v w="$w" -v r="$r" -v p="$pys" -v m=$((rss / 1024)) \
    'BEGIN { printf "%-9s %8s %9.2f %9.2f %9.2f %7.1fx %7.1fx %7d MB\n", f, s, w, r, p, r / w, p / r, m }'
done
echo "rlxp and the Python reference agree on every mean (vs_wc: rlxp time / wc -l time; vs_py: Python time / rlxp time)"
