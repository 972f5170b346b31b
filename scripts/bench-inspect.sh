#!/usr/bin/env bash
# Benchmark `rlxp metrics inspect --json` on 1M-step metric histories
# (JSONL ~1.15 GB, CSV ~0.6 GB, tfevents ~0.76 GB) against `wc -l` on the
# same file (the I/O floor), side by side. The results are checked
# against what the files hold, read independently: every tag has one point
# per step and its last step is the last row's; eval/return's last value is
# the one on the JSONL's and the CSV's last line. REFERENCE=1 also checks
# eval/return in full against the Python reader
# scripts/bench/score_reference.py (slow on tfevents).
#   bash scripts/bench-inspect.sh BIN [STEPS]
# Files are generated into $RLXP_BENCH_DATA when set (and kept there),
# else into a temporary directory removed at the end. $GENMETRICS names a
# prebuilt scripts/bench/genmetrics where Go is absent; $CPUS (e.g. 0,1)
# pins every contender to those CPUs with taskset.
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
steps=${2:-1000000}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/rlxp-bench-inspect.XXXXXX")
data=${RLXP_BENCH_DATA:-$work/data}
trap 'rm -rf "$work"' EXIT
mkdir -p "$data"
pin=()
[[ -n ${CPUS:-} ]] && pin=(taskset -c "$CPUS")

# gen FORMAT
source "$here/scripts/bench/lib.sh"
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
# timed CMD...: print "seconds maxrss_kb cpu_seconds" of one run (output
# kept in $work/out); CPU time (user + system) is steadier than wall time
# on a busy machine.
timed() {
  /usr/bin/time -f '%e %M %U %S' -o "$work/t" ${pin[@]+"${pin[@]}"} "$@" >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  awk '{ print $1, $2, $3 + $4 }' "$work/t"
}

printf '%-9s %8s %9s %9s %7s %9s %9s %7s %10s\n' format size wc-l_s rlxp_s vs_wc wc-l_cpu rlxp_cpu cpu_vs rlxp_rss
for fmt in jsonl csv tfevents; do
  file=$(gen "$fmt")
  size=$(du -h "$file" | cut -f1)
  cat "$file" >/dev/null # warm the page cache: both read from memory
  wc=() ; rl=() ; wcc=() ; rlc=() ; rss=0
  for i in 1 2 3; do
    read -r s _ c < <(timed wc -l "$file"); wc+=("$s"); wcc+=("$c")
    read -r s kb c < <(timed "$bin" metrics inspect "$file" --json); rl+=("$s"); rlc+=("$c")
    (( kb > rss )) && rss=$kb
    cp "$work/out" "$work/rlxp-$i.json"
  done
  cmp -s "$work/rlxp-1.json" "$work/rlxp-3.json" || { echo "inspect gave different results on the same file" >&2; exit 1; }
  cp "$work/rlxp-1.json" "$work/$fmt.json"
  tail -n 1 "$file" >"$work/last" || true
  head -n 1 "$file" >"$work/first" || true
  "$py" - "$work/$fmt.json" "$fmt" "$steps" "$work/first" "$work/last" <<'PY'
import json, sys
path, fmt, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
tags = {t["tag"]: t for t in json.load(open(path))["files"][0]["tags"]}
for t in tags.values():
    if t["points"] != steps or t["last_step"] != (steps - 1) * 1000:
        sys.exit(f"{fmt}: {t['tag']} has {t['points']} points up to step {t['last_step']}, the file {steps} rows up to {(steps - 1) * 1000}")
want = None
if fmt == "jsonl":
    want = json.loads(open(sys.argv[5]).read())["eval/return"]
elif fmt == "csv":
    head = open(sys.argv[4]).read().strip().split(",")
    want = float(open(sys.argv[5]).read().strip().split(",")[head.index("eval/return")])
if want is not None and tags["eval/return"]["last"] != want:
    sys.exit(f"{fmt}: eval/return's last value is {tags['eval/return']['last']}, the last line holds {want}")
PY
  if [[ ${REFERENCE:-} == 1 ]]; then
    "$py" "$here/scripts/bench/score_reference.py" "$fmt" "$file" eval/return 1 >"$work/py.json"
    "$py" - "$work/$fmt.json" "$work/py.json" <<'PY'
import json, sys
tags = {t["tag"]: t for t in json.load(open(sys.argv[1]))["files"][0]["tags"]}
r, p = tags["eval/return"], json.load(open(sys.argv[2]))
if r["points"] != p["points"] or abs(r["last"] - p["last"]) > 1e-12 * max(1, abs(p["last"])):
    sys.exit(f"rlxp and the reference disagree on eval/return: {r['points']} points, last {r['last']} vs {p['points']}, {p['last']}")
PY
  fi
  w=$(median3 "${wc[@]}"); r=$(median3 "${rl[@]}"); wu=$(median3 "${wcc[@]}"); ru=$(median3 "${rlc[@]}")
  awk -v f="$fmt" -v s="$size" -v w="$w" -v r="$r" -v wu="$wu" -v ru="$ru" -v m=$((rss / 1024)) \
    'BEGIN { printf "%-9s %8s %9.2f %9.2f %6.1fx %9.2f %9.2f %6.1fx %7d MB\n", f, s, w, r, r / w, wu, ru, ru / (wu > 0 ? wu : 0.01), m }'
  [[ -n ${RLXP_BENCH_DATA:-} ]] || rm -f "$file"
done
echo "results checked: one point per row for every tag, eval/return's last value as on the last line (vs_wc: rlxp time / wc -l time; cpu_vs: the same for CPU time, user + system)"
