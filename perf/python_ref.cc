// SPDX-License-Identifier: Apache-2.0
// simdbloom-pyref: the C++ side of perf/python_bench.py. Times the bulk calls the Python module
// makes (Filter::insert over u64 keys, Filter::contains into a caller's buffer) on keys read from
// a file the benchmark wrote, so both sides run the same calls on the same keys in the same run.
//
// usage: simdbloom-pyref KEYS PROBES N FPP REPEATS [FILTER_OUT]
//   KEYS, PROBES: raw little-endian u64 keys. Each repeat clears the filter (not timed), times
//   insert(KEYS) and contains(PROBES). Prints one JSON line per call with the minimum over the
//   repeats, in seconds; FILTER_OUT receives the filter's saved bytes (the Python side compares).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <simdbloom/simdbloom.hpp>
#include <vector>

namespace {

std::vector<uint64_t> ReadU64(const char* path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path);
    std::exit(2);
  }
  std::vector<uint64_t> v(static_cast<size_t>(in.tellg()) / 8);
  in.seekg(0);
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 8));
  return v;
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6 && argc != 7) {
    std::fprintf(stderr, "usage: %s KEYS PROBES N FPP REPEATS [FILTER_OUT]\n", argv[0]);
    return 2;
  }
  const std::vector<uint64_t> keys = ReadU64(argv[1]), probes = ReadU64(argv[2]);
  const int repeats = std::max(1, std::atoi(argv[5]));
  simdbloom::Filter f =
      simdbloom::Filter::create(std::strtoull(argv[3], nullptr, 10), std::atof(argv[4]));
  std::vector<uint8_t> out(probes.size());
  double best_insert = 1e30, best_contains = 1e30;
  uint64_t hits = 0;
  for (int r = 0; r < repeats; ++r) {
    f.clear();
    double t = Now();
    f.insert(keys);
    best_insert = std::min(best_insert, Now() - t);
    t = Now();
    hits = f.contains(probes, out.data());
    best_contains = std::min(best_contains, Now() - t);
  }
  std::printf("{\"op\":\"insert\",\"keys\":%zu,\"seconds\":%.6f}\n", keys.size(), best_insert);
  std::printf("{\"op\":\"contains\",\"keys\":%zu,\"seconds\":%.6f,\"hits\":%llu}\n", probes.size(),
              best_contains, static_cast<unsigned long long>(hits));
  if (argc == 7) {
    // The last repeat's filter: one insert of KEYS into a cleared filter (its inserted count
    // includes the earlier repeats, so the Python side compares the bits after the header).
    f.save_file(argv[6]);
  }
  return 0;
}
