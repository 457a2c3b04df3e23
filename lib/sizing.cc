// Sizing math: the false-positive model of each layout (lib/FORMAT.md) and the search for the
// smallest filter that keeps a requested rate.
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/dispatch.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace {

constexpr uint64_t kMaxBlocks = (uint64_t{1} << 32) - 1;
constexpr uint32_t kMaxK = 16;
// Below this the inclusion-exclusion sum loses digits to cancellation (terms are O(1e3) in
// magnitude, the result must be accurate to ~0.1%).
constexpr double kMinFpp = 1e-9;

// One inclusion-exclusion term: coef * exp(-lambda * (1 - y)).
struct Term {
  double coef;
  double one_minus_y;
};

// Terms of block512's FPR for k probes: s_w = number of the query's distinct bits chosen in word w.
std::vector<Term> Block512Terms(uint32_t k) {
  int q[8];
  for (int w = 0; w < 8; ++w) q[w] = static_cast<int>(k / 8) + (w < static_cast<int>(k % 8));
  // pow_avoid[s][c] = ((64 - s) / 64)^c: one key with c probes in a word avoids s given bits.
  double pow_avoid[3][3];
  for (int s = 0; s < 3; ++s) {
    for (int c = 0; c < 3; ++c) pow_avoid[s][c] = std::pow((64.0 - s) / 64.0, c);
  }
  static const double kCoef[3][3] = {{1, 0, 0}, {1, -1, 0}, {1, -127.0 / 64, 63.0 / 64}};
  std::vector<Term> terms;
  int s[8] = {0};
  for (;;) {
    double coef = 1;
    for (int w = 0; w < 8; ++w) coef *= kCoef[q[w]][s[w]];
    double y = 0;
    for (int v = 0; v < 8; ++v) {  // the inserted key's first word
      double p = 1;
      for (int w = 0; w < 8; ++w) p *= pow_avoid[s[w]][q[(w - v) & 7]];
      y += p;
    }
    terms.push_back(Term{coef, 1 - y / 8});
    int w = 0;  // next composition (mixed-radix counter)
    while (w < 8 && s[w] == q[w]) s[w++] = 0;
    if (w == 8) break;
    ++s[w];
  }
  return terms;
}

const std::vector<Term>& TermsFor(uint32_t k) {
  static const std::array<std::vector<Term>, kMaxK + 1> all = [] {
    std::array<std::vector<Term>, kMaxK + 1> t;
    for (uint32_t i = 1; i <= kMaxK; ++i) t[i] = Block512Terms(i);
    return t;
  }();
  return all[k];
}

double Block512Fpr(double keys_per_block, uint32_t k) {
  double sum = 0;
  for (const Term& t : TermsFor(k)) sum += t.coef * std::exp(-keys_per_block * t.one_minus_y);
  return sum < 0 ? 0 : (sum > 1 ? 1 : sum);
}

[[noreturn]] void Invalid(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, what);
}

}  // namespace

double predicted_fpp(Layout layout, uint64_t bits, uint32_t k, uint64_t n) {
  if (layout != Layout::kBlock512) Invalid("unknown layout");
  if (bits == 0) Invalid("predicted_fpp: bits must be > 0");
  if (k < 1 || k > kMaxK) Invalid("predicted_fpp: k must be in 1..16");
  if (n == 0) return 0;
  const uint64_t blocks = bits / 512 + (bits % 512 != 0);
  return Block512Fpr(static_cast<double>(n) / static_cast<double>(blocks), k);
}

Filter Filter::create(uint64_t expected_items, double fpp, Layout layout, uint64_t seed) {
  if (layout != Layout::kBlock512) Invalid("unknown layout");
  if (expected_items == 0) Invalid("create: expected_items must be > 0");
  if (!(fpp > 0 && fpp < 1)) Invalid("create: fpp must be in (0, 1), got " + std::to_string(fpp));
  if (fpp < kMinFpp) Invalid("create: fpp below 1e-9 cannot be sized reliably");
  const double n = static_cast<double>(expected_items);
  uint64_t best_blocks = 0;
  uint32_t best_k = 0;
  for (uint32_t k = 1; k <= kMaxK; ++k) {
    // FPR falls as blocks grow: binary search the smallest count that meets fpp.
    if (Block512Fpr(n / static_cast<double>(kMaxBlocks), k) > fpp) continue;
    uint64_t lo = 1, hi = kMaxBlocks;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (Block512Fpr(n / static_cast<double>(mid), k) <= fpp) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    if (best_k == 0 || lo < best_blocks) {  // ties keep the smaller k: fewer probes per key
      best_blocks = lo;
      best_k = k;
    }
  }
  if (best_k == 0) {
    Invalid("create: " + std::to_string(expected_items) + " items at fpp " + std::to_string(fpp) +
            " need more than 2^32 - 1 blocks");
  }
  return with_bits(best_blocks * 512, best_k, layout, seed);
}

}  // namespace simdbloom
