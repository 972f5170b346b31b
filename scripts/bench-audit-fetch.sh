#!/usr/bin/env bash
# Fetch the repositories of the audit's accuracy benchmark into DIR, one
# work tree per repository at the commit bench/audit-accuracy/facts.yaml
# pins, named as there. A repository already in DIR is left as it is.
#
#   bash scripts/bench-audit-fetch.sh DIR [MIRRORS [BATCH]]
#
# MIRRORS, when given, is a directory of bare git directories named
# OWNER+NAME/repo (or OWNER+NAME) to export from instead of cloning; a
# blob missing from a partial clone is left out. Without it each
# repository is cloned from its URL (blobless) and checked out at its
# commit. A repository that cannot be had is skipped with a message.
# BATCH (unseen-6, unseen-7, ...) fetches only that batch's repositories ("" for
# MIRRORS clones them).
set -euo pipefail
[[ $# -ge 1 ]] || { echo "usage: bash scripts/bench-audit-fetch.sh DIR [MIRRORS [BATCH]]" >&2; exit 2; }
dir=$1
mirrors=${2:-}
batch=${3:-}
facts=$(dirname "$0")/../bench/audit-accuracy/facts.yaml
mkdir -p "$dir"

# name url commit, one repository a line, of BATCH when given (a
# repository's batch line comes before its commit line).
list=$(awk -v want="$batch" '
  /^  - name:/ { name=$3; b="" }
  /^    batch:/ { b=$2 }
  /^    url:/ { url=$2 }
  /^    commit:/ { if (want == "" || b == want) print name, url, $2 }' "$facts")

export_tree() { # GITDIR COMMIT OUT
  git --git-dir="$1" ls-tree -r -z "$2" | python3 "$(dirname "${BASH_SOURCE[0]}")/bench/export_tree.py" "$1" "$3"
}

while read -r name url commit; do
  out=$dir/$name
  if [[ -d $out ]]; then
    echo "have $name"
    continue
  fi
  slug=${url#https://github.com/}
  gitdir=
  if [[ -n $mirrors ]]; then
    for g in "$mirrors/${slug/\//+}/repo" "$mirrors/${slug/\//+}"; do
      [[ -f $g/HEAD ]] && { gitdir=$g; break; }
    done
  fi
  tmp=$(mktemp -d "$dir/.fetch.XXXXXX")
  if [[ -z $gitdir ]]; then
    if ! git clone -q --bare --filter=blob:none "$url" "$tmp/git" 2>/dev/null; then
      echo "skip $name: cannot clone $url" >&2
      rm -rf "$tmp"
      continue
    fi
    gitdir=$tmp/git
  fi
  if ! git --git-dir="$gitdir" cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "skip $name: commit $commit not in $gitdir" >&2
    rm -rf "$tmp"
    continue
  fi
  mkdir "$tmp/tree"
  export_tree "$gitdir" "$commit" "$tmp/tree"
  mv "$tmp/tree" "$out"
  rm -rf "$tmp"
  echo "got  $name at $commit"
done <<<"$list"
