#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Row-group pruning over many Parquet files with one `simdbloom parquet --keys` call (FilterSet:
# every key against every row group's split-block filter), on files written by the tests' Parquet
# writer (tests/cli/parquet_writer.py: an INT64 column `id` with a Bloom filter per row group).
#   perf/parquet_prune.sh [BUILD_DIR] [FILES] [ROW_GROUPS_PER_FILE] [KEYS]
# Default: build, 125 files x 8 row groups (1,000 filters of 1 KiB), 10,000 keys of which 1% are
# in some row group. The files are written once into a temporary folder, then the command runs 5
# times on the warm files; prints the best and median wall time and ns per (key, row group).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
files=${2:-125}
groups=${3:-8}
keys=${4:-10000}
bin=$build/lib/cli/simdbloom
[ -x "$bin" ] || { echo "$0: no $bin (cmake --build $build --target simdbloom-cli)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp" "$files" "$groups" "$keys" "$here/../tests/cli" <<'PY'
import random, sys
out, files, groups, keys, writer = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
sys.path.insert(0, writer)
import parquet_writer as T
rows = 100
columns = [("id", T.INT64)]
for f in range(files):
    gs = [[[((f * groups + g) * rows + i) * 7 for i in range(rows)]] for g in range(groups)]
    with open("%s/part%04d.parquet" % (out, f), "wb") as fp:
        fp.write(T.write_parquet(columns, gs, {"id"}))
rnd = random.Random(1)
total = files * groups * rows
with open(out + "/keys.txt", "w") as fp:
    for i in range(keys):
        hit = rnd.random() < 0.01
        fp.write("%d\n" % (rnd.randrange(total) * 7 if hit else rnd.randrange(total) * 7 + 3))
PY
grep -m1 'model name' /proc/cpuinfo || true
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
times=()
for run in 1 2 3 4 5 6; do
  start=$(date +%s.%N)
  "$bin" parquet --keys "$tmp/keys.txt" --column id -c "$tmp"/part*.parquet > "$tmp/counts.txt"
  end=$(date +%s.%N)
  [ "$run" = 1 ] || times+=("$(echo "$end - $start" | bc -l)")  # the first run warms the cache
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
row_groups=$(wc -l < "$tmp/counts.txt")
printf '%s\n' "${times[@]}" | sort -n | awk -v rg="$row_groups" -v k="$keys" '
  { t[NR] = $1 } END {
    printf "%d files, %d row groups, %d keys: best %.4f s, median %.4f s; %.2f ns per (key, row group) (best)\n",
      '"$files"', rg, k, t[1], t[int((NR + 1) / 2)], t[1] * 1e9 / (rg * k) }'
awk -F'\t' '{ s += $3 } END { printf "row groups that may hold a key: %d key matches in all\n", s }' "$tmp/counts.txt"
