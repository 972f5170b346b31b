#!/usr/bin/env bash
# Records rlxp's live probe on a host with an NVIDIA GPU and PyTorch: an
# approved experiment needing one GPU, checked idle, with the GPU held by
# this user's process outside rlxp, and by another user's (uid 65534), then
# launched, watched and scored. Each step's output goes to OUT/<step>.txt
# with the command line first; nothing here is asserted, the recordings are
# read by people and replayed by the tests (testdata/check-h200/).
#
#   bash scripts/gpu-check.sh RLXP PYTHON OUT
set -uo pipefail
rlxp=$(realpath "$1") py=$2 out=$(realpath -m "$3")
mkdir -p "$out"
repo=$(mktemp -d /tmp/gpu-repo.XXXXXX)
cd "$repo"
git init -q . && git config user.email gpu@example.com && git config user.name gpu-check

cat > gpu_train.py <<'PY'
import argparse, json, os, time
import torch
p = argparse.ArgumentParser()
p.add_argument("--seed", type=int, required=True)
p.add_argument("--out", required=True)
p.add_argument("--lr", type=float, default=0.01)
p.add_argument("--seconds", type=float, default=8)
a = p.parse_args()
torch.manual_seed(a.seed)
os.makedirs(a.out, exist_ok=True)
w = torch.randn(2048, 2048, device="cuda", requires_grad=True)
opt = torch.optim.SGD([w], lr=a.lr)
with open(os.path.join(a.out, "progress.csv"), "w") as f:
    f.write("step,loss\n")
    step, end = 0, time.time() + a.seconds
    while time.time() < end:
        loss = (w @ w).pow(2).mean() * 1e-6
        opt.zero_grad(); loss.backward(); opt.step(); step += 1
        if step % 50 == 0:
            f.write(f"{step},{loss.item()}\n"); f.flush()
with open(os.path.join(a.out, "eval.jsonl"), "w") as f:
    f.write(json.dumps({"step": step, "eval/score": 100 + a.seed + 1000 * a.lr}) + "\n")
print("device", torch.cuda.get_device_name(0), "CUDA_VISIBLE_DEVICES", os.environ.get("CUDA_VISIBLE_DEVICES"))
PY
cat > hold_gpu.py <<'PY'
import sys, time, torch
x = torch.zeros(1 << 28, device="cuda")  # 1 GiB
open(sys.argv[1], "w").close()
time.sleep(600)
PY
"$rlxp" init >/dev/null
cat > .rlxp/contract.yaml <<'YAML'
schema: rlxp.contract/v1
project: gpu-check
task:
  description: Minimise a synthetic loss on one GPU.
  environment: a matrix on the GPU
  success: eval/score of at least 100
metrics:
  primary: {name: eval/score, source: eval, aggregate: last, goal: maximize, held_out: true}
  guardrails: []
scope:
  parameters:
    lr: {type: float, min: 0.001, max: 0.1}
  files: ["*.py"]
  categories: [hyperparameter]
budget: {gpu_hours: 1, max_run_wall_clock: 2m, max_runs: 10, max_concurrent: 1}
hardware: {target: one GPU, launcher: local, gpus_per_run: 1, nodes: 1}
baseline:
  experiment: baseline
  command: PY gpu_train.py --seed 0 --out runs/baseline
  seeds: [0]
evaluation:
  command: PY gpu_train.py
  source: eval
  episodes: 1
  seeds: [1000]
  held_out: evaluation seeds start at 1000; training seeds stay below it
YAML
cat > .rlxp/adapter.yaml <<YAML
schema: rlxp.adapter/v1
project: gpu-check
commands:
  train: "$py gpu_train.py --seed {seed} --out {run_dir} {params}"
config:
  override: "--{name} {value}"
metrics:
  sources:
    train: {path: "{run_dir}/progress.csv", format: csv}
    eval: {path: "{run_dir}/eval.jsonl", format: jsonl}
runtime:
  python: $py
  imports: [torch]
YAML
git add -A && git commit -qm init

step() { # name, command...
  local name=$1; shift
  { printf '$'; printf ' %q' "$@"; printf '\n'; "$@"; echo "[exit $?]"; } >"$out/$name.txt" 2>&1
}
step approve-contract "$rlxp" contract approve --all --yes --by gpu-check
step experiment-add "$rlxp" experiment add fast --param lr=0.05 --seeds 0 --wall-clock 1m
step experiment-approve "$rlxp" experiment approve fast --yes --by gpu-check
git add -A && git commit -qm approved

nvidia-smi --query-gpu=index,uuid,name,memory.total,memory.used,utilization.gpu --format=csv,noheader,nounits >"$out/query-gpu-idle.csv"
step check-idle "$rlxp" check fast

# The holder writes a ready file where another user may write too.
ready_dir=$(mktemp -d /tmp/gpu-ready.XXXXXX)
chmod 1777 "$ready_dir"
hold() { # uid-wrapper...: start a GPU holder and wait for its ready file
  rm -f "$ready_dir/ready"
  "$@" "$py" "$repo/hold_gpu.py" "$ready_dir/ready" &
  holder=$!
  for _ in $(seq 600); do [[ -e $ready_dir/ready ]] && return 0; kill -0 $holder 2>/dev/null || return 1; sleep 0.1; done
  return 1
}
if hold env; then
  nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv,noheader,nounits >"$out/sameuser-query-apps.csv"
  step check-sameuser "$rlxp" check fast
  kill $holder; wait $holder 2>/dev/null
fi
chmod 755 "$repo"; chmod 644 "$repo/hold_gpu.py"
if hold setpriv --reuid=65534 --regid=65534 --clear-groups; then
  nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv,noheader,nounits >"$out/foreign-query-apps.csv"
  step check-foreign "$rlxp" check fast
  step launch-foreign "$rlxp" launch fast --confirm 000000000000
  kill $holder; wait $holder 2>/dev/null
fi

digest=$("$rlxp" launch fast --json 2>/dev/null | "$py" -c 'import json,sys; print(json.load(sys.stdin)["digest"])' 2>/dev/null)
step launch "$rlxp" launch fast --confirm "$digest"
for _ in $(seq 300); do
  "$rlxp" status fast --json 2>/dev/null | grep -q '"state": "running"' || break
  nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_memory --format=csv,noheader,nounits >"$out/launched-query-apps.csv"
  sleep 0.5
done
step status-finished "$rlxp" status fast
step score "$rlxp" score fast
cp .rlxp/runs/*/run.json "$out/run.json" 2>/dev/null
cp .rlxp/runs/*/log "$out/run.log" 2>/dev/null
rm -rf "$ready_dir"
echo "recorded in $out (repo $repo)"
