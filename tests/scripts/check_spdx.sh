#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# licence.spdx: every source, script and CMake file of the tree carries an SPDX line in its first 5
# lines (LICENSE at the top level says which licence: Apache-2.0). Files are listed by git when the
# tree is a checkout, else found by name (a source tarball). Test data and fuzz corpora are exempt.
set -euo pipefail
top=${1:-$(dirname "$0")/../..}
cd "$top"
[ -f LICENSE ] || { echo "LICENSE is missing at the top level"; exit 1; }
grep -q 'Apache License' LICENSE || { echo "LICENSE is not the Apache License"; exit 1; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  list() { git ls-files --cached --others --exclude-standard; }
else
  list() { find . -type f -not -path './build*' -not -path './.git/*' | sed 's|^\./||'; }
fi
missing=$(list | grep -vE '^(tests/data/|tests/fuzz/corpus)' |
  grep -E '\.(c|cc|h|hpp|py|pyi|sh|cmake|in|map)$|(^|/)CMakeLists\.txt$|^\.ci/run$' |
  while read -r f; do
    [ -f "$f" ] || continue
    head -5 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0' || echo "$f"
  done)
if [ -n "$missing" ]; then
  echo "files without 'SPDX-License-Identifier: Apache-2.0' in their first 5 lines:"
  echo "$missing"
  exit 1
fi
echo "licence.spdx: every source file carries the SPDX line"
