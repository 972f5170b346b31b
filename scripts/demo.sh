#!/usr/bin/env bash
# Walk the rlxp loop on a copy of the example CartPole repository:
# init → contract draft → validate → human approval → experiments → gate.
# Steps a person takes are labelled HUMAN; here they run non-interactively.
set -euo pipefail

rlxp_bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/rlxp-demo.XXXXXX")
repo=$work/cartpole
dashboard_pid=
trap '[[ -z $dashboard_pid ]] || kill "$dashboard_pid" 2>/dev/null; rm -rf "$work"' EXIT

bold=$'\e[1m' dim=$'\e[2m' off=$'\e[0m'
if [[ ! -t 1 || -n ${NO_COLOR:-} ]]; then bold='' dim='' off=''; fi

step() { printf '\n%s==> %s%s\n' "$bold" "$*" "$off"; }
# run CODE CMD...: show the command, run it, and stop the demo if it does
# not exit with CODE (a demo that hides a wrong answer is no demo).
run() {
  local want=$1; shift
  printf '%s$ %s%s\n' "$dim" "$*" "$off"
  local got=0
  (cd "$repo" && "$@") || got=$?
  if [[ $got != "$want" ]]; then
    printf 'demo: expected exit %s from: %s (got %s)\n' "$want" "$*" "$got" >&2
    exit 1
  fi
}
rlxp() { "$rlxp_bin" "$@"; }
# The HUMAN approvals go through rlxp's test build: rlxp refuses an approval
# from a process that descends from an agent host, and this demo may run
# inside one. The test build sees only the processes below this script.
human_bin=$work/human/rlxp
mkdir -p "$work/human"
(cd "$here" && go test -c -o "$human_bin" ./cmd/rlxp)
as_human() { shift; RLXP_TEST_ANCESTRY_TOP=$$ "$human_bin" "$@"; }

step "A copy of the example RL repository (examples/cartpole) in $repo"
cp -R "$here/examples/cartpole" "$repo"
rm -rf "$repo/runs"
run 0 ls

step "Its own runner has a preflight; rlxp delegates to it before any launch"
run 0 bash scripts/run.sh train configs/baseline.json --seed 0 --out runs/baseline/seed0 --preflight-only
run 1 bash scripts/run.sh train configs/baseline.json --seed 0 --out runs/x --set lr=0 --preflight-only

step "rlxp init: the .rlxp/ state, from commented templates"
run 0 rlxp init --project cartpole
run 0 rlxp init

step "A fresh contract is incomplete, so nothing may launch"
run 3 rlxp contract status

step "rlxp audit: what this repo trains, evaluates and logs, each with file:line evidence"
run 0 rlxp audit
run 0 rlxp audit --write

step "The agent reviews the draft and writes contract.yaml from the audit (here: the reviewed drafts)"
cp "$here/examples/drafts/cartpole/contract.yaml" "$repo/.rlxp/contract.yaml"
cp "$here/examples/drafts/cartpole/adapter.yaml" "$repo/.rlxp/adapter.yaml"
run 0 rlxp contract validate
run 0 rlxp contract show metrics
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
run 2 rlxp experiment add ../escape
run 0 rlxp experiment list

step "The gate: closed until a human approves the experiment"
run 3 rlxp gate lr-0.05

step "HUMAN: approve the experiment"
run 0 as_human rlxp experiment approve lr-0.05 --yes --by demo-reviewer
run 0 rlxp gate lr-0.05

step "Is it safe to run right now? The gate, the repo's own preflight, and this machine"
run 0 rlxp check lr-0.05

step "A training seed inside the held-out range passes the gate, but the repo's preflight refuses it"
run 0 rlxp experiment add seed-leak --seeds 10000 --param lr=0.02 --hypothesis "one more seed"
run 0 as_human rlxp experiment approve seed-leak --yes --by demo-reviewer
run 3 rlxp check seed-leak
run 0 rlxp experiment reject seed-leak --reason "seed 10000 is a held-out evaluation seed" --by demo-reviewer

step "Over budget: 30 runs do not fit in the 24 the contract allows, so the sweep is refused"
run 1 rlxp experiment add sweep --seeds "$(seq -s, 0 29)" --param gamma=0.95

step "Editing an approved section makes its approval stale; the gate says which"
sed -i.bak 's/^  max_runs: 24$/  max_runs: 40/' "$repo/.rlxp/contract.yaml" && rm "$repo/.rlxp/contract.yaml.bak"
run 3 rlxp gate lr-0.05
run 0 as_human rlxp contract approve budget --yes --by demo-reviewer
run 0 rlxp experiment add sweep --seeds "$(seq -s, 0 29)" --param gamma=0.95
run 0 as_human rlxp experiment approve sweep --yes --by demo-reviewer
run 0 rlxp gate sweep

step "For agents: every report is also one JSON object"
run 0 rlxp gate lr-0.05 --json

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
  run 0 rlxp status "$exp"
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

step "Score the baseline: the reference every experiment is compared with"
run 0 rlxp metrics inspect runs/baseline/seed0/eval.jsonl runs/baseline/seed0/progress.csv
run 0 rlxp score baseline
(cd "$repo" && git add .rlxp && git -c user.name=demo -c user.email=demo@example.com commit -qm "score the baseline")

step "Launch and score lr-0.05: same held-out return (the ceiling), so the answer is inconclusive"
launch lr-0.05
run 0 rlxp score lr-0.05

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
run 0 rlxp report --plots --check
run 0 ls .rlxp/plots
run 0 sed -n '/rlxp:generated:begin/,/^## Notes/p' .rlxp/report.md
run 0 tail -n 2 .rlxp/report.md

step "The dashboard: the same state and curves in a browser, on 127.0.0.1 only"
(cd "$repo" && exec "$rlxp_bin" dashboard >"$work/dashboard.out" 2>&1) &
dashboard_pid=$!
url=
for _ in $(seq 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/' "$work/dashboard.out" | head -n 1 || true)
  [[ -n $url ]] && break
  sleep 0.1
done
[[ -n $url ]] || { echo "demo: the dashboard printed no URL" >&2; cat "$work/dashboard.out" >&2; exit 1; }
run 0 rlxp dashboard --running
python3 - "$url" <<'PY'
import json, sys, urllib.request
state = json.load(urllib.request.urlopen(sys.argv[1] + "api/state", timeout=10))
print("dashboard:", sys.argv[1], "—", len(state.get("runs", [])), "runs,", len(state.get("experiments", [])), "experiments")
PY
if [[ -t 0 && -t 1 ]]; then
  printf 'Open %s in a browser on this machine; press Enter to stop the dashboard and end the demo. ' "$url"
  read -r _ || true
fi

printf '\n%sDemo complete.%s The state lives in .rlxp/ of the target repo: contract.yaml, experiments.yaml, ledger.jsonl.\n' "$bold" "$off"
