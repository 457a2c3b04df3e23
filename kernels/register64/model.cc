// SPDX-License-Identifier: Apache-2.0
// register64's false-positive model and statistics (lib/FORMAT.md).
#include "kernels/fpr_terms.h"

#include <cmath>

#include "kernels/register64/spec.h"

namespace simdbloom {
namespace detail {
namespace {

// The query's k probes hit j distinct bits of 64 with probability P_j; all j are set with
// probability sum_t (-1)^t C(j, t) E[((64 - t)/64)^(k L)] over the word's load L.
std::vector<Term> Terms(uint32_t k) {
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
  return MergedTerms(std::move(terms));
}

}  // namespace

double Register64Spec::ModelFpr(uint32_t k, double n, uint64_t num_blocks) {
  return EvalCachedTerms<Terms, kMinK, kMaxK>(k, n / static_cast<double>(num_blocks));
}

double Register64Spec::DistinctBitsPerKey(uint32_t k, double) {
  return 64 * -std::expm1(k * std::log1p(-1.0 / 64));
}

double Register64Spec::ExpectedFpp(const uint8_t* bytes, uint64_t num_blocks, uint32_t k) {
  double sum = 0;
  for (uint64_t w = 0; w < num_blocks; ++w) {
    sum += std::pow(Popcount64(WordAt(bytes, w)) / 64.0, static_cast<double>(k));
  }
  return sum / static_cast<double>(num_blocks);
}

}  // namespace detail
}  // namespace simdbloom
