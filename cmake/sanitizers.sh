#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the library and the whole test suite with AddressSanitizer and UndefinedBehaviorSanitizer
# (gcc) and runs every test but the install check (install.*: they link uninstrumented consumers).
# Warnings are errors here (SIMDBLOOM_WERROR): CI's GCC build of the library, command and tests.
#   cmake/sanitizers.sh [build-dir]
# -O1 -g1: the sanitizers' recommended level with line tables for their reports; -O2 -g compiled
# the kernels 2.3x slower (UBSan's checks in the inlined pipelines). The x86 targets AVX3, AVX2 and
# the scalar fallback only: SSE4 compiles the same Highway templates at another width, and its
# equivalence with the reference is tested in the README's test run.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-asan}
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DSIMDBLOOM_BUILD_TESTS=ON -DSIMDBLOOM_WERROR=ON -DSIMDBLOOM_BUILD_PERF=OFF -DSIMDBLOOM_BUILD_SHARED=OFF \
  -DSIMDBLOOM_DISABLED_TARGETS="HWY_SSSE3;HWY_SSE4" >/dev/null
cmake --build "$build" -j"$(nproc)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir "$build" --output-on-failure -j"$(nproc)" -E '^install\.'
echo "sanitizers: ASan and UBSan runs passed"
