#!/usr/bin/env bash
# Benchmark `rlxp score` on ~1 GB metric histories (JSONL, CSV, tfevents),
# side by side: a first score (empty digest cache) against `sha256sum` of
# the same file (provenance needs the hash: it is the floor), a re-score
# (digests and aggregates cached) against `wc -l` (the I/O floor), and a Python
# standard-library reader doing the same aggregation. The digests and means
# are checked equal.
#   bash scripts/bench-score.sh BIN [STEPS]
# Generated files are kept in $RLXP_BENCH_DATA (default /tmp/rlxp-bench-data);
# $GENMETRICS names a prebuilt scripts/bench/genmetrics where Go is absent;
# $CPUS (e.g. 0,1) pins every contender to those CPUs with taskset.
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
steps=${2:-1000000}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data=${RLXP_BENCH_DATA:-/tmp/rlxp-bench-data}
py=${PYTHON:-python3}
mkdir -p "$data"
work=$(mktemp -d "${TMPDIR:-/tmp}/rlxp-bench-score.XXXXXX")
trap 'rm -rf "$work"' EXIT
pin=()
[[ -n ${CPUS:-} ]] && pin=(taskset -c "$CPUS")

# gen FORMAT and measure CMD...
source "$here/scripts/bench/lib.sh"
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

printf '%-9s %7s %8s %8s %8s %9s %8s %8s %8s %8s %9s\n' format size sha256_s first_s ratio cpu_ratio wc-l_s rescore_s ratio python_s rlxp_rss
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
  score() { XDG_CACHE_HOME=$1 measure "$bin" score baseline --root "$repo" --run-dir . --dry-run --json; }
  sha=() ; first=() ; wc=() ; again=() ; rss=0 ; shacpu=() ; firstcpu=()
  XDG_CACHE_HOME=$work/cache-warm-$fmt "$bin" score baseline --root "$repo" --run-dir . --dry-run --json >/dev/null
  for i in 1 2 3; do
    read -r s _ < <(measure sha256sum "$file"); sha+=("$s"); shacpu+=("$(cat "$work/cpu")")
    sum=$(cut -d' ' -f1 "$work/out")
    rm -rf "$work/cache-cold"
    read -r s kb < <(score "$work/cache-cold"); first+=("$s"); firstcpu+=("$(cat "$work/cpu")")
    (( kb > rss )) && rss=$kb
    cp "$work/out" "$work/first.json"
    read -r s _ < <(measure wc -l "$file"); wc+=("$s")
    read -r s kb < <(score "$work/cache-warm-$fmt"); again+=("$s")
    (( kb > rss )) && rss=$kb
    cp "$work/out" "$work/again.json"
  done
  read -r pys _ < <(measure "$py" "$here/scripts/bench/score_reference.py" "$fmt" "$file" eval/return 100)
  cp "$work/out" "$work/py.json"
  "$py" - "$work/first.json" "$work/again.json" "$work/py.json" "$fmt" "$sum" <<'PY'
import json, sys
first = json.load(open(sys.argv[1]))["result"]
again = json.load(open(sys.argv[2]))["result"]
if first != again:
    sys.exit("rlxp's first score and re-score differ: the cached read is not the read")
p = json.loads(open(sys.argv[3]).read())["mean_last_n"]
tol = 1e-6 if sys.argv[4] == "tfevents" else 1e-9
for name, r in (("first score", first), ("re-score", again)):
    m = r["primary"]["mean"]
    if abs(m - p) > tol * max(1, abs(p)):
        sys.exit(f"rlxp's {name} and the reference disagree: {m} vs {p}")
    if r["sources"][0]["sha256"] != "sha256:" + sys.argv[5]:
        sys.exit(f"rlxp's {name} digest {r['sources'][0]['sha256']} is not sha256sum's {sys.argv[5]}")
PY
  h=$(median3 "${sha[@]}"); f=$(median3 "${first[@]}"); w=$(median3 "${wc[@]}"); a=$(median3 "${again[@]}")
  hc=$(median3 "${shacpu[@]}"); fc=$(median3 "${firstcpu[@]}")
  awk -v fm="$fmt" -v s="$size" -v h="$h" -v f="$f" -v hc="$hc" -v fc="$fc" -v w="$w" -v a="$a" -v p="$pys" -v m=$((rss / 1024)) \
    'BEGIN { printf "%-9s %7s %8.2f %8.2f %7.2fx %8.2fx %8.2f %8.2f %7.2fx %8.2f %6d MB\n", fm, s, h, f, f / h, fc / hc, w, a, a / w, p, m }'
done
echo "goals: first score <= 1.2x sha256sum; re-score <= 2x wc -l (medians of 3, page cache warm)"
echo "cpu_ratio: the first score's CPU time (user + system, all its threads) over sha256sum's: a busy host's wall times swing, CPU time less"
echo "first score, re-score, sha256sum and the Python reference agree on every digest and mean; first score and re-score agree on the whole result"
