#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the library and tests with ThreadSanitizer and runs the concurrency tests (many writers
# with insert_concurrent, readers racing with them, parallel bulk calls): any data race fails.
#   cmake/tsan.sh [BUILD_DIR]   (default build-tsan)
# The SIMD query kernels read a filter's words with vector loads while insert_concurrent ORs them
# atomically; that race is by design (a word is read whole or not at all on every supported CPU, and
# bits only go from 0 to 1), so the query kernels do not record their reads under ThreadSanitizer
# (detail::ReadRaceScope, kernels/concurrency.h). Everything else (the single-key path, which reads with
# relaxed atomic loads, writers against writers, the pipeline's writes, thread start and join,
# counters) is checked.
# The threading code is the same for every SIMD target, so this build compiles the kernels for AVX2
# and the scalar fallback only (SIMDBLOOM_DISABLED_TARGETS): less than half the build.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-build-tsan}"
flags="-fsanitize=thread -fno-omit-frame-pointer"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
  -DSIMDBLOOM_BUILD_TESTS=ON -DSIMDBLOOM_BUILD_PERF=OFF -DSIMDBLOOM_BUILD_SHARED=OFF -DSIMDBLOOM_BUILD_CLI=OFF \
  -DSIMDBLOOM_DISABLED_TARGETS="HWY_SSSE3;HWY_SSE4;HWY_AVX3" >/dev/null
cmake --build "$build" -j"$(nproc)" --target simdbloom_tests
for run in 1 2 3; do  # races show up by chance: three runs catch more than one
  TSAN_OPTIONS="halt_on_error=1 history_size=7 second_deadlock_stack=1 suppressions=$src/cmake/tsan-suppressions.txt" \
    "$build/tests/simdbloom_tests" --test-case='concurrency:*'
done
echo "tsan: the concurrency tests ran race-free under ThreadSanitizer"
