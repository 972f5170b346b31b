#!/usr/bin/env bash
# Time `rlxp audit --json` on a large repository next to `git grep -n -E`
# for the literals the audit looks for (imports, entry points, parsers,
# metric calls, launchers, environment ids): the median of RUNS runs each,
# after one warm-up run of both so that the page cache is hot for both.
#
#   bash scripts/bench-audit.sh BIN REPO [RUNS]
#
# REPO is a git work tree, or a bare git directory, whose HEAD is exported
# into a temporary work tree first (blobs missing from a partial clone are
# left out). git grep searches tracked files; the audit walks the tree and
# honours .gitignore, so both see the same files.
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: bash scripts/bench-audit.sh BIN REPO [RUNS]" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
repo=$2
runs=${3:-5}

work=$(mktemp -d "${TMPDIR:-/tmp}/rlxp-bench-audit.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [[ ! -e $repo/.git && -f $repo/HEAD && -d $repo/objects ]]; then
  tree=$work/tree
  mkdir "$tree"
  # Export blob by blob: a partial clone lacks its largest files.
  git --git-dir="$repo" ls-tree -r -z HEAD | python3 "$(dirname "${BASH_SOURCE[0]}")/bench/export_tree.py" "$repo" "$tree"
  git -C "$tree" init -q
  git -C "$tree" add -A
  git -C "$tree" -c user.name=bench -c user.email=bench@localhost commit -qm snapshot
  repo=$tree
fi

pattern='^[[:space:]]*(import|from) |__main__|ArgumentParser\(|add_argument\(|tyro\.cli\(|@hydra\.main\(|flags\.DEFINE_|add_scalar\(|wandb\.log\(|logger\.record\(|log_metrics\(|metrics\[|fieldnames=|SummaryWriter\(|open\(|torch\.save\(|#SBATCH|torchrun|deepspeed|accelerate launch|\.backward\(|\.learn\(|env\.step\(|-v[0-9]|cuda|num_gpus|nproc_per_node|"[A-Za-z_]+/[A-Za-z_/]+":'

# The same anchors as fixed strings: git grep's fastest mode (Aho-Corasick
# over literals), a stricter reference than the regular expression.
fixed=(-e 'import ' -e __main__ -e 'ArgumentParser(' -e 'add_argument(' -e 'tyro.cli(' -e '@hydra.main(' -e flags.DEFINE_
  -e 'add_scalar(' -e 'wandb.log(' -e 'logger.record(' -e 'log_metrics(' -e 'metrics[' -e fieldnames= -e 'SummaryWriter('
  -e 'open(' -e 'torch.save(' -e '#SBATCH' -e torchrun -e deepspeed -e 'accelerate launch' -e '.backward(' -e '.learn('
  -e 'env.step(' -e -v -e cuda -e num_gpus -e nproc_per_node -e '":')

# The file types the audit reads, for a like-for-like search.
types=(-- '*.py' '*.sh' '*.bash' '*.slurm' '*.sbatch' '*.yaml' '*.yml' '*.env' '*.mk' '*Makefile' '*pyproject.toml'
  '*setup.cfg' '*requirements*.txt' '*README*')

# median RUNS CMD... prints the median wall time in seconds of RUNS runs.
median() {
  local n=$1
  shift
  local times=()
  for ((i = 0; i < n; i++)); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || true
    t1=$(date +%s.%N)
    times+=("$(echo "$t1 - $t0" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.3f", m}'
}

files=$(git -C "$repo" ls-files | wc -l)
bytes=$(git -C "$repo" ls-files -z | (cd "$repo" && xargs -0 cat 2>/dev/null) | wc -c)
matches=$(git -C "$repo" grep -n -E "$pattern" | wc -l)
echo "repository: $repo ($(git -C "$repo" rev-parse --short HEAD)), $files tracked files, $((bytes / 1048576)) MiB"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $("$bin" --version)"

git -C "$repo" grep -n -E "$pattern" >/dev/null || true
"$bin" audit --root "$repo" --json >/dev/null || true

grep_t=$(median "$runs" git -C "$repo" grep -n -E "$pattern")
fixed_t=$(median "$runs" git -C "$repo" grep -n -F "${fixed[@]}")
typed_t=$(median "$runs" git -C "$repo" grep -n -F "${fixed[@]}" "${types[@]}")
audit_t=$(median "$runs" "$bin" audit --root "$repo" --json)
echo "git grep -n -E (${matches} matching lines):      median ${grep_t}s of $runs"
echo "git grep -n -F (same anchors as literals):     median ${fixed_t}s of $runs"
echo "git grep -n -F, only the file types audit reads: median ${typed_t}s of $runs"
echo "rlxp audit --json:                              median ${audit_t}s of $runs"
echo "ratio audit / git grep -E: $(echo "$audit_t / $grep_t" | bc -l | xargs printf '%.2f')x; audit / git grep -F: $(echo "$audit_t / $fixed_t" | bc -l | xargs printf '%.2f')x; audit / typed git grep -F: $(echo "$audit_t / $typed_t" | bc -l | xargs printf '%.2f')x"
