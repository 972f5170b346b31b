# Shared by the metric benchmarks (bench-inspect.sh, bench-score.sh); source
# it after setting here (the repository), data (where generated files stay),
# steps and work (a scratch directory). pin, an array, may hold a taskset
# prefix for the measured commands.

# tags per format, chosen so that each file is about 1 GB at 1M steps
declare -A tags=([jsonl]=40 [csv]=60 [tfevents]=16)

# gen FORMAT: print the path of a generated history of $steps steps, made
# once and kept in $data.
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

# measure CMD...: print "seconds maxrss_kb" of one run (output kept in
# $work/out, its CPU seconds, user and system, in $work/cpu).
measure() {
  /usr/bin/time -f '%e %M %U %S' -o "$work/t" ${pin[@]+"${pin[@]}"} "$@" >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  awk '{ print $1, $2; printf "%.2f\n", $3 + $4 > "'"$work/cpu"'" }' "$work/t"
}
