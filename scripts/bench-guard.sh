#!/usr/bin/env bash
# Start-up as the hosts pay it: a new guard process before every tool call,
# its payload on stdin, and `rlxp contract status --json`, each paired with
# an empty static Go binary run right before it (A B A B ...), printing the
# time ratio of each pair. The hook binary rlxp-guard (next to BIN) and
# `rlxp guard` run on the same payloads in adjacent rows, after a check that
# both give the same exit status, stdout and stderr on each. Payloads are
# real hook inputs (Claude Code and Codex shapes): outside any .rlxp/ tree
# (the fast path) and in the example repo, allowed and refused. /bin/true
# and `rlxp --version` show the floor and rlxp's bare start-up. rlxp is the
# front (docs/performance.md): contract status is timed through it and
# through rlxp-core (beside BIN) after a check that both answer alike, and
# a command the front hands over (help exit-codes) shows what the one extra
# exec costs against rlxp-core run directly.
#   bash scripts/bench-guard.sh BIN [RUNS]
# GO_EMPTY names a prebuilt empty static Go binary; otherwise go builds one.
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
hook=$(dirname "$bin")/rlxp-guard
core=$(dirname "$bin")/rlxp-core
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

[ -x "$hook" ] || { echo "bench-guard: no $hook (make build builds it next to rlxp)" >&2; exit 1; }
[ -x "$core" ] || { echo "bench-guard: no $core (make build builds it next to rlxp)" >&2; exit 1; }
# The core remembers the state files' schema verdicts, which the front
# needs to answer alone; then both must print the same.
set +e
"$core" contract status --json --root "$repo" >"$work/status.core.out"
"$bin" contract status --json --root "$repo" >"$work/status.front.out"
set -e
cmp -s "$work/status.core.out" "$work/status.front.out" ||
  { echo "bench-guard: rlxp and rlxp-core differ on contract status --json" >&2; exit 1; }
cat >"$work/ask.json" <<JSON
{"session_id":"8f0c6a1e-2c1b-4a51-9d0e-3f9a8d4b7c21","cwd":"$repo","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rlxp launch lr-3e-3 --confirm sha256:0f3c"},"tool_use_id":"toolu_01ASK"}
JSON
for p in outside allow write deny-adapter deny-codex ask; do
  set +e
  "$bin" guard <"$work/$p.json" >"$work/$p.main.out" 2>"$work/$p.main.err"
  echo $? >"$work/$p.main.rc"
  "$hook" <"$work/$p.json" >"$work/$p.hook.out" 2>"$work/$p.hook.err"
  echo $? >"$work/$p.hook.rc"
  set -e
  for f in rc out err; do
    cmp -s "$work/$p.main.$f" "$work/$p.hook.$f" ||
      { echo "bench-guard: 'rlxp guard' and rlxp-guard differ on $p.json ($f)" >&2; exit 1; }
  done
done

# The hook as the hosts run it: the plugin's shim (scripts/rlxp guard).
mkdir -p "$work/plugin/scripts" "$work/plugin/bin"
cp "$here/plugins/rl-experiment-assistant/scripts/rlxp" "$work/plugin/scripts/rlxp"
cp "$bin" "$hook" "$work/plugin/bin/"

echo "rlxp $("$bin" --version | cut -d' ' -f2), $("$go" version 2>/dev/null | cut -d' ' -f3 || echo 'prebuilt go-empty')"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "binaries: rlxp $(wc -c <"$bin") bytes, rlxp-core $(wc -c <"$core") bytes, rlxp-guard $(wc -c <"$hook") bytes, empty $(wc -c <"$empty") bytes"
"$py" "$here/scripts/bench/paired.py" "$runs" "$empty" \
  "/bin/true=-=$work/allow.json=/bin/true" \
  "rlxp --version=0=-=$bin --version" \
  "rlxp-core --version=0=-=$core --version" \
  "guard fast path: rlxp guard=0=$work/outside.json=$bin guard" \
  "guard fast path: rlxp-guard=0=$work/outside.json=$hook" \
  "guard allow: rlxp guard=0=$work/allow.json=$bin guard" \
  "guard allow: rlxp-guard=0=$work/allow.json=$hook" \
  "guard allow Edit: rlxp guard=0=$work/write.json=$bin guard" \
  "guard allow Edit: rlxp-guard=0=$work/write.json=$hook" \
  "guard deny adapter: rlxp guard=2=$work/deny-adapter.json=$bin guard" \
  "guard deny adapter: rlxp-guard=2=$work/deny-adapter.json=$hook" \
  "guard deny torchrun: rlxp guard=2=$work/deny-codex.json=$bin guard" \
  "guard deny torchrun: rlxp-guard=2=$work/deny-codex.json=$hook" \
  "guard allow: shim, rlxp-guard=0=$work/allow.json=$work/plugin/scripts/rlxp guard" \
  "contract status --json: rlxp=-=-=$bin contract status --json --root $repo" \
  "contract status --json: rlxp-core=-=-=$core contract status --json --root $repo" \
  "handed over: rlxp help exit-codes=0=-=$bin help exit-codes" \
  "direct: rlxp-core help exit-codes=0=-=$core help exit-codes"
