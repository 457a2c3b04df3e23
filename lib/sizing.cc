// Sizing math: the false-positive model of each layout (lib/FORMAT.md) and the search for the
// smallest filter that keeps a requested rate.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "lib/layout.h"
#include "simdbloom/simdbloom.hpp"

namespace simdbloom {
namespace detail {
namespace {

// Below this the inclusion-exclusion sums lose digits to cancellation (terms reach O(1e4) in
// magnitude, the result must be accurate to ~0.1%).
constexpr double kMinFpp = 1e-9;

// One inclusion-exclusion term of a blocked layout's FPR: coef * exp(-lambda * (1 - y)), where
// lambda = keys per block and y = probability that one key inserted into the block leaves the
// chosen query bits clear.
struct Term {
  double coef;
  double one_minus_y;
};

// Merges terms with equal exponents (many are equal by symmetry): fewer exp() calls and less
// cancellation.
std::vector<Term> Merged(std::vector<Term> terms) {
  std::sort(terms.begin(), terms.end(),
            [](const Term& a, const Term& b) { return a.one_minus_y < b.one_minus_y; });
  std::vector<Term> out;
  for (const Term& t : terms) {
    if (!out.empty() && std::fabs(out.back().one_minus_y - t.one_minus_y) <= 1e-15) {
      out.back().coef += t.coef;
    } else {
      out.push_back(t);
    }
  }
  out.erase(std::remove_if(out.begin(), out.end(), [](const Term& t) { return t.coef == 0; }),
            out.end());
  return out;
}

// block512: s_w = number of the query's distinct bits chosen in word w (inclusion-exclusion).
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
  return Merged(std::move(terms));
}

// register64: the query's k probes hit j distinct bits of 64 with probability P_j; all j are set
// with probability sum_t (-1)^t C(j, t) E[((64 - t)/64)^(k L)] over the word's load L.
std::vector<Term> Register64Terms(uint32_t k) {
  std::vector<double> p(k + 1, 0.0);  // p[j] = P(j distinct after the probes so far)
  p[0] = 1;
  for (uint32_t i = 0; i < k; ++i) {
    for (uint32_t j = i + 1; j >= 1; --j) p[j] = p[j] * j / 64.0 + p[j - 1] * (65.0 - j) / 64.0;
    p[0] = 0;
  }
  std::vector<Term> terms;
  for (uint32_t t = 0; t <= k; ++t) {
    double coef = 0, binom = 1;  // C(j, t) for j = t, t+1, ...
    for (uint32_t j = t; j <= k; ++j) {
      coef += p[j] * binom;
      binom = binom * (j + 1) / (j + 1 - t);
    }
    if (t % 2) coef = -coef;
    terms.push_back(Term{coef, 1 - std::pow((64.0 - t) / 64.0, k)});
  }
  return Merged(std::move(terms));
}

// split_block256: one bit in each of 8 u32 words: prod_w (1 - (31/32)^L) expanded.
std::vector<Term> Split256Terms() {
  std::vector<Term> terms;
  double binom = 1;  // C(8, t)
  for (int t = 0; t <= 8; ++t) {
    terms.push_back(Term{(t % 2 ? -binom : binom), 1 - std::pow(31.0 / 32.0, t)});
    binom = binom * (8 - t) / (t + 1);
  }
  return terms;
}

const std::vector<Term>& TermsFor(Layout layout, uint32_t k) {
  static const auto* tables = [] {
    auto* t = new std::array<std::array<std::vector<Term>, 17>, 4>();
    for (uint32_t i = 1; i <= 16; ++i) {
      (*t)[0][i] = Block512Terms(i);
      (*t)[1][i] = Register64Terms(i);
    }
    (*t)[2][8] = Split256Terms();
    return t;
  }();
  switch (layout) {
    case Layout::kBlock512:
      return (*tables)[0][k];
    case Layout::kRegister64:
      return (*tables)[1][k];
    default:
      return (*tables)[2][8];
  }
}

double Clamp01(double x) { return x < 0 ? 0 : (x > 1 ? 1 : x); }

}  // namespace

double ModelFpr(Layout layout, uint32_t k, double n, uint64_t num_blocks) {
  if (n <= 0) return 0;
  const double blocks = static_cast<double>(num_blocks);
  if (layout == Layout::kClassic) {
    // (1 - (1 - 1/m)^(k n))^k with m = 512 * num_blocks bits.
    const double m = 512.0 * blocks;
    const double fill = -std::expm1(static_cast<double>(k) * n * std::log1p(-1.0 / m));
    return Clamp01(std::pow(fill, static_cast<double>(k)));
  }
  const double lambda = n / blocks;
  double sum = 0;
  for (const Term& t : TermsFor(layout, k)) sum += t.coef * std::exp(-lambda * t.one_minus_y);
  return Clamp01(sum);
}

}  // namespace detail

using detail::Invalid;

const char* layout_name(Layout layout) noexcept {
  switch (layout) {
    case Layout::kBlock512:
      return "block512";
    case Layout::kRegister64:
      return "register64";
    case Layout::kSplitBlock256:
      return "split_block256";
    case Layout::kClassic:
      return "classic";
  }
  return "unknown";
}

uint32_t block_bits(Layout layout) {
  switch (layout) {
    case Layout::kBlock512:
    case Layout::kClassic:
      return 512;
    case Layout::kRegister64:
      return 64;
    case Layout::kSplitBlock256:
      return 256;
  }
  Invalid("block_bits: unknown layout");
}

double predicted_fpp(Layout layout, uint64_t bits, uint32_t k, uint64_t n) {
  detail::CheckLayoutAndK("predicted_fpp", layout, k);
  if (bits == 0) Invalid("predicted_fpp: bits must be > 0");
  const uint64_t blocks = detail::BlocksFor(bits, block_bits(layout));
  if (blocks > detail::kMaxBlocks) Invalid("predicted_fpp: more than 2^32 - 1 blocks");
  return detail::ModelFpr(layout, k, static_cast<double>(n), blocks);
}

Sizing size_for(uint64_t expected_items, double fpp, Layout layout) {
  if (!detail::KnownLayout(layout)) Invalid("size_for: unknown layout");
  if (expected_items == 0) Invalid("size_for: expected_items must be > 0");
  if (!(fpp > 0 && fpp < 1)) Invalid("size_for: fpp must be in (0, 1), got " + std::to_string(fpp));
  if (fpp < detail::kMinFpp) Invalid("size_for: fpp below 1e-9 cannot be sized reliably");
  const double n = static_cast<double>(expected_items);
  const double target = fpp * kSizingHeadroom;
  uint64_t best_blocks = 0;
  uint32_t best_k = 0;
  for (uint32_t k = detail::MinK(layout); k <= detail::MaxK(layout); ++k) {
    // FPR falls as blocks grow: binary search the smallest count that meets fpp.
    if (detail::ModelFpr(layout, k, n, detail::kMaxBlocks) > target) continue;
    uint64_t lo = 1, hi = detail::kMaxBlocks;
    while (lo < hi) {
      const uint64_t mid = lo + (hi - lo) / 2;
      if (detail::ModelFpr(layout, k, n, mid) <= target) {
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
    Invalid("size_for: " + std::to_string(expected_items) + " items at fpp " + std::to_string(fpp) +
            " need more than 2^32 - 1 blocks of " + layout_name(layout));
  }
  return Sizing{best_blocks * block_bits(layout), best_k,
                detail::ModelFpr(layout, best_k, n, best_blocks)};
}

}  // namespace simdbloom
