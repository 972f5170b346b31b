#!/usr/bin/env bash
# Run the CartPole example: a preflight check first, then training or evaluation.
#
#   bash scripts/run.sh train CONFIG [--seed N] [--out DIR] [--set KEY=VALUE ...]
#   bash scripts/run.sh eval CHECKPOINT [--episodes N] [--seed-base B] [--out DIR]
#
# --preflight-only (or PREFLIGHT_ONLY=1 in the environment) runs only the
# preflight and exits with its status: 1 if any check is FATAL, else 0.
# Paths are taken relative to the current directory.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

usage() {
  sed -n '4,5p' "${BASH_SOURCE[0]}" | sed 's/^#   /usage: /' >&2
  exit 2
}

# Without python3 the preflight module cannot run, so report that one
# check here, in the same format.
refuse_without_python() {
  printf '%s preflight config check %s\n' "$(rule 25)" "$(rule 25)"
  printf '  ✗ FATAL  python3 not found on PATH\n' >&2
  rule 70
  printf '[preflight] 1 FATAL, 0 WARN — refusing to start. Fix the ✗ items above.\n' >&2
  exit 1
}

rule() {
  local line="" i
  for ((i = 0; i < $1; i++)); do line+="─"; done
  printf '%s\n' "$line"
}

[[ $# -ge 2 ]] || usage
mode=$1
target=$2
shift 2
case $mode in
  train) flag=--config script=train.py ;;
  eval) flag=--checkpoint script=eval.py ;;
  *) usage ;;
esac

preflight_only=0
if [[ -n ${PREFLIGHT_ONLY:-} && ${PREFLIGHT_ONLY} != 0 ]]; then
  preflight_only=1
fi
args=()
for arg in "$@"; do
  if [[ $arg == --preflight-only ]]; then
    preflight_only=1
  else
    args+=("$arg")
  fi
done

command -v python3 >/dev/null 2>&1 || refuse_without_python
PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}" \
  python3 -m cartpole.preflight "$mode" "$flag" "$target" ${args[@]+"${args[@]}"}
if [[ $preflight_only == 1 ]]; then
  exit 0
fi
exec python3 "$ROOT/$script" "$flag" "$target" ${args[@]+"${args[@]}"}
