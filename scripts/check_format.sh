#!/usr/bin/env bash
# Checks that every C++ file of the tree is formatted as .clang-format says
# (clang-format --dry-run --Werror): src/ include/ tools/ tests/ python/src/
# examples/ fixtures/. Lists what git tracks and the new files it does not
# ignore (checked before their first commit); outside a git checkout, what is
# on disk. Prints the files to fix (`clang-format -i FILE...`) and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

dirs=(src include tools tests python/src examples fixtures)
existing=()
for d in "${dirs[@]}"; do [[ -d $d ]] && existing+=("$d"); done

files=()
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard -- \
    "${existing[@]/%//*.h}" "${existing[@]/%//*.cpp}" | sort)
else
  mapfile -t files < <(find "${existing[@]}" -type f \( -name '*.h' -o -name '*.cpp' \) | sort)
fi

# Batches of files on every core; a batch that fails is checked file by file
# to name the files to fix.
check_batch='clang-format --dry-run --Werror "$@" >/dev/null 2>&1 ||
  for f; do clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || echo "$f"; done'
mapfile -t unformatted < <(printf '%s\0' "${files[@]}" |
  xargs -0 -n 24 -P "$(nproc)" sh -c "$check_batch" check_format | sort)

if ((${#unformatted[@]} > 0)); then
  echo "check_format: ${#unformatted[@]} of ${#files[@]} files are not formatted; run:" >&2
  echo "  clang-format -i ${unformatted[*]}" >&2
  exit 1
fi
echo "check_format: ${#files[@]} files formatted"
