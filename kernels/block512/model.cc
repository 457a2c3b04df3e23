// SPDX-License-Identifier: Apache-2.0
// block512's false-positive model and statistics (lib/FORMAT.md).
#include <cmath>

#include "kernels/block512/spec.h"
#include "kernels/fpr_terms.h"

namespace simdbloom {
namespace detail {
namespace {

// s_w = number of the query's distinct bits chosen in word w (inclusion-exclusion).
std::vector<Term> Terms(uint32_t k) {
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
    if (!NextMixedRadix(s, q)) break;  // next composition
  }
  return MergedTerms(std::move(terms));
}

}  // namespace

double Block512Spec::ModelFpr(uint32_t k, double n, uint64_t num_blocks) {
  return EvalCachedTerms<Terms, kMinK, kMaxK>(k, n / static_cast<double>(num_blocks));
}

double Block512Spec::DistinctBitsPerKey(uint32_t k, double) {
  return k <= 8 ? k : 8 + (k - 8) * (63.0 / 64.0);
}

double Block512Spec::ExpectedFpp(const uint8_t* bytes, uint64_t num_blocks, uint32_t k) {
  // Probe i of a query with first word v lands in word (v + i) mod 8: word w gets
  // k/8 + [(w - v) mod 8 < k mod 8] probes, each set with probability popcount / 64.
  const uint32_t base = k / 8, rest = k % 8;
  double sum = 0;
  for (uint64_t b = 0; b < num_blocks; ++b) {
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
  return sum / static_cast<double>(num_blocks);
}

}  // namespace detail
}  // namespace simdbloom
