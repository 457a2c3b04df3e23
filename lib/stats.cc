// What a filter knows from its bits: fill ratio, approximate count and the false-positive rate of
// the actual bit array (lib/FORMAT.md, "Statistics").
#include <cmath>
#include <cstring>
#include <limits>

#include "lib/layout.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace {

inline uint32_t Popcount64(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<uint32_t>((x * 0x0101010101010101ull) >> 56);
}

inline uint64_t WordAt(const uint8_t* bytes, size_t i) {
  uint64_t w;
  std::memcpy(&w, bytes + 8 * i, 8);
  return w;
}

uint64_t SetBits(const uint8_t* bytes, size_t size) {
  uint64_t total = 0;
  for (size_t i = 0; i < size / 8; ++i) total += Popcount64(WordAt(bytes, i));
  return total;
}

// Expected number of distinct bits one key sets (FORMAT.md): the per-key share of the array that
// makes E[zero bits] = m (1 - d/m)^n exact under uniform hashing.
double DistinctBitsPerKey(Layout layout, uint32_t k, double m) {
  switch (layout) {
    case Layout::kBlock512:
      return k <= 8 ? k : 8 + (k - 8) * (63.0 / 64.0);
    case Layout::kRegister64:
      return 64 * -std::expm1(k * std::log1p(-1.0 / 64));
    case Layout::kSplitBlock256:
      return 8;
    case Layout::kClassic:
      return m * -std::expm1(k * std::log1p(-1.0 / m));
  }
  return k;
}

}  // namespace

double Filter::fill_ratio() const noexcept {
  if (words_ == nullptr) return 0;
  return static_cast<double>(SetBits(data(), size_bytes())) / static_cast<double>(bit_count());
}

double Filter::approximate_count() const noexcept {
  if (words_ == nullptr) return 0;
  const double m = static_cast<double>(bit_count());
  const double zero = m - static_cast<double>(SetBits(data(), size_bytes()));
  if (zero <= 0) return std::numeric_limits<double>::infinity();
  const double d = DistinctBitsPerKey(layout_, k_, m);
  return std::log(zero / m) / std::log1p(-d / m);
}

double Filter::expected_fpp() const noexcept {
  if (words_ == nullptr) return 0;
  const uint8_t* bytes = data();
  double sum = 0;
  switch (layout_) {
    case Layout::kBlock512: {
      // Probe i of a query with first word v lands in word (v + i) mod 8: word w gets
      // k/8 + [(w - v) mod 8 < k mod 8] probes, each set with probability popcount / 64.
      const uint32_t base = k_ / 8, rest = k_ % 8;
      for (uint64_t b = 0; b < num_blocks_; ++b) {
        double c[8], all = 1;
        for (int w = 0; w < 8; ++w) {
          c[w] = Popcount64(WordAt(bytes, 8 * b + w)) / 64.0;
          for (uint32_t r = 0; r < base; ++r) all *= c[w];
        }
        if (all == 0) continue;
        double over_v = 0;
        for (int v = 0; v < 8; ++v) {
          double extra = 1;
          for (uint32_t t = 0; t < rest; ++t) extra *= c[(v + t) & 7];
          over_v += extra;
        }
        sum += all * over_v / 8;
      }
      return sum / static_cast<double>(num_blocks_);
    }
    case Layout::kRegister64:
      for (uint64_t w = 0; w < num_blocks_; ++w) {
        sum += std::pow(Popcount64(WordAt(bytes, w)) / 64.0, static_cast<double>(k_));
      }
      return sum / static_cast<double>(num_blocks_);
    case Layout::kSplitBlock256:
      for (uint64_t b = 0; b < num_blocks_; ++b) {
        double p = 1;
        for (int i = 0; i < 4; ++i) {  // 8 u32 words = 4 u64 words; popcount each half
          const uint64_t w = WordAt(bytes, 4 * b + i);
          p *= Popcount64(w & 0xFFFFFFFFu) / 32.0 * (Popcount64(w >> 32) / 32.0);
        }
        sum += p;
      }
      return sum / static_cast<double>(num_blocks_);
    case Layout::kClassic:
      return std::pow(fill_ratio(), static_cast<double>(k_));
  }
  return 1;
}

}  // namespace simdbloom
