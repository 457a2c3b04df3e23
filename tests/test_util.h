// Shared test helpers: the list of targets to test and deterministic key generators.
#ifndef SIMDBLOOM_TESTS_TEST_UTIL_H_
#define SIMDBLOOM_TESTS_TEST_UTIL_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/dispatch.h"

namespace simdbloom {
namespace test {

// SplitMix64: fixed-seed key streams.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t operator()() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

inline std::vector<uint64_t> RandomKeys(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<uint64_t> keys(n);
  for (auto& k : keys) k = rng();
  return keys;
}

bool SameTargetName(const std::string& a, const std::string& b);

// The SIMD targets under test: every compiled target this CPU supports
// (hwy::SupportedAndGeneratedTargets), or only the one named by SIMDBLOOM_TEST_TARGET.
// The reference itself is not included: it is what they are compared with.
std::vector<const detail::Kernels*> TargetsUnderTest();

template <class Fn>
void ForEachTarget(const char* suite, Fn&& fn) {
  for (const detail::Kernels* k : TargetsUnderTest()) {
    std::printf("[%s] target %s\n", suite, k->name);
    std::fflush(stdout);
    fn(*k);
  }
}

}  // namespace test
}  // namespace simdbloom

#endif  // SIMDBLOOM_TESTS_TEST_UTIL_H_
