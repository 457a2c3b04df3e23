#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer target (clang-14, -fsanitize=fuzzer,address,undefined, library instrumented
# too), replays the checked-in corpora, then fuzzes load/view/Parquet import (Filter, and the
# scalable, counting, shifting-set and spatial loaders) and the command's Parquet footer reader for
# a while each.
#   cmake/fuzz.sh [--install-deps] [build-dir] [seconds]
# The loaders and the footer reader are not per-target code: the kernels are compiled for AVX2 and
# the scalar fallback only (SIMDBLOOM_DISABLED_TARGETS), and the command is not built. Warnings
# are errors here (SIMDBLOOM_WERROR): CI's Clang build of the library.
set -euo pipefail
if [ "${1:-}" = "--install-deps" ]; then
  shift
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-14 libclang-rt-14-dev cmake make \
    libhwy-dev libxxhash-dev >/dev/null
fi
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-fuzz}
seconds=${2:-60}
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
flags="$flags -fsanitize=fuzzer-no-link"
CC=clang-14 CXX=clang++-14 cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DSIMDBLOOM_BUILD_TESTS=OFF \
  -DSIMDBLOOM_BUILD_PERF=OFF -DSIMDBLOOM_INSTALL=OFF -DSIMDBLOOM_BUILD_SHARED=OFF \
  -DSIMDBLOOM_BUILD_CLI=OFF -DSIMDBLOOM_DISABLED_TARGETS="HWY_SSSE3;HWY_SSE4;HWY_AVX3" \
  -DSIMDBLOOM_BUILD_FUZZ=ON -DSIMDBLOOM_WERROR=ON >/dev/null
cmake --build "$build" -j"$(nproc)"
# Each target with its corpus: filter files (load/view/Parquet import), then whole Parquet files
# (the simdbloom command's footer reader).
for pair in "simdbloom_fuzz_load:corpus:4096" "simdbloom_fuzz_parquet:corpus_parquet:65536" \
  "simdbloom_fuzz_guava:corpus_guava:4096"; do
  IFS=: read -r name corpus max_len <<<"$pair"
  fuzzer=$build/tests/fuzz/$name
  echo "== $name: replaying the corpus"
  "$fuzzer" -runs=0 "$src/tests/fuzz/$corpus"
  echo "== $name: fuzzing for $seconds s"
  mkdir -p "$build/$corpus"
  "$fuzzer" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -print_final_stats=1 \
    "$build/$corpus" "$src/tests/fuzz/$corpus"
done
echo "fuzz: no finding in $seconds s per target"
