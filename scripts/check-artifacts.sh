#!/usr/bin/env bash
# Fails when a tracked file is a build artifact: an executable (ELF or
# Mach-O), or a file over 1 MB outside a testdata/ directory. Build outputs
# belong in .gitignore'd places (bin/, dist/) and are made on demand.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
limit=$((1024 * 1024))
bad=0
while IFS= read -r -d '' f; do
  [[ -f $f && ! -L $f ]] || continue
  magic=$(head -c 4 -- "$f" | od -An -tx1 | tr -d ' \n')
  case $magic in
  7f454c46) echo "check-artifacts: $f: an ELF executable is committed; build it on demand instead" >&2; bad=1; continue ;;
  feedface | feedfacf | cefaedfe | cffaedfe | cafebabe) echo "check-artifacts: $f: a Mach-O executable is committed; build it on demand instead" >&2; bad=1; continue ;;
  esac
  case /$f in
  */testdata/*) continue ;;
  esac
  size=$(stat -c %s -- "$f" 2>/dev/null || stat -f %z -- "$f")
  if ((size > limit)); then
    echo "check-artifacts: $f: $size bytes (over 1 MB outside testdata/); generate it, or move test inputs under testdata/" >&2
    bad=1
  fi
done < <(git ls-files -z)
exit "$bad"
