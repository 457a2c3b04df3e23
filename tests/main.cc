// SPDX-License-Identifier: Apache-2.0
// doctest main. With SIMDBLOOM_TEST_TARGET=NAME only that target is tested; if this CPU lacks it
// the run exits 77 (ctest reports "Skipped"), or fails if SIMDBLOOM_TEST_REQUIRE is set.
#include <doctest/doctest.h>  // implemented in doctest_impl.cc

#include <cctype>
#include <cstdlib>

#include "tests/test_util.h"

namespace simdbloom {
namespace test {

bool SameTargetName(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::vector<const detail::Kernels*> TargetsUnderTest() {
  const char* want = std::getenv("SIMDBLOOM_TEST_TARGET");
  std::vector<const detail::Kernels*> out;
  for (const detail::Kernels* k : detail::Available()) {
    if (k->hwy_target == 0) continue;  // the reference
    if (want == nullptr || *want == '\0' || SameTargetName(want, k->name)) out.push_back(k);
  }
  return out;
}

}  // namespace test
}  // namespace simdbloom

int main(int argc, char** argv) {
  const char* want = std::getenv("SIMDBLOOM_TEST_TARGET");
  if (want != nullptr && *want != '\0' && simdbloom::test::TargetsUnderTest().empty()) {
    std::printf("target %s is not supported by this CPU (or not compiled): skipped\n", want);
    return std::getenv("SIMDBLOOM_TEST_REQUIRE") != nullptr ? 1 : 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
