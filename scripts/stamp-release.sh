#!/usr/bin/env bash
# stamp-release.sh vX.Y.Z CHECKSUMS: make the plugin follow a release. It
# writes the version (without the v) into both plugin manifests and the
# Claude Code marketplace entry, so the hosts' plugin update installs the new
# copy, and copies goreleaser's checksums.txt into the plugin, where the shim
# (scripts/rlxp) checks downloaded archives against it.
set -euo pipefail
usage() { echo "usage: stamp-release.sh vX.Y.Z dist/checksums.txt" >&2; exit 2; }
[[ $# == 2 ]] || usage
tag=$1 sums=$2
[[ $tag =~ ^v([0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]*)?)$ ]] || { echo "stamp-release: $tag: not a version tag (vX.Y.Z)" >&2; exit 2; }
version=${BASH_REMATCH[1]}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
plugin=plugins/rl-experiment-assistant
for os in linux darwin; do
  for arch in amd64 arm64; do
    grep -Eq "^[0-9a-f]{64}  rlxp_${version}_${os}_${arch}\.tar\.gz$" "$sums" ||
      { echo "stamp-release: $sums: no checksum for rlxp_${version}_${os}_${arch}.tar.gz" >&2; exit 1; }
  done
done
for f in "$plugin/.claude-plugin/plugin.json" "$plugin/.codex-plugin/plugin.json" .claude-plugin/marketplace.json; do
  # Each file has one "version" key (the plugin's); rewrite its value in place.
  n=$(grep -c '"version"[[:space:]]*:' "$f")
  [[ $n == 1 ]] || { echo "stamp-release: $f: want one \"version\" key, have $n" >&2; exit 1; }
  sed -i.bak -E "s/(\"version\"[[:space:]]*:[[:space:]]*\")[^\"]*\"/\1$version\"/" "$f" && rm -f "$f.bak"
done
grep -E "  rlxp_${version}_(linux|darwin)_(amd64|arm64)\.tar\.gz$" "$sums" >"$plugin/checksums.txt"
echo "stamp-release: plugin at $version; $plugin/checksums.txt records $(wc -l <"$plugin/checksums.txt") archives"
