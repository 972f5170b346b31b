#!/usr/bin/env bash
# Start-up as the hosts pay it: a new `rlxp guard` process before every
# tool call, its payload on stdin, and `rlxp contract status --json`, each
# paired with an empty static Go binary run right before it (A B A B ...),
# printing the time ratio of each pair side by side. Payloads are real hook
# inputs (Claude Code and Codex shapes) for the example repo, allowed and
# refused. /bin/true and `rlxp --version` show the floor and rlxp's bare
# start-up.
#   bash scripts/bench-guard.sh BIN [RUNS]
# GO_EMPTY names a prebuilt empty static Go binary; otherwise go builds one.
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
cp "$here/examples/drafts/cartpole/adapter.yaml" "$here/examples/drafts/cartpole/contract.yaml" "$work/repo/.rlxp/"

empty=${GO_EMPTY:-}
if [ -z "$empty" ]; then
  mkdir "$work/empty"
  printf 'package main\n\nfunc main() {}\n' >"$work/empty/main.go"
  (cd "$work/empty" && "$go" mod init empty >/dev/null 2>&1 && CGO_ENABLED=0 "$go" build -trimpath -ldflags '-s -w' -o "$work/go-empty" .)
  empty=$work/go-empty
fi

repo=$work/repo
cat >"$work/allow.json" <<JSON
{"session_id":"8f0c6a1e-2c1b-4a51-9d0e-3f9a8d4b7c21","transcript_path":"$HOME/.claude/projects/-repo/8f0c6a1e-2c1b-4a51-9d0e-3f9a8d4b7c21.jsonl","cwd":"$repo","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rlxp check lr-3e-3 --json | jq .verdict && git log --oneline -5 -- train.py | grep -i lr","description":"Check whether the experiment may run","timeout":120000,"run_in_background":false},"tool_use_id":"toolu_01ABC123DEF456"}
JSON
cat >"$work/outside.json" <<JSON
{"session_id":"8f0c6a1e-2c1b-4a51-9d0e-3f9a8d4b7c21","transcript_path":"$HOME/.claude/projects/-tmp/8f0c6a1e.jsonl","cwd":"/","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la && git status","description":"List","timeout":120000,"run_in_background":false},"tool_use_id":"toolu_01ABC123DEF457"}
JSON
cat >"$work/deny-adapter.json" <<JSON
{"session_id":"8f0c6a1e-2c1b-4a51-9d0e-3f9a8d4b7c21","transcript_path":"$HOME/.claude/projects/-repo/8f0c6a1e-2c1b-4a51-9d0e-3f9a8d4b7c21.jsonl","cwd":"$repo","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cd $repo && CUDA_VISIBLE_DEVICES=0 nohup bash scripts/run.sh train configs/baseline.json --seed 0 --out runs/lr-3e-3/seed0 --set lr=0.003 > runs/lr-3e-3/seed0.log 2>&1 &","description":"Start training","timeout":120000,"run_in_background":false},"tool_use_id":"toolu_01XYZ"}
JSON
cat >"$work/deny-codex.json" <<JSON
{"session_id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","turn_id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a60","transcript_path":null,"cwd":"$repo","hook_event_name":"PreToolUse","model":"gpt-5-codex","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"bash -lc 'source .venv/bin/activate && torchrun --nproc_per_node 2 train.py --lr 3e-3'"},"tool_use_id":"call_k3J9x2"}
JSON
cat >"$work/write.json" <<JSON
{"session_id":"8f0c6a1e-2c1b-4a51-9d0e-3f9a8d4b7c21","transcript_path":"$HOME/.claude/projects/-repo/8f0c6a1e.jsonl","cwd":"$repo","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"$repo/train.py","old_string":"lr = 1e-3","new_string":"lr = 3e-4"},"tool_use_id":"toolu_01EDIT"}
JSON

echo "rlxp $("$bin" --version | cut -d' ' -f2), $("$go" version 2>/dev/null | cut -d' ' -f3 || echo 'prebuilt go-empty')"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$py" "$here/scripts/bench/paired.py" "$runs" "$empty" \
  "/bin/true=-=$work/allow.json=/bin/true" \
  "rlxp --version=0=-=$bin --version" \
  "guard allow=0=$work/allow.json=$bin guard" \
  "guard allow (outside)=0=$work/outside.json=$bin guard" \
  "guard allow (Edit)=0=$work/write.json=$bin guard" \
  "guard deny (adapter)=2=$work/deny-adapter.json=$bin guard" \
  "guard deny (torchrun)=2=$work/deny-codex.json=$bin guard" \
  "contract status --json=-=-=$bin contract status --json --root $repo"
