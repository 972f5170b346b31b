#!/usr/bin/env bash
# Benchmark the guard hook as the hosts run it: a new `rlxp guard` process
# per shell command, its payload on stdin. Payloads are real hook inputs
# (Claude Code and Codex shapes) for the example repo, allowed and refused,
# next to references that read the same stdin: /bin/true, jq -e . (parse
# only; when jq is installed), an empty Go program (the Go runtime's start-up
# on this machine; when go is installed) and `rlxp --version` (rlxp's own
# start-up, without the guard).
#   bash scripts/bench-guard.sh BIN [RUNS]
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
runs=${2:-200}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
py=${PYTHON:-python3}
go=${GO:-go}

work=$(mktemp -d "${TMPDIR:-/tmp}/rlxp-bench-guard.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -R "$here/examples/cartpole" "$work/repo"
"$bin" init --root "$work/repo" >/dev/null
cp "$here/examples/drafts/cartpole/adapter.yaml" "$work/repo/.rlxp/"

repo=$work/repo
cat >"$work/allow.json" <<JSON
{"session_id":"8f0c6a1e-2c1b-4a51-9d0e-3f9a8d4b7c21","transcript_path":"$HOME/.claude/projects/-repo/8f0c6a1e-2c1b-4a51-9d0e-3f9a8d4b7c21.jsonl","cwd":"$repo","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rlxp check lr-3e-3 --json | jq .verdict && git log --oneline -5 -- train.py | grep -i lr","description":"Check whether the experiment may run","timeout":120000,"run_in_background":false},"tool_use_id":"toolu_01ABC123DEF456"}
JSON
cat >"$work/deny-adapter.json" <<JSON
{"session_id":"8f0c6a1e-2c1b-4a51-9d0e-3f9a8d4b7c21","transcript_path":"$HOME/.claude/projects/-repo/8f0c6a1e-2c1b-4a51-9d0e-3f9a8d4b7c21.jsonl","cwd":"$repo","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cd $repo && CUDA_VISIBLE_DEVICES=0 nohup bash scripts/run.sh train configs/baseline.json --seed 0 --out runs/lr-3e-3/seed0 --set lr=0.003 > runs/lr-3e-3/seed0.log 2>&1 &","description":"Start training","timeout":120000,"run_in_background":false},"tool_use_id":"toolu_01XYZ"}
JSON
cat >"$work/deny-codex.json" <<JSON
{"session_id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","turn_id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a60","transcript_path":null,"cwd":"$repo","hook_event_name":"PreToolUse","model":"gpt-5-codex","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"bash -lc 'source .venv/bin/activate && torchrun --nproc_per_node 2 train.py --lr 3e-3'"},"tool_use_id":"call_k3J9x2"}
JSON

refs=("/bin/true=-=$work/allow.json=/bin/true")
if command -v "$go" >/dev/null; then
  mkdir "$work/empty"
  printf 'package main\n\nfunc main() {}\n' >"$work/empty/main.go"
  (cd "$work/empty" && "$go" mod init empty >/dev/null 2>&1 && CGO_ENABLED=0 "$go" build -trimpath -ldflags '-s -w' -o "$work/go-empty" .)
  refs+=("go-empty=-=$work/allow.json=$work/go-empty")
fi
command -v jq >/dev/null && refs+=("jq -e .=-=$work/allow.json=jq -e .")

echo "rlxp $("$bin" --version | cut -d' ' -f2), $("$go" version 2>/dev/null | cut -d' ' -f3 || true), $(jq --version 2>/dev/null || echo 'no jq')"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$py" "$here/scripts/bench/guard.py" "$runs" "${refs[@]}" \
  "rlxp --version=-=$work/allow.json=$bin --version" \
  "guard allow=0=$work/allow.json=$bin guard" \
  "guard deny (adapter)=2=$work/deny-adapter.json=$bin guard" \
  "guard deny (torchrun)=2=$work/deny-codex.json=$bin guard"
