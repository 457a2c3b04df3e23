#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Cross-builds simdbloom for aarch64 and runs the equivalence suite under qemu-user at several vector
# widths: NEON only, SVE 128-bit, SVE 256-bit and SVE 512-bit. Each width must actually run the target
# it names (SIMDBLOOM_TEST_REQUIRE turns "not supported" into a failure instead of a skip).
#   cmake/cross-aarch64.sh [--install-deps] [build-dir]
set -euo pipefail
if [ "${1:-}" = "--install-deps" ]; then
  shift
  dpkg --add-architecture arm64
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++-aarch64-linux-gnu qemu-user \
    libhwy-dev:arm64 libxxhash-dev:arm64 doctest-dev cmake >/dev/null
fi
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-aarch64}
cmake -S "$src" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DSIMDBLOOM_BUILD_TESTS=ON -DSIMDBLOOM_BUILD_PERF=OFF -DSIMDBLOOM_BUILD_CLI=OFF \
  -DSIMDBLOOM_BUILD_SHARED=OFF -DSIMDBLOOM_INSTALL=OFF >/dev/null
# Only the executables the runs below start (the documentation examples and the shared library are
# checked natively; building them here cost CI about 15 s).
cmake --build "$build" -j"$(nproc)" --target simdbloom_tests simdbloom_c_test \
  simdbloom_c_kinds_test simdbloom_c_api_oracle_test simdbloom_one_key_baseline

run() {  # QEMU_CPU value, then the targets that must pass at that width
  local cpu=$1; shift
  local targets
  targets=$(IFS='|'; echo "$*")
  echo "== qemu-aarch64 -cpu $cpu: equivalence of $*; api, format, shapes (every target), cpu"
  echo "   detection, C API, env and one-key tests"
  # One ctest run per width, on every core (each test is one qemu process).
  QEMU_CPU=$cpu SIMDBLOOM_TEST_REQUIRE=1 ctest --test-dir "$build" --output-on-failure \
    -j"$(nproc)" -R "^(equivalence\.($targets)|api|format|shapes|cpu|c_api|c_api\.kinds|c_api\.oracle|env\..*|one_key\..*)\$"
}
# NEON's code does not depend on the SVE vector length: its equivalence runs at the first width only.
run "max,sve=off" NEON
run "max,sve128=on" SVE2_128 SVE2 SVE
run "max,sve256=on" SVE_256 SVE2
run "max,sve512=on" SVE2 SVE
echo "aarch64: all widths passed"
