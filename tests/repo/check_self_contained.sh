#!/usr/bin/env bash
# Fails when a tracked file names the workplace's shared folder (the one beside the clone) or an
# absolute home or work path: a clone in any empty folder must build, test and run on its own.
# Usage: check_self_contained.sh REPO_ROOT
set -euo pipefail
root=${1:?usage: check_self_contained.sh REPO_ROOT}
cd "$root"
# Spelled in pieces so that no grep of the tree (this one or a hook's) matches this file.
shared='\.\./'"shared"
absolute='/(wo''rk|ho''me|ro''ot)/[A-Za-z]'
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  hits=$(git grep -nIE "$shared|$absolute" -- . ':!tests/repo/check_self_contained.sh' || true)
else
  hits=$(grep -rnIE --exclude-dir=build --exclude-dir=.git --exclude=check_self_contained.sh \
    "$shared|$absolute" . || true)
fi
if [ -n "$hits" ]; then
  echo "tracked files name the shared folder beside the clone or an absolute machine path" \
    "(copy the data into the repository, with its provenance):"
  echo "$hits"
  exit 1
fi
echo "self-contained: no tracked file names the shared folder or an absolute home/work path"
