#!/usr/bin/env bash
# Walk the rlxp loop on a copy of the example CartPole repository: audit,
# contract, human approval, experiments, gate, check, launch, status, score,
# ledger, proposals, report, dashboard. Steps a person takes are labelled
# HUMAN; here they run non-interactively, and are recorded so.
#
#   scripts/demo.sh [--verbose] RLXP_BIN
#
# Every command is echoed as it can be pasted (shell-quoted, run in the demo
# repository); by default each shows its first line of output, and a few
# show their whole table once. --verbose shows every command's full output.
# DEMO_DIR=DIR keeps the demo's repository in DIR/cartpole (DIR must not
# exist yet or be empty); otherwise it lives in a temporary directory that is
# removed at the end.
set -euo pipefail

verbose=0
if [[ ${1:-} == --verbose ]]; then verbose=1; shift; fi
[[ $# == 1 ]] || { echo "usage: scripts/demo.sh [--verbose] RLXP_BIN" >&2; exit 2; }
rlxp_bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
keep=${DEMO_DIR:-}
if [[ -n $keep ]]; then
  if [[ -e $keep && -n $(ls -A "$keep" 2>/dev/null) ]]; then
    echo "demo: DEMO_DIR=$keep is not empty; name a new directory" >&2
    exit 2
  fi
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/rlxp-demo.XXXXXX")
fi
repo=$work/cartpole
log=$work/demo.log
dashboard_pid=
cleanup() {
  [[ -z $dashboard_pid ]] || kill "$dashboard_pid" 2>/dev/null || true
  [[ -n $keep ]] || rm -rf "$work"
}
trap cleanup EXIT

bold=$'\e[1m' dim=$'\e[2m' off=$'\e[0m'
if [[ ! -t 1 || -n ${NO_COLOR:-} ]]; then bold='' dim='' off=''; fi

step() { printf '\n%s==> %s%s\n' "$bold" "$*" "$off"; }

# quote ARGS...: the command line as it can be pasted into a shell; words
# with nothing special in them stay bare, others are single-quoted.
quote() {
  local out='' a q="'"
  for a; do
    if [[ $a =~ ^[A-Za-z0-9_./=:,@%+-]+$ ]]; then
      out+="$a "
    else
      out+="'${a//$q/$q\\$q$q}' "
    fi
  done
  printf '%s' "${out% }"
}

# run CODE CMD...: run it in the demo repository, show the command and its
# first line of output (all of it with --verbose), and stop the demo if it
# does not exit with CODE (a demo that hides a wrong answer is no demo).
# show CODE CMD...: the same, always with the full output.
run() { _run "$verbose" "$@"; }
show() { _run 1 "$@"; }
_run() {
  local full=$1 want=$2
  shift 2
  local got=0 out=$work/last.out cmd
  cmd=$(quote "$@")
  (cd "$repo" && "$@") >"$out" 2>&1 || got=$?
  { printf '$ %s\n' "$cmd"; cat "$out"; } >>"$log"
  if [[ $got != "$want" ]]; then
    printf '$ %s\n' "$cmd"
    cat "$out"
    printf 'demo: expected exit %s from: %s (got %s)\n' "$want" "$cmd" "$got" >&2
    exit 1
  fi
  if [[ $full == 1 ]]; then
    printf '%s$ %s%s\n' "$dim" "$cmd" "$off"
    cat "$out"
    return
  fi
  # The answer line when the command has one, else its first line.
  local first
  first=$(grep -m 1 -E '^(VERDICT|NOT LAUNCHED|started |GATE |diagnosis|\[preflight\]|\.rlxp/contract\.yaml: [0-9]+ of|\.rlxp/ledger\.jsonl:|strategy:|wrote )' "$out" ||
    grep -m 1 -E '^SAFE TO RUN' "$out" || grep -m 1 -v -E '^[[:space:]─]*$' "$out" || true)
  first=${first//$'\t'/ }
  first=${first:0:100}
  [[ $got == 0 ]] || first="exit $got: $first"
  printf '%s$ %s%s%s\n' "$dim" "$cmd" "$off" "${first:+   # $first}"
}
rlxp() { "$rlxp_bin" "$@"; }
# The HUMAN approvals go through rlxp's test build: rlxp refuses an approval
# from a process that descends from an agent host, and this demo may run
# inside one. The test build sees only the processes below this script.
human_bin=$work/human/rlxp
mkdir -p "$work/human"
(cd "$here" && go test -c -o "$human_bin" ./cmd/rlxp)
as_human() { shift; RLXP_TEST_ANCESTRY_TOP=$$ "$human_bin" "$@"; }

printf 'rlxp is %s; the commands below run in %s\n' "$rlxp_bin" "$repo"
step "A copy of the example RL repository (examples/cartpole) in $repo"
cp -R "$here/examples/cartpole" "$repo"
rm -rf "$repo/runs"

step "Its own runner has a preflight; rlxp delegates to it before any launch"
run 0 bash scripts/run.sh train configs/baseline.json --seed 0 --out runs/baseline/seed0 --preflight-only
run 1 bash scripts/run.sh train configs/baseline.json --seed 0 --out runs/x --set lr=0 --preflight-only

step "rlxp init: the .rlxp/ state, from commented templates"
run 0 rlxp init --project cartpole

step "A fresh contract is incomplete, so nothing may launch"
run 3 rlxp contract status

step "rlxp audit: what this repo trains, evaluates and logs, each with file:line evidence"
run 0 rlxp audit
run 0 rlxp audit --write

step "The agent reviews the draft and writes contract.yaml from the audit (here: the reviewed drafts)"
cp "$here/examples/drafts/cartpole/contract.yaml" "$repo/.rlxp/contract.yaml"
cp "$here/examples/drafts/cartpole/adapter.yaml" "$repo/.rlxp/adapter.yaml"
run 0 rlxp contract validate
run 3 rlxp contract status

step "HUMAN: review and approve each section (a terminal prompt; non-interactive here, and recorded so)"
run 0 as_human rlxp contract approve --all --yes --by demo-reviewer
run 0 rlxp contract status

step "Experiments: the baseline and one change, inside the approved scope"
run 0 rlxp experiment add baseline --hypothesis "reference for every comparison"
run 0 rlxp experiment add lr-0.05 --param lr=0.05 --category hyperparameter --hypothesis "a larger step size reaches 500 in fewer episodes"

step "Outside the scope is refused, and nothing is written"
run 1 rlxp experiment add lr-0.5 --param lr=0.5
run 1 rlxp experiment add reward-hack --param reward_scale=10
run 1 rlxp experiment add touch-train --file train.py
run 0 rlxp experiment list

step "The gate: closed until a human approves the experiment"
run 3 rlxp gate lr-0.05

step "HUMAN: approve the experiment"
run 0 as_human rlxp experiment approve lr-0.05 --yes --by demo-reviewer
run 0 rlxp gate lr-0.05

step "Is it safe to run right now? The gate, the repo's own preflight, and this machine"
show 0 rlxp check lr-0.05

step "A training seed inside the held-out evaluation seeds is refused"
run 1 rlxp experiment add seed-leak --seeds 10000 --param lr=0.02 --hypothesis "one more seed"

step "Over budget: 30 runs do not fit in the 24 the contract allows, so the sweep is refused"
run 1 rlxp experiment add sweep --seeds "$(seq -s, 0 29)" --param gamma=0.95

step "Editing an approved section makes its approval stale; the gate says which"
sed -i.bak 's/^  max_runs: 24$/  max_runs: 40/' "$repo/.rlxp/contract.yaml" && rm "$repo/.rlxp/contract.yaml.bak"
run 3 rlxp gate lr-0.05
run 0 as_human rlxp contract approve budget --yes --by demo-reviewer
run 0 rlxp experiment add sweep --seeds "$(seq -s, 0 29)" --param gamma=0.95
run 0 as_human rlxp experiment approve sweep --yes --by demo-reviewer
run 0 rlxp gate sweep

step "The sweep would hold 30 runs of the budget; the human rejects it for now"
run 0 rlxp experiment reject sweep --reason "too large before the first results" --by demo-reviewer

# launch EXPERIMENT: rlxp shows the plan and its digest and refuses without a
# confirmation; the human confirms that digest; the runs start detached
# under a supervisor, and the demo waits for their records to end.
launch() {
  local exp=$1 digest
  run 3 rlxp launch "$exp" </dev/null
  digest=$(cd "$repo" && "$rlxp_bin" launch "$exp" --json </dev/null | sed -n 's/^  "digest": "\([0-9a-f]*\)",$/\1/p' || true)
  printf '%sHUMAN: confirms plan %s%s\n' "$dim" "$digest" "$off"
  run 0 rlxp launch "$exp" --confirm "$digest"
  wait_runs
}

wait_runs() {
  local i f open
  for i in $(seq 600); do
    open=0
    for f in "$repo"/.rlxp/runs/*/run.json; do
      grep -q '"ended_at"' "$f" || open=1
    done
    if [[ $open == 0 ]]; then return 0; fi
    sleep 0.2
  done
  echo "demo: runs did not end within 120 s" >&2
  exit 1
}

step "Launch the baseline: check, the plan and its digest, a human's confirmation, then detached runs"
(cd "$repo" && git init -q && git add -A && git -c user.name=demo -c user.email=demo@example.com commit -qm "cartpole with rlxp state")
run 0 as_human rlxp experiment approve baseline --yes --by demo-reviewer
run 0 rlxp check baseline
launch baseline
run 0 rlxp status baseline

step "Score the baseline: the reference every experiment is compared with"
run 0 rlxp metrics inspect runs/baseline/seed0/eval.jsonl runs/baseline/seed0/progress.csv
run 0 rlxp score baseline
(cd "$repo" && git add .rlxp && git -c user.name=demo -c user.email=demo@example.com commit -qm "score the baseline")

step "Launch and score lr-0.05: same held-out return (the ceiling), so the answer is inconclusive"
launch lr-0.05
show 0 rlxp score lr-0.05

step "A slower learning rate, inside the scope: it learns less, and a guardrail catches it"
run 0 rlxp experiment add lr-0.002 --param lr=0.002 --category hyperparameter --hypothesis "a smaller step is steadier"
run 0 as_human rlxp experiment approve lr-0.002 --yes --by demo-reviewer
launch lr-0.002
run 3 rlxp score lr-0.002

step "A run that outlives its wall-clock allowance is stopped, and its record says so"
run 0 rlxp experiment add long-run --param episodes=600 --wall-clock 3s --seeds 0 --hypothesis "longer training helps"
run 0 as_human rlxp experiment approve long-run --yes --by demo-reviewer
digest=$(cd "$repo" && "$rlxp_bin" launch long-run --grace 2s --json </dev/null | sed -n 's/^  "digest": "\([0-9a-f]*\)",$/\1/p' || true)
run 0 rlxp launch long-run --grace 2s --confirm "$digest"
wait_runs
run 0 rlxp status long-run

step "The ledger: hash-chained, verified, and reviewed as a PR comment"
run 0 rlxp ledger show
run 0 rlxp ledger verify
run 0 rlxp ledger diff --base HEAD

step "What next? Proposals inside the approved scope and the budget left, from the ledger"
run 0 rlxp propose --n 2
run 0 rlxp experiment list
first=$(cd "$repo" && "$rlxp_bin" experiment list | awk -F'\t' '$2 == "proposed" { print $1; exit }')

step "HUMAN: approve one proposal (non-interactive here, and recorded so)"
run 0 as_human rlxp experiment approve "$first" --yes --by demo-reviewer
run 0 rlxp gate "$first"

step "The report: task card, approvals, budget, leaderboard, runs and next steps; hand-written notes survive"
printf '\nThe learning rate matters less than the episode budget here.\n' >>"$repo/.rlxp/report.md"
run 0 rlxp report --plots

step "The dashboard: the same state and curves in a browser, on 127.0.0.1 only"
printf '%s$ rlxp dashboard &%s\n' "$dim" "$off"
(cd "$repo" && exec "$rlxp_bin" dashboard >"$work/dashboard.out" 2>&1) &
dashboard_pid=$!
url=
for _ in $(seq 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$work/dashboard.out" | head -n 1 || true)
  [[ -n $url ]] && break
  sleep 0.1
done
[[ -n $url ]] || { echo "demo: the dashboard printed no URL" >&2; cat "$work/dashboard.out" >&2; exit 1; }
python3 - "$url" <<'PY'
import json, sys, urllib.request
state = json.load(urllib.request.urlopen(sys.argv[1] + "api/state", timeout=10))
print("dashboard:", sys.argv[1], "—", len(state.get("runs", [])), "runs,", len(state.get("experiments", [])), "experiments")
PY
if [[ -t 0 && -t 1 ]]; then
  printf 'Open %s in a browser on this machine; press Enter to stop the dashboard and end the demo. ' "$url"
  read -r _ || true
fi

printf '\n%sDemo complete.%s\n' "$bold" "$off"
if [[ -n $keep ]]; then
  printf 'The state is in %s/.rlxp/ (contract.yaml, experiments.yaml, ledger.jsonl, report.md, runs/); every command and its full output in %s.\n' "$repo" "$log"
  printf 'Reopen the dashboard: cd %s && %s dashboard\n' "$(quote "$repo")" "$(quote "$rlxp_bin")"
else
  printf 'Its repository was a temporary directory, now removed with its .rlxp/ state; keep one with: make demo DEMO_DIR=/tmp/rlxp-demo\n'
fi
