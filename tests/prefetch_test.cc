// The prefetch distance bulk calls use (lib/prefetch.cc): measured once per layout, size class and
// target on the machine, chosen among the candidates, cached, overridable, never measured on a
// view, and never a cause of different bytes or results.
#include <doctest/doctest.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "lib/layout.h"
#include "simdbloom/simdbloom.hpp"
#include "tests/test_util.h"

namespace simdbloom {
namespace {

bool IsCandidate(uint32_t d) {
  for (uint32_t c : {0u, 16u, 32u, 64u, 128u, 256u}) {
    if (d == c) return true;
  }
  return false;
}

TEST_CASE("api: prefetch distance measured once per size class, results unchanged") {
  detail::ResetPrefetchCalibration();
  // Below 1 MiB: no prefetching, nothing measured.
  const Filter small = Filter::with_bits(uint64_t{1} << 20, 6);  // 128 KiB
  CHECK(detail::PrefetchDistance(small) == 0);

  Filter f = Filter::with_bits(uint64_t{64} << 20, 6);  // 8 MiB
  const uint32_t d = detail::PrefetchDistance(f);
  CHECK(IsCandidate(d));
  CHECK(detail::PrefetchDistance(f) == d);  // cached: the same answer without measuring again
  // Another filter of the same size class shares the measurement.
  const Filter g = Filter::with_bits(uint64_t{72} << 20, 6);
  CHECK(detail::PrefetchDistance(g) == d);

  detail::SetPrefetchOverride(40);
  CHECK(detail::PrefetchDistance(f) == 40);
  CHECK(detail::PrefetchDistance(small) == 40);
  detail::SetPrefetchOverride(-1);
  CHECK(detail::PrefetchDistance(f) == d);

  // A view (an mmapped file's pages may not be resident) is never measured: it takes its size
  // class's measured distance, or 64 when there is none.
  std::stringstream saved;
  f.save(saved);
  const std::string bytes = saved.str();
  std::vector<uint64_t> storage(bytes.size() / 8 + 16);
  auto* at = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(storage.data()) + 63) &
                                        ~uintptr_t{63});
  std::memcpy(at, bytes.data(), bytes.size());
  const Filter view = Filter::view(at, bytes.size());
  CHECK(detail::PrefetchDistance(view) == d);
  detail::ResetPrefetchCalibration();
  CHECK(detail::PrefetchDistance(view) == 64);

  // Bytes and answers are the same at every distance, the measured one included.
  const std::vector<uint64_t> keys = test::RandomKeys(300000, 71);
  std::vector<uint8_t> want_bytes, want_out;
  for (int forced : {-1, 0, 16, 256}) {
    CAPTURE(forced);
    detail::SetPrefetchOverride(forced);
    f.clear();
    f.insert(keys);
    std::vector<uint8_t> out(keys.size());
    const std::vector<uint64_t> probe = test::RandomKeys(keys.size(), 72);
    f.contains(probe, out.data());
    const std::vector<uint8_t> got(f.data(), f.data() + f.size_bytes());
    if (forced == -1) {
      want_bytes = got;
      want_out = out;
    } else {
      CHECK(got == want_bytes);
      CHECK(out == want_out);
    }
  }
  detail::SetPrefetchOverride(-1);
}

}  // namespace
}  // namespace simdbloom
