#!/usr/bin/env bash
# The start-up floors rlxp's dependencies set: for each, a program that only
# imports it (package main; import _ "X"; func main() {}), built as rlxp is
# (CGO_ENABLED=0 -trimpath -ldflags '-s -w'), timed against an empty static
# Go binary as paired runs (A B A B ...; scripts/bench/paired.py). "rlxp's
# imports" links everything rlxp's packages import (rlxp-core's), "rlxp's
# front imports" what the front binary (rlxp) links; the last rows are
# rlxp's imports with vbauerster/mpb/v8 in place of schollz/progressbar/v3,
# when the Go proxy (or the module cache) serves it. With BIN, `rlxp --version` (no command
# table, no state read) closes the table.
#   bash scripts/bench-floors.sh [BIN] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${1:-}
runs=${2:-100}
py=${PYTHON:-python3}
go=${GO:-go}

work=$(mktemp -d "${TMPDIR:-/tmp}/rlxp-bench-floors.XXXXXX")
trap 'rm -rf "$work"' EXIT
sed 's|^module .*|module floors|' "$here/go.mod" >"$work/go.mod"
cp "$here/go.sum" "$work/go.sum"

# Every package outside the module that rlxp's own packages import (the
# whole command line, rlxp-core), and those the front (rlxp) imports.
imports() {
  (cd "$here" && "$go" list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' "$1" |
    grep -v '^github.com/rlxp/rlxp' | grep -v '/internal/' | grep -v '/internal$' | sort)
}
deps=$(imports ./cmd/rlxp-core)
front_deps=$(imports ./cmd/rlxp)

prog() { # NAME IMPORT...
  local name=$1
  shift
  mkdir -p "$work/$name"
  { echo 'package main'; for i in "$@"; do echo "import _ \"$i\""; done; echo 'func main() {}'; } >"$work/$name/main.go"
}
prog empty
prog encoding_json encoding/json
prog net_http net/http
prog pflag github.com/spf13/pflag
prog gocsv github.com/gocarina/gocsv
prog protowire google.golang.org/protobuf/encoding/protowire
prog go_yaml github.com/goccy/go-yaml
prog sh_syntax mvdan.cc/sh/v3/syntax
prog progressbar github.com/schollz/progressbar/v3
prog gojsonschema github.com/xeipuuv/gojsonschema
# shellcheck disable=SC2086
prog rlxp_imports $deps
# shellcheck disable=SC2086
prog rlxp_front_imports $front_deps
rows=(empty encoding_json net_http pflag gocsv protowire go_yaml sh_syntax progressbar gojsonschema rlxp_imports rlxp_front_imports)
if (cd "$work" && GOFLAGS=-mod=mod "$go" get github.com/vbauerster/mpb/v8@v8.16.2 >/dev/null 2>&1); then
  prog mpb github.com/vbauerster/mpb/v8
  # shellcheck disable=SC2086
  prog rlxp_imports_mpb $(echo "$deps" | grep -v -e '^github.com/schollz/progressbar' -e '^github.com/mitchellh/colorstring') github.com/vbauerster/mpb/v8
  rows+=(mpb rlxp_imports_mpb)
else
  echo "bench-floors: github.com/vbauerster/mpb/v8 not available; its rows are left out" >&2
fi
for r in "${rows[@]}"; do
  (cd "$work" && CGO_ENABLED=0 GOFLAGS=-mod=mod "$go" build -trimpath -ldflags '-s -w' -o "bin/$r" "./$r")
done

echo "$("$go" version | cut -d' ' -f3), machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
args=()
for r in "${rows[@]}"; do printf '%s %d KiB; ' "$r" $(($(wc -c <"$work/bin/$r") / 1024)); done
echo
for r in "${rows[@]:1}"; do args+=("$r=0=-=$work/bin/$r"); done
if [ -n "$bin" ]; then
  args+=("rlxp --version=0=-=$bin --version")
  core=$(dirname "$bin")/rlxp-core
  [ -x "$core" ] && args+=("rlxp-core --version=0=-=$core --version")
fi
"$py" "$here/scripts/bench/paired.py" "$runs" "$work/bin/empty" "${args[@]}"
