#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The simdbloom command against `wc -l` on one file of URLs with a warm page cache (issue 21's
# goal: build and query within 1.5x of wc -l, single-threaded).
#   perf/cli_bench.sh [path/to/simdbloom] [MiB of input, default 1024] [runs, default 3]
# Writes the input to $TMPDIR (default /tmp; removed afterwards), reads it once to warm the cache,
# then times each command `runs` times and reports the best (wall seconds, GB/s, ratio to wc -l).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$src/build/lib/cli/simdbloom}
mib=${2:-1024}
runs=${3:-3}
py=/usr/bin/python3
[ -x "$py" ] || py=python3
dir=$(mktemp -d "${TMPDIR:-/tmp}/simdbloom-cli-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
input=$dir/urls.txt
"$py" - "$input" "$mib" <<'PY'
import sys
path, mib = sys.argv[1], int(sys.argv[2])
# URL-like lines of 40..90 bytes (mean ~64); one template chunk, made distinct per chunk.
chunk = b"".join(b"https://www.site%03d.example.com/XXXXXXXX/%s/%07d.html\n"
                 % (i % 997, b"path/to/page"[: i % 13], i) for i in range(15000))
with open(path, "wb") as f:
    written, c = 0, 0
    while written < mib << 20:
        piece = chunk.replace(b"XXXXXXXX", b"%08x" % c)
        f.write(piece)
        written += len(piece)
        c += 1
PY
bytes=$(stat -c %s "$input")
lines=$(wc -l < "$input")
cat "$input" > /dev/null
echo "input: $((bytes >> 20)) MiB, $lines lines (mean $((bytes / lines)) bytes), $(nproc) CPUs:" \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
echo "simdbloom: $("$bin" --version)"

best() {  # best wall time of $runs runs of "$@" (stdout discarded)
  local b="" t0 t1 t
  for _ in $(seq "$runs"); do
    t0=$(date +%s.%N)
    "$@" > /dev/null 2>&1
    t1=$(date +%s.%N)
    t=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
  done
  echo "$b"
}
report() {  # name seconds
  printf '%-44s %7.3f s  %5.2f GB/s  %5.2fx wc -l\n' "$1" "$2" \
    "$(echo "$bytes / $2 / 1000000000" | bc -l)" "$(echo "$2 / $wc" | bc -l)"
}
wc=$(best wc -l "$input")
report "wc -l" "$wc"
report "build -n N (block512, 1%)" "$(best "$bin" build -n "$lines" -o "$dir/f.sbf" "$input")"
report "build (lines counted in a first pass)" "$(best "$bin" build -o "$dir/f.sbf" "$input")"
report "build -n N --threads 2" \
  "$(best "$bin" build -n "$lines" --threads 2 -o "$dir/f2.sbf" "$input")"
report "query --count (every line present)" "$(best "$bin" query --count "$dir/f.sbf" "$input")"
report "query (prints every line)" "$(best "$bin" query "$dir/f.sbf" "$input")"
report "query --count --threads 2" \
  "$(best "$bin" query --count --threads 2 "$dir/f.sbf" "$input")"
report "dedup -n N (prints every line)" "$(best "$bin" dedup -n "$lines" "$input")"
