#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Guava's own BloomFilter against simdbloom's guava layout, on the same keys in the same run.
#   perf/guava_bench.sh [BUILD_DIR] [--keys N[,N...]] [--fpp P] [--min-seconds S]
# Compiles perf/guava/GuavaBench.java against Debian's libguava-java (packages
# default-jdk-headless libguava-java), runs it (a warmed-up JVM: put/mightContain loops over
# Funnels.longFunnel()) and BUILD_DIR/perf/simdbloom-bench --only guava --json on the same
# SplitMix64 keys, then prints one table: ns per key of each, how many times faster simdbloom is
# (bulk and one key per call), guava against classic, and the false-positive rates (Guava's and
# ours are equal by construction: same bits, same answers). Default: build, 1e5,1e7 keys, fpp 0.01.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then
  build=$1
  shift
fi
keys=100000,10000000
fpp=0.01
min_seconds=0.2
while [ $# -gt 0 ]; do
  case $1 in
    --keys) keys=$2; shift 2 ;;
    --fpp) fpp=$2; shift 2 ;;
    --min-seconds) min_seconds=$2; shift 2 ;;
    *) echo "usage: $0 [BUILD_DIR] [--keys N[,N...]] [--fpp P] [--min-seconds S]" >&2; exit 2 ;;
  esac
done
jar=/usr/share/java/guava.jar
if ! command -v javac >/dev/null || [ ! -f "$jar" ]; then
  echo "$0: needs javac and $jar (apt-get install -y default-jdk-headless libguava-java)" >&2
  exit 2
fi
bench=$build/perf/simdbloom-bench
if [ ! -x "$bench" ]; then
  echo "$0: no $bench (cmake --build $build --target simdbloom-bench)" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
javac -cp "$jar" -d "$tmp" "$here/guava/GuavaBench.java"
grep -m1 'model name' /proc/cpuinfo || true
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
# The largest filter at 1e8 keys and fpp 0.1% is 180 MB; Guava boxes every key it is given.
java -Xmx8g -cp "$tmp:$jar" GuavaBench --keys "$keys" --fpp "$fpp" --min-seconds "$min_seconds" \
  > "$tmp/java.json"
"$bench" --only guava --json --keys "$keys" --fpp "$fpp" --min-seconds "$min_seconds" \
  > "$tmp/ours.json"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp/java.json" "$tmp/ours.json" <<'PY'
import json, sys
java = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    java[(r["keys"], r["op"])] = r
ours = {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    if r.get("bench") == "guava":
        ours[(r["keys"], r["layout"])] = r
sizes = sorted({k for k, _ in java})
print("ns per key; x = Guava's time / ours (higher is faster); target", end=" ")
print(next(iter(ours.values()))["target"] if ours else "?")
print(f"{'keys':>10} {'op':<9} {'Guava':>8} {'guava bulk':>11} {'x':>6} {'guava 1key':>11} "
      f"{'x':>6} {'guava32':>8} {'classic':>8} {'vs cls':>7}")
for n in sizes:
    g, g32, c = ours.get((n, "guava")), ours.get((n, "guava32")), ours.get((n, "classic"))
    if g is None:
        continue
    for op, jop in (("insert", "insert"), ("contains", "contains")):
        j = java[(n, jop)]["ns_per_key"]
        bulk, one = g[f"bulk_{op}_ns"], g[f"one_{op}_ns"]
        print(f"{n:>10} {op:<9} {j:8.2f} {bulk:11.2f} {j / bulk:6.1f} {one:11.2f} {j / one:6.1f} "
              f"{g32[f'bulk_{op}_ns']:8.2f} {c[f'bulk_{op}_ns']:8.2f} "
              f"{bulk / c[f'bulk_{op}_ns']:6.2f}x")
    jf = java[(n, "contains")]
    print(f"{'':>10} FPR at fpp {g['fpp_requested']}: Guava {jf['fpr_measured']:.5f} "
          f"({jf['bits']} bits), guava {g['fpr_measured']:.5f} ({g['bits']} bits, k {g['k']}, "
          f"predicted {g['fpr_predicted']:.5f}), classic {c['fpr_measured']:.5f}")
PY
